"""Issue 12: candidates that cannot be usable (no summary key text after their start) are
counted, not parsed, and the search gives exactly what trying each of them gives."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goose_tui.compaction import extract
from goose_tui.compaction.extract import _Search, extract_summary

HEAD = json.dumps({"user_intent": ["benchmark"], "current_work": "measuring extraction"})
BLOCK = '```json\n{"x": 1}\n'


def searched(reply: str, *, prune: bool) -> tuple[object, object, str | None]:
    """(candidate, summary, fallback reason) of one search; ``prune=False`` tries every
    candidate (no offset is past the last key text)."""
    search = _Search(reply)
    if not prune:
        search.key_floor = len(reply)
    found = search.run()
    if found is None:
        return None, None, search.fallback_reason()
    candidate, summary = found
    return candidate.model_dump(), summary, None


def test_dense_non_summary_blocks_are_not_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    reply = HEAD + "\n" + BLOCK * 20_000
    parses: list[int] = []
    original = _Search._parse_uncached

    def counting(self: _Search, start: int) -> object:
        parses.append(start)
        return original(self, start)

    monkeypatch.setattr(_Search, "_parse_uncached", counting)
    extraction = extract_summary(reply)
    assert extraction.structured is not None
    assert extraction.structured.user_intent == ["benchmark"]
    assert extraction.candidate is not None and extraction.candidate.start == 0
    # The last block (tried first, in full) and the object at the start: not 20,000 parses.
    assert len(parses) <= 3


@pytest.mark.parametrize(
    "reply",
    [
        BLOCK * 300,  # every block fails: the reason counts all of them
        BLOCK * 300 + "```json\n",  # the last marker holds no object: not a failure
        BLOCK * 300 + "```json   \n ",
        BLOCK * 300 + '```json\n{"x": ',  # the first failure is a parse failure
        BLOCK * 300 + "```json\n{\n",
        "```json\n{}\n" * 50 + "```json\n```json\n" + BLOCK * 40,
        HEAD + "\n" + BLOCK * 300,
        BLOCK * 100 + HEAD + BLOCK * 100,
        BLOCK * 100 + '```json\n{"user_intent": ["a"]}\n' + BLOCK * 100,
        BLOCK * 100 + '```json\n{"\\u0075ser_intent": ["escaped"]}\n' + BLOCK * 100,
        BLOCK * 100 + '```json\n{"next_step": ""}\n' + BLOCK * 100,  # usable? no: empty
        "<analysis>x</analysis>" + BLOCK * 100 + "</analysis>" + BLOCK * 50,
        BLOCK * 50 + "</analysis>\n" + HEAD + BLOCK * 60 + "</analysis>" + BLOCK * 10,
        '```json\n{"user_intent": ["</analysis>"]}\n' + BLOCK * 30 + "</analysis>" + BLOCK,
        BLOCK * 20 + "```json" + " " * 10 + "</analysis>" + "{" + BLOCK * 5,
    ],
)
def test_pruned_search_equals_trying_every_candidate(reply: str) -> None:
    assert searched(reply, prune=True) == searched(reply, prune=False)


FRAGMENTS = [
    "```json",
    "```json\n",
    BLOCK,
    BLOCK,
    '```json\n{"x": ',
    "</analysis>",
    "<analysis>",
    "{",
    "}",
    '"',
    '\\"',
    "\\u0075",
    " ",
    "\n",
    "\u3000",
    '"user_intent"',
    "user_intent",
    '{"user_intent": ["a"]}',
    '{"next_step": "n"}',
    '{"current_work": ""}',
    '{"user_intent": "</analysis>"}',
    ": ",
    "[",
    "]",
    "{}",
]
replies = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=2), max_size=30).map("".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(replies)
def test_pruning_never_changes_the_result_or_the_reason(reply: str) -> None:
    assert searched(reply, prune=True) == searched(reply, prune=False)


def test_key_texts_are_every_field_and_the_unicode_escape() -> None:
    from goose_tui.compaction.structured import FIELD_ORDER

    assert set(extract._KEY_TEXTS) == {*FIELD_ORDER, "\\u"}
