"""docs/pipeline.md §2, one case per row of the table, plus the message and history framing."""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goose_tui.compaction.format import (
    format_content_item,
    format_message_for_compacting,
    format_messages,
)
from goose_tui.session.models import Message
from tests.conftest import REALDATA


def ok(value: Any) -> dict[str, Any]:
    return {"status": "success", "value": value}


def err(message: str = "boom") -> dict[str, Any]:
    return {"status": "error", "error": message}


def call(name: str, arguments: Any) -> dict[str, Any]:
    return ok({"name": name, "arguments": arguments})


ITEM_CASES: list[tuple[str, dict[str, Any], str | None]] = [
    ("text", {"type": "text", "text": "hello\nworld"}, "hello\nworld"),
    ("text empty", {"type": "text", "text": ""}, ""),
    ("image", {"type": "image", "data": "AAAA", "mimeType": "image/png"}, "[image: image/png]"),
    (
        "document named",
        {"type": "document", "name": "spec.pdf", "mimeType": "application/pdf", "data": "x"},
        "[document: spec.pdf (application/pdf)]",
    ),
    (
        "document unnamed",
        {"type": "document", "mimeType": "text/csv", "data": "x"},
        "[document: text/csv]",
    ),
    (
        "toolRequest compact json, order and non-ASCII kept",
        {
            "type": "toolRequest",
            "id": "c1",
            "toolCall": call("shell", {"command": "echo héllo ✓", "a": [1, 2.5, None, True]}),
        },
        'tool_request(shell): {"command":"echo héllo ✓","a":[1,2.5,null,true]}',
    ),
    (
        "toolRequest control characters escaped as serde does",
        {"type": "toolRequest", "id": "c1", "toolCall": call("w", {"t": 'a\n"b"\t\x01/'})},
        'tool_request(w): {"t":"a\\n\\"b\\"\\t\\u0001/"}',
    ),
    (
        "toolRequest empty arguments",
        {"type": "toolRequest", "id": "c1", "toolCall": call("list", {})},
        "tool_request(list): {}",
    ),
    (
        "toolRequest arguments that cannot be serialized",
        {"type": "toolRequest", "id": "c1", "toolCall": call("x", {"n": float("nan")})},
        "tool_request(x): <<invalid json>>",
    ),
    (
        "toolRequest error",
        {"type": "toolRequest", "id": "c1", "toolCall": err("bad call")},
        "tool_request: [error]",
    ),
    (
        "toolResponse ok with content object",
        {
            "type": "toolResponse",
            "id": "c1",
            "toolResult": ok(
                {
                    "content": [
                        {"type": "text", "text": "line 1"},
                        {"type": "image", "data": "AA", "mimeType": "image/png"},
                        {"type": "text", "text": "line 2"},
                    ],
                    "isError": False,
                }
            ),
        },
        "tool_response: line 1\nline 2",
    ),
    (
        "toolResponse ok as bare list (older files)",
        {
            "type": "toolResponse",
            "id": "c1",
            "toolResult": ok([{"type": "text", "text": "old style"}]),
        },
        "tool_response: old style",
    ),
    (
        "toolResponse isError true still shows its text",
        {
            "type": "toolResponse",
            "id": "c1",
            "toolResult": ok({"content": [{"type": "text", "text": "E: fail"}], "isError": True}),
        },
        "tool_response: E: fail",
    ),
    (
        "toolResponse non-text content",
        {
            "type": "toolResponse",
            "id": "c1",
            "toolResult": ok({"content": [{"type": "image", "data": "A", "mimeType": "x/y"}]}),
        },
        "tool_response: [non-text content]",
    ),
    (
        "toolResponse empty content",
        {"type": "toolResponse", "id": "c1", "toolResult": ok({"content": [], "isError": False})},
        "tool_response: [non-text content]",
    ),
    (
        "toolResponse error",
        {"type": "toolResponse", "id": "c1", "toolResult": err()},
        "tool_response: [error]",
    ),
    (
        "toolConfirmationRequest",
        {
            "type": "toolConfirmationRequest",
            "id": "c1",
            "toolName": "developer__shell",
            "arguments": {"command": "rm -rf build"},
            "prompt": "Allow?",
        },
        "tool_confirmation_request: developer__shell",
    ),
    (
        "actionRequired tool_confirmation",
        {
            "type": "actionRequired",
            "data": {"actionType": "toolConfirmation", "id": "a1", "toolName": "shell"},
        },
        "action_required(tool_confirmation): shell",
    ),
    (
        "actionRequired elicitation",
        {
            "type": "actionRequired",
            "data": {"actionType": "elicitation", "id": "a2", "message": "Which branch?"},
        },
        "action_required(elicitation): Which branch?",
    ),
    (
        "actionRequired elicitation_response",
        {
            "type": "actionRequired",
            "data": {"actionType": "elicitationResponse", "id": "a3", "user_data": {}},
        },
        "action_required(elicitation_response): a3",
    ),
    (
        "actionRequired tool_confirmation_response",
        {
            "type": "actionRequired",
            "data": {"actionType": "toolConfirmationResponse", "id": "a4", "confirmed": True},
        },
        "action_required(tool_confirmation_response): a4",
    ),
    (
        "frontendToolRequest ok",
        {"type": "frontendToolRequest", "id": "f1", "toolCall": call("open_url", {"u": "x"})},
        "frontend_tool_request: open_url",
    ),
    (
        "frontendToolRequest error",
        {"type": "frontendToolRequest", "id": "f1", "toolCall": err()},
        "frontend_tool_request: [error]",
    ),
    (
        "systemNotification",
        {"type": "systemNotification", "notificationType": "inlineMessage", "msg": "Compacted"},
        "system_notification: Compacted",
    ),
    ("error", {"type": "error", "message": "provider went away"}, "error: provider went away"),
    ("thinking dropped", {"type": "thinking", "thinking": "hmm", "signature": "s"}, None),
    ("redactedThinking dropped", {"type": "redactedThinking", "data": "xx"}, None),
    ("reasoning dropped", {"type": "reasoning", "text": "why"}, None),
    ("old contextLengthExceeded dropped", {"type": "contextLengthExceeded", "msg": "m"}, None),
    ("old summarizationRequested dropped", {"type": "summarizationRequested", "msg": "m"}, None),
    ("unknown type named, never a crash", {"type": "hologram", "beam": 3}, "[hologram]"),
    ("item without a type", {"text": "orphan"}, "[unknown content]"),
]


