"""What the summarizer receives, as Goose builds it: which content reaches it, what
`goose-tui format` prints, how tool arguments' numbers and replies are written, and the
error of an exhausted ladder. Each test names the Goose source it follows; the fixtures in
tests/fixtures/goose/ are in the shapes Goose writes (tests/fixtures/make_goose_fixtures.py)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from goose_tui.cli import main
from goose_tui.compaction.format import format_messages
from goose_tui.compaction.summarize import (
    CompactionFailed,
    build_request,
    summarize,
)
from goose_tui.compaction.templates import load_templates
from goose_tui.compaction.visibility import summarizer_messages
from goose_tui.llm.base import ChatMessage, Completion, ContextLengthExceeded
from goose_tui.session.loader import load_session
from goose_tui.session.models import Message
from goose_tui.session.serde import compact_json

FIXTURES = Path(__file__).parents[1] / "fixtures" / "goose"
V13 = FIXTURES / "sessions-v13.db"
V5 = FIXTURES / "sessions-v5.db"
SHELL_OUTPUT = "test_ledger.py::test_totals PASSED\ntest_ledger.py::test_rounding FAILED"
# crates/goose-context-management/src/summarize.rs (and context_mgmt/mod.rs before it).
GOOSE_EXHAUSTED = "Failed to compact: context limit exceeded even after removing all tool responses"


def text(body: str, **annotations: object) -> dict:
    item: dict = {"type": "text", "text": body}
    if annotations:
        item["annotations"] = annotations
    return item


def response(*content: dict) -> dict:
    return {
        "type": "toolResponse",
        "id": "call_1",
        "toolResult": {"status": "success", "value": {"content": list(content), "isError": False}},
    }


def user(*content: dict, **metadata: bool) -> Message:
    return Message.model_validate({"role": "user", "content": list(content), "metadata": metadata})


# --- audience (crates/goose/src/conversation/message.rs, agent_visible_content) ---------


def test_doubled_shell_output_reaches_the_summarizer_once() -> None:
    """The developer extension answers with an assistant copy and a user copy (priority 0.0);
    Goose's filter_for_audience(Assistant) drops the user copy inside the tool result."""
    doubled = response(
        text("ok 3 passed", audience=["assistant"]),
        text("ok 3 passed", audience=["user"], priority=0.0),
    )
    formatted = format_messages(summarizer_messages([user(doubled)]))
    assert formatted == "[user]: tool_response: ok 3 passed"
    prompt = build_request([user(doubled)], load_templates(None)).system_prompt
    assert prompt.count("ok 3 passed") == 1


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        # A message left without content is not sent (Conversation::agent_visible_messages).
        (text("for the user", audience=["user"]), ""),
        (text("for both", audience=["user", "assistant"]), "[user]: for both"),
        (text("no audience", priority=1.0), "[user]: no audience"),
        (text("nobody", audience=[]), ""),
        (
            {
                "type": "image",
                "data": "AA==",
                "mimeType": "image/png",
                "annotations": {"audience": ["user"]},
            },
            "",
        ),
        # A response cut to nothing stays (Goose keeps it for providers that need it).
        (
            response(text("shown only", audience=["user"])),
            "[user]: tool_response: [non-text content]",
        ),
        # Items Goose filters by audience are text and image; a document's annotations are
        # not read (the `_ => Some(self.clone())` arm).
        (
            {
                "type": "document",
                "data": "",
                "mimeType": "text/plain",
                "annotations": {"audience": ["user"]},
            },
            "[user]: [document: text/plain]",
        ),
    ],
)
def test_audience_filter_per_item(item: dict, expected: str) -> None:
    assert format_messages(summarizer_messages([user(item)])) == expected


def test_messages_without_content_and_thinking_only_ones_are_empty_messages() -> None:
    """agent_visible_messages filters on metadata (block/goose @bc55f686), so a message
    without content is sent; it and a message holding only thinking are then written
    <empty message> (tests/compaction/test_empty_messages.py)."""
    thinking = {"type": "thinking", "thinking": "hmm", "signature": ""}
    messages = [user(), user(text("kept")), user(thinking)]
    assert format_messages(summarizer_messages(messages)) == (
        "[user]: <empty message>\n[user]: kept\n[user]: <empty message>"
    )


# --- `goose-tui format` prints what the summarizer receives ----------------------------


