"""Property tests (hypothesis): any reply ends in a usable summary or the raw text, any JSON
value in any field is read without an exception."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goose_tui.compaction.extract import extract_summary
from goose_tui.compaction.structured import FIELD_ORDER, StructuredSummary
from goose_tui.compaction.templates import load_templates, render_summary

TEMPLATES = load_templates()

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
field_names = st.sampled_from([*FIELD_ORDER, "extra", "path", "key_code"])
summaries = st.dictionaries(field_names, json_values, max_size=6)

# Pieces that steer random replies into the interesting paths of docs/pipeline.md §6.
FRAGMENTS = [
    "</analysis>",
    "<analysis>",
    "```json",
    "```json\n",
    "\n```",
    "{",
    "}",
    '"',
    '\\"',
    "\\",
    " ",
    "\n",
    ":",
    ",",
    "[",
    "]",
    '"user_intent"',
    '"current_work"',
    '"files"',
    '"x"',
    "null",
    "1.5e3",
    '{"user_intent": ["a"]}',
    '{"next_step": "n"}',
    "{}",
    '{"user_intent": "</analysis>"}',
]
replies = st.one_of(
    st.text(),
    st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=3), max_size=25).map("".join),
)


def check_extraction(reply: str) -> None:
    extraction = extract_summary(reply)
    assert extraction.reply == reply
    if extraction.structured is None:
        assert extraction.candidate is None and extraction.fallback_reason
        return
    assert extraction.fallback_reason is None
    assert extraction.structured.has_content()
    assert extraction.structured == extraction.structured.normalized()
    candidate = extraction.candidate
    assert candidate is not None
    assert 0 <= candidate.cut <= candidate.start < candidate.end <= len(reply)
    assert reply[candidate.start] == "{" and reply[candidate.end - 1] == "}"
    span = reply[candidate.start : candidate.end]
    assert StructuredSummary.parse_json_text(span).normalized() == extraction.structured
    assert candidate.describe()
    assert isinstance(render_summary(TEMPLATES, extraction.structured), str)


@pytest.mark.slow
@settings(max_examples=250, suppress_health_check=[HealthCheck.too_slow])
@given(replies)
def test_any_reply_is_a_summary_or_the_raw_text(reply: str) -> None:
    check_extraction(reply)


@pytest.mark.slow
@settings(max_examples=100)
@given(summaries, st.sampled_from(["", "<analysis>a</analysis>", "```json\n"]))
def test_generated_summaries_in_a_reply(data: dict, prefix: str) -> None:
    check_extraction(prefix + json.dumps(data))


@pytest.mark.slow
@settings(max_examples=100)
@given(summaries)
def test_any_json_value_in_any_field_is_read(data: dict) -> None:
    summary = StructuredSummary.parse(data)
    assert summary is not None
    normalized = summary.normalized()
    assert normalized.normalized().has_content() == normalized.has_content()
    assert set(summary.template_context()) >= set(FIELD_ORDER)
    # What a user saves and edits reads back to the same nine fields.
    again = StructuredSummary.parse_json_text(json.dumps(summary.to_json_dict()))
    for name in FIELD_ORDER:
        assert getattr(again, name) == getattr(summary, name)
    assert isinstance(render_summary(TEMPLATES, normalized), str)


@given(json_values)
def test_any_top_level_value_is_read_or_rejected(value: object) -> None:
    summary = StructuredSummary.parse(value)
    assert (summary is None) == (not isinstance(value, dict))