@pytest.mark.parametrize(
    ("item", "expected"),
    [case[1:] for case in ITEM_CASES],
    ids=[case[0] for case in ITEM_CASES],
)
def test_format_content_item(item: dict[str, Any], expected: str | None) -> None:
    assert format_content_item(item) == expected


def test_tool_request_arguments_match_json_round_trip() -> None:
    arguments = {"path": "/tmp/ü.txt", "nested": {"k": [1, {"z": "ÿ"}]}, "big": 2**70}
    text = format_content_item(
        {"type": "toolRequest", "id": "c", "toolCall": call("write", arguments)}
    )
    assert text is not None
    payload = text.removeprefix("tool_request(write): ")
    assert " " not in payload.replace("/tmp/ü.txt", "")
    assert json.loads(payload) == arguments


def msg(role: str, *content: dict[str, Any]) -> Message:
    return Message(role=role, content=list(content))


def test_message_parts_joined_by_newline_and_thinking_skipped() -> None:
    message = msg(
        "assistant",
        {"type": "thinking", "thinking": "secret", "signature": ""},
        {"type": "text", "text": "Running the tests."},
        {"type": "toolRequest", "id": "1", "toolCall": call("shell", {"command": "pytest"})},
    )
    assert format_message_for_compacting(message) == (
        '[assistant]: Running the tests.\ntool_request(shell): {"command":"pytest"}'
    )


@pytest.mark.parametrize(
    "content",
    [[], [{"type": "thinking", "thinking": "x", "signature": ""}], [{"type": "reasoning"}]],
)
def test_message_without_parts_is_empty_message(content: list[dict[str, Any]]) -> None:
    assert format_message_for_compacting(msg("user", *content)) == "[user]: <empty message>"


def test_empty_text_is_a_part_not_an_empty_message() -> None:
    # Goose keeps the empty string as a part, so the message is "[user]: " not <empty message>.
    assert format_message_for_compacting(msg("user", {"type": "text", "text": ""})) == "[user]: "


def test_format_messages_joins_messages_with_newline() -> None:
    history = [
        msg("user", {"type": "text", "text": "fix it"}),
        msg(
            "user",
            {"type": "toolResponse", "id": "1", "toolResult": ok([{"type": "text", "text": "ok"}])},
        ),
        msg("assistant"),
    ]
    assert format_messages(history) == (
        "[user]: fix it\n[user]: tool_response: ok\n[assistant]: <empty message>"
    )
    assert format_messages([]) == ""


def test_real_goose_export_formats() -> None:
    path = REALDATA / "export-session.json"
    data = json.loads(path.read_text())
    messages = [Message.model_validate(m) for m in data["conversation"]]
    lines = format_messages(messages).split("\n")
    assert lines[0] == "[user]: Create greeting.txt containing the word hello"
    assert lines[1] == (
        '[assistant]: tool_request(write): {"content":"hello","path":"/tmp/greeting.txt"}'
    )
    assert lines[2] == "[user]: tool_response: Created /tmp/greeting.txt (1 lines)"


# Characters that NFC composes, reorders or that the formatter removes, around the ASCII
# separators the formatter puts between pieces.
_TRICKY = st.sampled_from(
    [
        "e",
        "A",
        "=",
        "<",
        ">",
        " ",
        ":",
        "\n",
        "]",
        "\u0301",
        "\u0338",
        "\u0323",
        "\u0308",
        "\u1100",
        "\u1161",
        "\u11a8",
        "\U000e0041",
        "\U000e007f",
        "\u00e9",
        "\u212b",
        "🙂",
        "\ud800",  # lone surrogates: the strings a hostile JSON escape can make
        "\udfff",
    ]
)
_TRICKY_TEXT = st.lists(_TRICKY, max_size=12).map("".join)


@settings(max_examples=300, deadline=None)
@given(
    role=_TRICKY_TEXT,
    texts=st.lists(_TRICKY_TEXT, max_size=3),
    outputs=st.lists(_TRICKY_TEXT, max_size=3),
)
def test_piecewise_normalization_equals_normalizing_the_whole_message(
    role: str, texts: list[str], outputs: list[str]
) -> None:
    """The formatter normalizes piece by piece (so it can share the session's strings); the
    reference normalizes the whole message text. Both must give the same text."""
    content: list[dict[str, Any]] = [{"type": "text", "text": t} for t in texts]
    if outputs:
        content.append(
            {
                "type": "toolResponse",
                "id": "1",
                "toolResult": ok([{"type": "text", "text": t} for t in outputs]),
            }
        )
    message = msg(role or "user", *content)
    parts = [format_content_item(item) for item in message.content]
    whole = f"[{message.role}]: " + "\n".join(p for p in parts if p is not None)
    if not content:
        whole = f"[{message.role}]: <empty message>"
    # NFC, then the tag characters removed (tests/differential/test_findings.py).
    expected = re.sub("[\U000e0000-\U000e007f]", "", unicodedata.normalize("NFC", whole))
    assert format_message_for_compacting(message) == expected
    assert format_messages([message, message]) == expected + "\n" + expected