def test_format_prints_exactly_the_summarizer_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["format", str(V13), "--session", "20251009_1"]) == 0
    out = capsys.readouterr().out
    session = load_session(V13, "20251009_1")
    # Hidden history (agentVisible false) and the turn-context message are left out, the
    # shell output appears once.
    assert "The rounding test fails, can you look?" not in out
    assert "<turn-context>" not in out
    assert out.count("test_rounding FAILED") == 1
    assert out == format_messages(summarizer_messages(session.messages)) + "\n"
    prompt = build_request(session.messages, load_templates(None)).system_prompt
    assert out.rstrip("\n") in prompt


# --- conversationCompacted, turnContext -------------------------------------------------


def test_conversation_compacted_items_are_dropped_when_read() -> None:
    """deserialize_sanitized_content (message.rs) drops them on every read."""
    session = load_session(FIXTURES / "legacy-2024.jsonl")
    types = [item["type"] for m in session.messages for item in m.content]
    assert "conversationCompacted" not in types
    assert "text" in types  # the rest of that message stays


def test_turn_context_messages_are_left_out_of_the_summarizer_input() -> None:
    """do_compact (crates/goose/src/context_mgmt/mod.rs) filters `!msg.is_turn_context()`;
    the flag is MessageMetadata.turn_context, serialized `turnContext`."""
    session = load_session(V13, "20251009_1")
    flagged = [m for m in session.messages if m.metadata.turn_context]
    assert len(flagged) == 1 and flagged[0].metadata.agent_visible
    assert flagged[0] not in summarizer_messages(session.messages)
    dumped = flagged[0].model_dump(by_alias=True)["metadata"]
    assert dumped["turnContext"] is True
    plain = session.messages[3].model_dump(by_alias=True)["metadata"]
    assert "turnContext" not in plain  # written only when set, as Goose writes it


# --- numbers in tool arguments -----------------------------------------------------------


@pytest.mark.parametrize(
    ("literal", "serde"),
    [
        ("0.00001", "0.00001"),
        ("1e-7", "1e-7"),
        ("1e-05", "0.00001"),
        ("3.0", "3.0"),
        ("-0", "-0.0"),
        ("100", "100"),
        ("1e16", "1e+16"),
        ("18446744073709551615", "18446744073709551615"),  # u64::MAX stays an integer
        ("18446744073709551616", "1.8446744073709552e+19"),
        ("-9223372036854775809", "-9.223372036854776e+18"),
        ("123456789012345678901234567890", "1.2345678901234568e+29"),
    ],
)
def test_tool_argument_numbers_print_as_serde_json_prints_them(
    tmp_path: Path, literal: str, serde: str
) -> None:
    """format_message_for_compacting writes serde_json::to_string(&arguments); these values
    are what the goose-sdk wheel prints for the same literals (tests/differential/
    test_numbers.py runs generated ones)."""
    path = tmp_path / "s.jsonl"
    request = (
        '{"type":"toolRequest","id":"c","toolCall":{"status":"success","value":'
        f'{{"name":"t","arguments":{{"n":{literal}}}}}}}}}'
    )
    path.write_text('{"description":"x"}\n{"role":"assistant","content":[' + request + "]}\n")
    assert (
        format_messages(load_session(path).messages)
        == f'[assistant]: tool_request(t): {{"n":{serde}}}'
    )
    if literal != "-0":  # Python's own reader makes an int 0 of it; the loader does not
        assert compact_json({"n": json.loads(literal)}) == f'{{"n":{serde}}}'


# --- the exhausted ladder ----------------------------------------------------------------


class Overflowing:
    name = "overflowing"

    async def complete(self, messages: list[ChatMessage], on_chunk=None) -> Completion:
        raise ContextLengthExceeded("too long")


def test_exhausted_ladder_error_is_goose_sentence() -> None:
    session = load_session(V13, "20251009_1")
    with pytest.raises(CompactionFailed) as caught:
        asyncio.run(summarize(session.messages, Overflowing(), load_templates(None)))
    assert str(caught.value) == GOOSE_EXHAUSTED  # the whole text, as Goose's own test has it
    assert caught.value.advice is not None and caught.value.advice.startswith("Use a model")
    assert len(caught.value.attempts) == 5


# --- replies read byte for byte -----------------------------------------------------------


def test_replay_file_keeps_crlf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    reply = tmp_path / "reply.txt"
    reply.write_bytes(b"No JSON here.\r\nSecond line.\r\n")
    assert main(["compact", str(V5), "--replay", str(reply), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["raw_response"] == "No JSON here.\r\nSecond line.\r\n"
    assert result["summary"] == "No JSON here.\r\nSecond line.\r\n"
    assert main(["parse", str(reply), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["summary"] == "No JSON here.\r\nSecond line.\r\n"
