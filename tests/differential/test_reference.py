"""Differential tests: our pipeline against the goose-sdk wheel, in process.

For every corpus case the wheel compacts the conversation against a scripted loopback model,
and our pipeline, given Goose's own two templates as ``--prompts-dir`` overrides, must produce
the byte-equal system prompt (the one the wheel sent to the server) and the byte-equal summary.

How the corpus maps onto our messages: ``goose.CompactionMessage`` is text only. The wheel
formats a ``MessageRole.TOOL`` message as ``[user]: {text}`` — no ``tool_response:`` prefix —
so it is a plain user text message to Goose, not a tool response. We therefore build a
``user`` message with one text item for it (see ``our_messages``). Our ``toolResponse``
formatting (``[user]: tool_response: ...``) cannot be compared here: the text-only wheel has
no way to send a real tool response.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from goose_tui.compaction.format import format_messages
from goose_tui.compaction.summarize import SUMMARIZE_REQUEST, build_request, finish
from goose_tui.compaction.templates import load_templates, render_compaction_prompt
from tests.conftest import REALDATA
from tests.differential.conftest import Script, ScriptedServer, our_messages, run_reference
from tests.differential.corpus import CASES, Case

goose = pytest.importorskip(
    "goose", reason="goose-sdk (the reference wheel, module `goose`) is not installed"
)

USAGE = {"prompt_tokens": 1234, "completion_tokens": 56, "total_tokens": 1290}
IDS = [c.name for c in CASES]


def test_corpus_is_big_and_varied() -> None:
    assert len(CASES) >= 30
    assert len({c.name for c in CASES}) == len(CASES)
    assert sum(c.fallback for c in CASES) >= 10
    assert sum(not c.fallback for c in CASES) >= 20


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_system_prompt_is_byte_equal(
    case: Case, server: ScriptedServer, goose_prompts_dir: Path
) -> None:
    server.script = Script(reply=case.reply, usage=USAGE)
    run_reference(server, case)
    assert len(server.requests) == 1
    body = server.requests[0]
    sent = body["messages"]

    templates = load_templates(goose_prompts_dir)
    messages = our_messages(case)
    ours = render_compaction_prompt(templates, format_messages(messages))
    assert ours == sent[0]["content"]

    # The whole request: the system prompt, one user request, no tools.
    request = build_request(messages, templates)
    assert request.system_prompt == sent[0]["content"]
    assert [m.model_dump() for m in request.messages] == [
        {"role": m["role"], "content": m["content"]} for m in sent
    ]
    assert sent[1] == {"role": "user", "content": SUMMARIZE_REQUEST}
    assert not body.get("tools")


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_summary_is_byte_equal(case: Case, server: ScriptedServer, goose_prompts_dir: Path) -> None:
    server.script = Script(reply=case.reply, usage=USAGE)
    reference = run_reference(server, case)

    extraction, summary = finish(case.reply, load_templates(goose_prompts_dir))
    assert summary == reference.text
    # The case still tests what it was written for, on both sides.
    assert (reference.text == case.reply) is case.fallback
    assert extraction.fallback is case.fallback
    assert (extraction.fallback_reason is not None) is case.fallback


@pytest.mark.parametrize("case", CASES[:3] + CASES[-3:], ids=IDS[:3] + IDS[-3:])
def test_passing_goose_templates_equals_goose_builtins(case: Case, server: ScriptedServer) -> None:
    """The suite's premise: the wheel's ``default_compaction_templates()`` passed as overrides
    behave exactly like its built-in pair (``templates=None``)."""
    server.script = Script(reply=case.reply, usage=USAGE)
    builtin = run_reference(server, case, None)
    passed = run_reference(server, case, goose.default_compaction_templates())
    assert builtin.text == passed.text
    assert server.requests[0] == server.requests[1]


def test_reported_usage_is_passed_through(server: ScriptedServer) -> None:
    server.script = Script(reply=CASES[0].reply, usage=USAGE)
    reference = run_reference(server, CASES[0])
    assert (reference.input_tokens, reference.output_tokens, reference.total_tokens) == (
        1234,
        56,
        1290,
    )


def test_reference_does_not_estimate_missing_usage(server: ScriptedServer) -> None:
    """Finding: when the server reports no usage, the wheel's ``compact`` returns None for
    input, output and total tokens — it does not estimate them, unlike docs/pipeline.md §7 (which
    our
    pipeline follows, see test_http_path.py). The estimate therefore cannot be compared
    against the reference; this test pins what the reference does."""
    server.script = Script(reply=CASES[0].reply, usage=None)
    reference = run_reference(server, CASES[0])
    assert reference.text.startswith("# Conversation Summary")
    assert (reference.input_tokens, reference.output_tokens, reference.total_tokens) == (
        None,
        None,
        None,
    )


PARTIAL_USAGE = [
    ({"prompt_tokens": 99}, (None, None, None)),
    ({"prompt_tokens": 99, "total_tokens": 100}, (None, None, None)),
    ({"prompt_tokens": 99, "completion_tokens": 5}, (99, 5, 104)),
    ({"completion_tokens": 5, "total_tokens": 100}, (None, 5, 100)),
    ({"prompt_tokens": 99, "completion_tokens": 5, "total_tokens": 1000}, (99, 5, 1000)),
    ({"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}, (0, 0, 0)),
]


@pytest.mark.parametrize(("usage", "expected"), PARTIAL_USAGE)
def test_reference_reads_partial_usage(
    usage: dict[str, int], expected: tuple[int | None, ...], server: ScriptedServer
) -> None:
    """Finding: the wheel never estimates. It drops the whole usage when
    ``completion_tokens`` is missing, keeps a reported total even when it is not in + out,
    and derives the total as in + out only when both are reported and the total is not."""
    server.script = Script(reply=CASES[0].reply, usage=usage)
    reference = run_reference(server, CASES[0])
    assert (reference.input_tokens, reference.output_tokens, reference.total_tokens) == expected


def test_text_only_overflow_fails_after_one_request(server: ScriptedServer) -> None:
    """Finding: TOOL-role messages are not tool responses to the wheel, so with text-only
    input the ladder has nothing to remove. A 400 context_length_exceeded fails at once,
    after exactly one request, saying there are no tool responses to remove and advising a
    larger usable context, fewer extensions (tool schemas) or a new session (docs/pipeline.md
    §7)."""
    case = CASES[0]
    assert any(role == "tool" for role, _ in case.conversation)
    server.script = Script(context_error=True)
    with pytest.raises(goose.GooseError) as info:
        run_reference(server, case)
    message = str(info.value)
    assert len(server.requests) == 1
    assert "no tool responses to remove" in message
    assert "larger usable context" in message
    assert "new session" in message


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_formatted_messages_are_byte_equal(case: Case, server: ScriptedServer) -> None:
    """``format_messages`` alone, independent of our template loading: a compaction template
    that is only ``{{ messages }}`` between markers makes the wheel send exactly its formatted
    conversation (the markers keep the final strip from touching it)."""
    server.script = Script(reply=case.reply, usage=USAGE)
    defaults = goose.default_compaction_templates()
    only_messages = goose.CompactionTemplates(
        compaction="<<{{ messages }}>>", summary=defaults.summary
    )
    run_reference(server, case, only_messages)
    sent = server.requests[0]["messages"][0]["content"]
    assert sent == "<<" + format_messages(our_messages(case)) + ">>"


def test_real_text_export_prompt_is_byte_equal(
    server: ScriptedServer, goose_prompts_dir: Path
) -> None:
    """A real `goose session export` (text only, so the wheel can take it whole), loaded by
    our loader: the system prompt we build equals the one the wheel sends for the same
    texts."""
    from goose_tui.session.loader import load_session

    session = load_session(REALDATA / "export-text.json")
    assert session.messages and all(
        item.get("type") == "text" for m in session.messages for item in m.content
    )
    conversation = tuple(
        (m.role, "\n".join(item["text"] for item in m.content)) for m in session.messages
    )
    server.script = Script(reply=CASES[0].reply, usage=USAGE)
    run_reference(server, Case("real", conversation, CASES[0].reply))
    ours = build_request(session.messages, load_templates(goose_prompts_dir))
    assert ours.system_prompt == server.requests[0]["messages"][0]["content"]
