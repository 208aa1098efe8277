"""docs/pipeline.md §6: finding the summary JSON in a reply, the analysis text, the fallback.

Every reply in ``CASES`` is also run through the goose-sdk wheel (test_cases_match_the_wheel,
skipped without it), so the expectations below are the reference's behaviour, not ours.
What the wheel showed beyond docs/pipeline.md §6: ```JSON (upper case) and ```json5 are not markers;
"leading whitespace" is Rust's (NBSP and U+0085 count, \\x1c does not); the final "object that
starts the whole text" has no </analysis> count check; an object before a cut is ignored.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from goose_tui.compaction.extract import Candidate, extract_summary
from goose_tui.compaction.structured import LIST_FIELDS


def obj(*intent: str, **fields: object) -> str:
    return json.dumps({"user_intent": list(intent), **fields})


FENCE_KEY_CODE = "before\n````\nstill code\n````\nafter"

# (name, reply, expected user_intent or None for the raw-text fallback)
CASES: list[tuple[str, str, list[str] | None]] = [
    ("plain", "<analysis>x</analysis>\n```json\n" + obj("do it") + "\n```", ["do it"]),
    ("start-then-tag", obj("a") + "\n<analysis>x</analysis> trailing", ["a"]),
    (
        "quoted-tag",
        "<analysis>x</analysis>\n```json\n" + obj("the </analysis> tag") + "\n```",
        ["the </analysis> tag"],
    ),
    (
        "two-quoted-tags",
        "<analysis>x</analysis>```json\n" + obj("</analysis></analysis>"),
        ["</analysis></analysis>"],
    ),
    ("nbsp-whitespace", "```json\u00a0" + obj("a"), ["a"]),
    ("nel-whitespace", "```json\x85" + obj("a"), ["a"]),
    (
        "two-blocks-last-wins",
        "```json\n" + obj("first") + "\n```\n```json\n" + obj("second"),
        ["second"],
    ),
    ("last-block-unusable", "```json\n" + obj("first") + "\n```\n```json\n{}\n```", ["first"]),
    (
        "marker-beats-tail-start",
        "</analysis>" + obj("tail") + "```json\n" + obj("marker"),
        ["marker"],
    ),
    ("brace-in-string", '```json\n{"user_intent": ["a } b { c"]}', ["a } b { c"]),
    ("escaped-quote", '```json\n{"user_intent": ["a \\" } b"]}', ['a " } b']),
    ("extra-closing-brace", '```json\n{"user_intent": ["a"]}}', ["a"]),
    ("truncated-then-start", obj("start") + '\n```json\n{"user_intent": [', ["start"]),
    ("analysis-never-closed", "<analysis>x\n```json\n" + obj("a"), ["a"]),
    ("tag-after-start-object", obj("a") + "</analysis>", ["a"]),
    (
        "objects-in-string-list",
        '```json\n{"user_intent": [{"goal": "ship", "by": 3}, ["x", 1]]}',
        ["goal: ship; by: 3", "x; 1"],
    ),
    ("duplicate-keys", '```json\n{"user_intent": ["old"], "user_intent": ["new"]}', ["new"]),
    (
        "raw-newline-in-string",
        '```json\n{"user_intent": ["line one\nline two\tend"]}',
        ["line one\nline two\tend"],
    ),
    (
        "key-code-four-backticks",
        "```json\n"
        + json.dumps({"files": [{"path": "a.md", "summary": "s", "key_code": FENCE_KEY_CODE}]}),
        [],
    ),
    (
        "later-cut-wins",
        "<analysis>a</analysis>```json\n" + obj("early") + "\n```\n"
        "<analysis>b</analysis>```json\n" + obj("late"),
        ["late"],
    ),
    (
        "earlier-cut-when-late-empty",
        '<analysis>a</analysis>```json\n{"user_intent": ["early", "</analysis> quoted"]}',
        ["early", "</analysis> quoted"],
    ),
    (
        "only-whitespace-fields-then-good",
        "```json\n" + obj("good") + "\n```\n```json\n"
        '{"user_intent": ["  "], "current_work": "\\n"}',
        ["good"],
    ),
    # --- replies that must fall back to the raw text ---
    ("truncated-json", '<analysis>x</analysis>\n```json\n{"user_intent": ["a", "b"', None),
    ("empty-object", "```json\n{}\n```", None),
    ("only-extras", '```json\n{"notes": "n", "todo": ["t"]}', None),
    ("array-instead-of-object", '```json\n[{"user_intent": ["a"]}]', None),
    ("prose-only", "I could not summarize this conversation.", None),
    (
        "all-blank-fields",
        '```json\n{"user_intent": ["", "  "], "current_work": "\\u00a0",'
        ' "files": [{"path": " ", "summary": ""}], "next_step": null}',
        None,
    ),
    ("marker-without-object", "<analysis>x</analysis>\n```json\nnot json at all\n```", None),
    ("unbalanced", '```json\n{"user_intent": ["a"]', None),
    ("count-check-fails", "<analysis>x</analysis>" + obj("a") + " </analysis>", None),
    ("two-tags-after-object", "<analysis>x</analysis>```json\n" + obj("a") + "</analysis>", None),
    ("object-mid-prose", "Here you go: " + obj("mid"), None),
    ("object-before-cut", "```json\n" + obj("before") + "\n```</analysis> no json", None),
    ("object-before-cut-2", "```json\n" + obj("before") + "\n```</analysis>\n```json\n{}", None),
    ("upper-case-marker", "prose ```JSON\n" + obj("a"), None),
    ("json5-marker", "prose ```json5\n" + obj("a"), None),
    ("x1c-is-not-whitespace", "```json\x1c" + obj("a"), None),
    ("trailing-comma", '```json\n{"user_intent": ["a"],}', None),
    ("number-out-of-range", '```json\n{"user_intent": ["a"], "x": 1E400}', None),
    ("nan", '```json\n{"user_intent": ["a"], "x": NaN}', None),
    ("lone-surrogate", '```json\n{"user_intent": ["\\ud800"]}', None),
    ("empty-containers", '```json\n{"current_work": [], "next_step": {}}', None),
    ("empty-reply", "", None),
]


def dump(reply: str) -> str:
    """What the probe template of test_cases_match_the_wheel renders, or the raw reply."""
    extraction = extract_summary(reply)
    summary = extraction.structured
    if summary is None:
        return reply
    out = "R" + "".join("".join(f"[{x}]" for x in getattr(summary, k)) + "|" for k in LIST_FIELDS)
    out += "".join(f"<{f.path}/{f.summary}/{f.key_code or ''}>" for f in summary.files) + "|"
    return out + (summary.current_work or "") + "|" + (summary.next_step or "")


@pytest.mark.parametrize(("name", "reply", "expected"), CASES, ids=[c[0] for c in CASES])
def test_cases(name: str, reply: str, expected: list[str] | None) -> None:
    extraction = extract_summary(reply)
    if expected is None:
        assert extraction.fallback
        assert extraction.structured is None and extraction.candidate is None
        assert extraction.reply == reply  # nothing is lost
        assert extraction.fallback_reason
    else:
        assert not extraction.fallback, extraction.fallback_reason
        assert extraction.fallback_reason is None
        assert extraction.structured is not None
        assert extraction.structured.user_intent == expected
        candidate = extraction.candidate
        assert candidate is not None
        assert reply[candidate.start] == "{" and reply[candidate.end - 1] == "}"
        assert json.loads(reply[candidate.start : candidate.end], strict=False) is not None


def test_key_code_with_four_backticks_is_kept_verbatim() -> None:
    reply = next(r for name, r, _ in CASES if name == "key-code-four-backticks")
    files = extract_summary(reply).structured.files  # type: ignore[union-attr]
    assert files[0].key_code == FENCE_KEY_CODE


def test_candidate_positions_and_descriptions() -> None:
    reply = "<analysis>a</analysis>x<analysis>b</analysis>\n```json\n" + obj("u") + "\n```"
    candidate = extract_summary(reply).candidate
    assert candidate is not None
    assert candidate.kind == "json_fence" and candidate.cut_number == 2
    assert candidate.cut == reply.index("\n```json")
    assert candidate.describe() == "```json block after the 2nd </analysis>"
    tail = extract_summary("<analysis>a</analysis> " + obj("u")).candidate
    assert tail is not None and tail.kind == "tail_start"
    assert tail.describe() == "object at the start of the text after the 1st </analysis>"
    start = extract_summary(obj("u") + "</analysis>").candidate
    assert start is not None and start.kind == "text_start" and start.start == 0
    assert start.describe() == "object at the start of the reply"
    no_tags = extract_summary("```json\n" + obj("u")).candidate
    assert no_tags is not None and no_tags.describe() == "```json block"
    assert Candidate(kind="json_fence", start=0, end=1, cut=0, cut_number=11).describe() == (
        "```json block after the 11th </analysis>"
    )
    assert "23rd" in Candidate(kind="tail_start", start=0, end=1, cut=0, cut_number=23).describe()


def test_analysis_is_the_block_before_the_chosen_object() -> None:
    reply = (
        "<analysis>first</analysis>\n```json\n"
        + obj("early", current_work="quotes <analysis>\n  - second\n</analysis>")
        + "\n```"
    )
    extraction = extract_summary(reply)
    assert extraction.structured is not None and extraction.structured.user_intent == ["early"]
    assert extraction.analysis == "first"
    late = "<analysis>a</analysis>```json\n{}\n```\n<analysis>\n  - second\n</analysis>"
    assert extract_summary(late + "\n" + obj("late")).analysis == "- second"


def test_analysis_without_opening_tag_and_without_any() -> None:
    assert extract_summary("checklist here</analysis>" + obj("u")).analysis == "checklist here"
    assert extract_summary("```json\n" + obj("u")).analysis is None
    assert extract_summary(obj("u") + "<analysis>after</analysis>").analysis is None


def test_analysis_on_fallback_is_the_last_block() -> None:
    extraction = extract_summary("<analysis>one</analysis> <analysis>two</analysis> prose")
    assert extraction.fallback and extraction.analysis == "two"
    assert extract_summary("<analysis>never closed").analysis is None


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("prose only", "no JSON object found"),
        ('```json\n{"user_intent": ["a"', "never closes (truncated reply?)"),
        ('```json\n{"user_intent": ["a"],}', "does not parse: Expecting property name"),
        ("```json\n{}", "parsed, but no field of the summary is filled"),
        ('```json\n{"notes": 1, "more": 2}', "only unknown keys: notes, more"),
        ("<analysis>x</analysis>" + obj("a") + "</analysis>", "outside it"),
        ("```json\n{}\n```json\n{}", "1 other candidate also failed"),
        ('```json\n{"user_intent": ["a"], "x": 1E400}', "number out of range"),
    ],
)
def test_fallback_reasons(reply: str, reason: str) -> None:
    extraction = extract_summary(reply)
    assert extraction.fallback
    assert reason in (extraction.fallback_reason or "")


def test_fallback_reason_names_the_offset() -> None:
    reply = 'prose\n```json\n{"user_intent": ["a"],}'
    reason = extract_summary(reply).fallback_reason or ""
    assert f"offset {reply.index('{')} (line 3, column 1)" in reason
    assert "at line 3, column 23" in reason


def test_many_terminators_quoted_inside_the_summary() -> None:
    """The object after the first cut holds every later terminator in its strings."""
    quoted = [f"step {i}: </analysis> seen" for i in range(300)]
    reply = "<analysis>x</analysis>\n```json\n" + json.dumps({"user_intent": quoted}) + "\n```"
    extraction = extract_summary(reply)
    assert extraction.structured is not None and extraction.structured.user_intent == quoted
    assert extraction.candidate is not None and extraction.candidate.cut_number == 1


def test_many_terminators_outside_fall_back_to_the_start() -> None:
    noise = '</analysis>```json {"a": "</analysis> \\" {", {{ } ' * 2000
    extraction = extract_summary(obj("head") + noise)
    assert extraction.candidate is not None and extraction.candidate.kind == "text_start"
    assert extraction.structured is not None and extraction.structured.user_intent == ["head"]
    assert extract_summary("x" + noise).fallback


def test_backslash_runs_decide_which_quotes_close_strings() -> None:
    # "\\\\" ends with an escaped backslash, so the quote after it closes the string.
    reply = '<analysis>x</analysis>```json\n{"user_intent": ["a\\\\", "</analysis>"]}'
    assert extract_summary(reply).structured.user_intent == ["a\\", "</analysis>"]  # type: ignore[union-attr]


# --- the same cases against the goose-sdk wheel ------------------------------------------

PROBE_TEMPLATE = (
    "R"
    + "".join("{%% for f in %s %%}[{{ f }}]{%% endfor %%}|" % k for k in LIST_FIELDS)  # noqa: UP031
    + "{% for f in files %}<{{ f.path }}/{{ f.summary }}/"
    "{% if f.key_code %}{{ f.key_code }}{% endif %}>{% endfor %}|"
    "{% if current_work %}{{ current_work }}{% endif %}|"
    "{% if next_step %}{{ next_step }}{% endif %}"
)


class _Reply:
    text = ""


@pytest.fixture(scope="module")
def wheel_compact() -> Iterator[object]:
    goose = pytest.importorskip("goose", reason="goose-sdk (the reference wheel) not installed")

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            chunk = {
                "id": "x",
                "object": "chat.completion.chunk",
                "created": 1,
                "model": body["model"],
                "choices": [{"index": 0, "delta": {"role": "assistant", "content": _Reply.text}}],
            }
            end = {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()
            for data in (chunk, end):
                self.wfile.write(f"data: {json.dumps(data)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    provider = goose.openai_provider("sk-test", f"http://127.0.0.1:{server.server_port}")
    defaults = goose.default_compaction_templates()
    templates = goose.CompactionTemplates(compaction=defaults.compaction, summary=PROBE_TEMPLATE)
    messages = [goose.CompactionMessage(role=goose.MessageRole.USER, text="hello")]

    def compact(reply: str) -> str:
        _Reply.text = reply
        return asyncio.run(provider.compact("gpt-4o", messages, templates)).text

    yield compact
    server.shutdown()


# The wheel's stream needs a non-empty reply, so the empty one is checked by the table only.
WHEEL_CASES = [c for c in CASES if c[1]]


@pytest.mark.parametrize(
    ("name", "reply", "expected"), WHEEL_CASES, ids=[c[0] for c in WHEEL_CASES]
)
def test_cases_match_the_wheel(wheel_compact, name: str, reply: str, expected: object) -> None:
    assert dump(reply) == wheel_compact(reply)
