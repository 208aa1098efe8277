"""SPEC §2: each message becomes ``[{role}]: `` + its parts, the text the summarizer reads.

Content items are plain dicts (see ``session/models.py``), read by key and leniently: a file
written by an older or newer Goose must format, never raise.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Callable, Iterable
from typing import Any

from goose_tui.compaction.structured import format_float, serde_number
from goose_tui.session.models import ContentItem, Message, content_type

INVALID_JSON = "<<invalid json>>"

# Items the summarizer never sees. Thinking is the model's private scratch work; the two old
# control markers only record that Goose hit the limit or was asked to summarize, which says
# nothing about the work itself (Goose's own formatter has no arm for them either).
DROPPED_TYPES = frozenset(
    {"thinking", "redactedThinking", "reasoning", "contextLengthExceeded", "summarizationRequested"}
)


_I64_MIN = -(2**63)
_U64_MAX = 2**64 - 1


def compact_json(value: Any) -> str:
    """JSON as serde_json::to_string writes it: no spaces, non-ASCII kept, key order kept,
    and numbers as serde_json prints them (``0.00001``, ``1e-7``, ``1e+16``; an integer
    beyond 64 bits was read as a float, ``1.2345678901234568e+29``). Python's own float
    text differs (``1e-05``), so numbers are written here and everything else by ``json``.

    NaN and infinities are not JSON (serde refuses them), so they count as unserializable."""
    if isinstance(value, dict) and all(map(_flat_plain, value.values())):
        # Most tool arguments: strings and small integers, which json writes as serde does.
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    pieces: list[str] = []
    _write_json(value, pieces)
    return "".join(pieces)


def _flat_plain(value: Any) -> bool:
    return (
        isinstance(value, str)
        or value is None
        or isinstance(value, bool)
        or (type(value) is int and _I64_MIN <= value <= _U64_MAX)
    )


def _write_json(value: Any, out: list[str]) -> None:
    if isinstance(value, str) or value is None or isinstance(value, bool):
        out.append(json.dumps(value, ensure_ascii=False))
    elif isinstance(value, int):
        out.append(str(value) if _I64_MIN <= value <= _U64_MAX else _wide_int(value))
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("NaN and infinities are not JSON")
        out.append(format_float(value))
    elif isinstance(value, dict):
        out.append("{")
        for number, (key, item) in enumerate(value.items()):
            if not isinstance(key, str):
                raise TypeError(f"a JSON object key must be a string, not {type(key).__name__}")
            out.append(("," if number else "") + json.dumps(key, ensure_ascii=False) + ":")
            _write_json(item, out)
        out.append("}")
    elif isinstance(value, list | tuple):
        out.append("[")
        for number, item in enumerate(value):
            if number:
                out.append(",")
            _write_json(item, out)
        out.append("]")
    else:
        raise TypeError(f"{type(value).__name__} is not JSON")


def _wide_int(value: int) -> str:
    # serde_json (without arbitrary_precision) holds such a literal as the f64 its own
    # parser makes of the digits; the text of a Python int is that literal.
    number = serde_number(str(value))
    return format_float(float(number))


def _text(value: Any) -> str:
    """A field that should be a string, shown as one whatever a file put there."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    try:
        return compact_json(value)
    except (TypeError, ValueError):
        return str(value)


def _first(item: dict[str, Any], *keys: str) -> Any:
    """The first present key: Goose writes camelCase, a few older writers snake_case."""
    for key in keys:
        if key in item:
            return item[key]
    return None


def _ok_value(result: Any) -> tuple[bool, Any]:
    """(succeeded, value) of a serialized Rust ``Result``: ``{status, value}``/``{status, error}``.

    A missing status with a value present is read as success, an older/looser shape."""
    if not isinstance(result, dict):
        return False, None
    status = result.get("status")
    if status == "success" or (status is None and "value" in result and "error" not in result):
        return True, result.get("value")
    return False, None


def _tool_request(item: ContentItem) -> str:
    ok, call = _ok_value(item.get("toolCall"))
    if not ok or not isinstance(call, dict):
        return "tool_request: [error]"
    try:
        arguments = compact_json(call.get("arguments"))
    except (TypeError, ValueError):
        arguments = INVALID_JSON
    return f"tool_request({_text(call.get('name'))}): {arguments}"


def tool_result_contents(value: Any) -> list[Any]:
    """The content list of a successful tool result: ``{content: [...]}`` or a bare list."""
    if isinstance(value, dict):
        value = value.get("content")
    return value if isinstance(value, list) else []


def tool_response_texts(item: ContentItem) -> list[str] | None:
    """The text items of a tool response; None when the call failed."""
    ok, value = _ok_value(item.get("toolResult"))
    if not ok:
        return None
    return [
        part["text"]
        for part in tool_result_contents(value)
        if content_type(part) == "text" and isinstance(part.get("text"), str)
    ]


def _document(item: ContentItem) -> str:
    mime = _text(_first(item, "mimeType", "mime_type"))
    name = item.get("name")
    return f"[document: {_text(name)} ({mime})]" if name is not None else f"[document: {mime}]"


# Goose tags action data with camelCase names; snake_case accepted for hand-written files.
_ACTIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "toolConfirmation": ("tool_confirmation", ("toolName", "tool_name")),
    "elicitation": ("elicitation", ("message",)),
    "elicitationResponse": ("elicitation_response", ("id",)),
    "toolConfirmationResponse": ("tool_confirmation_response", ("id",)),
}
_ACTIONS |= {label: (label, keys) for label, keys in _ACTIONS.values()}


def _action_required(item: ContentItem) -> str:
    data = item.get("data")
    data = data if isinstance(data, dict) else {}
    kind = _text(_first(data, "actionType", "action_type"))
    label, keys = _ACTIONS.get(kind, (kind or "unknown", ("id",)))
    return f"action_required({label}): {_text(_first(data, *keys))}"


def _frontend_tool_request(item: ContentItem) -> str:
    ok, call = _ok_value(item.get("toolCall"))
    if not ok or not isinstance(call, dict):
        return "frontend_tool_request: [error]"
    return f"frontend_tool_request: {_text(call.get('name'))}"


_FORMATTERS: dict[str, Callable[[ContentItem], str]] = {
    "text": lambda item: _text(item.get("text")),
    "image": lambda item: f"[image: {_text(_first(item, 'mimeType', 'mime_type'))}]",
    "document": _document,
    "toolRequest": _tool_request,
    "toolConfirmationRequest": lambda item: (
        f"tool_confirmation_request: {_text(_first(item, 'toolName', 'tool_name'))}"
    ),
    "actionRequired": _action_required,
    "frontendToolRequest": _frontend_tool_request,
    "systemNotification": lambda item: f"system_notification: {_text(item.get('msg'))}",
    "error": lambda item: f"error: {_text(_first(item, 'message', 'msg', 'error'))}",
}


def _item_pieces(item: ContentItem) -> list[str] | None:
    """The item's text as pieces to concatenate, None when the summarizer never sees it.

    A tool response's outputs stay separate pieces, and a text item's piece is the item's
    own string: formatting a big session copies its text once, in the final join."""
    kind = content_type(item)
    if kind in DROPPED_TYPES:
        return None
    if kind == "toolResponse":
        texts = tool_response_texts(item)
        if texts is None:
            return ["tool_response: [error]"]
        if not texts:
            return ["tool_response: [non-text content]"]
        pieces = ["tool_response: "]
        for text in texts:
            pieces += (text, "\n")
        pieces.pop()
        return pieces
    formatter = _FORMATTERS.get(kind)
    if formatter is not None:
        return [formatter(item)]
    # Goose's Rust enum is closed, so it never meets a type it does not know; we keep such
    # items on load (SPEC §1) and name them here so the summarizer knows something was there
    # without us guessing at its fields.
    return [f"[{kind or 'unknown content'}]"]


def format_content_item(item: ContentItem) -> str | None:
    """The text of one content item, or None when the summarizer never sees it (thinking)."""
    pieces = _item_pieces(item)
    return None if pieces is None else "".join(pieces)


_TAG_CHARACTERS = re.compile("[\U000e0000-\U000e007f]")


def normalize_text(text: str) -> str:
    """What the reference does to message text before it reaches the prompt (found over
    loopback, tests/differential/test_findings.py): NFC normalization, and Unicode tag
    characters removed (they can hide instructions from a human reader). Both checks are
    skipped cheaply for the usual text that needs neither."""
    if text.isascii():  # C speed; most tool output ends here
        return text
    if _TAG_CHARACTERS.search(text):
        text = _TAG_CHARACTERS.sub("", text)
    if not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    return text


def _message_pieces(message: Message, out: list[str]) -> None:
    """Append the message's formatted pieces to ``out``.

    Normalizing piece by piece gives the same text as normalizing the joined message, which
    is what the reference does: every boundary is an ASCII starter (``"\\n"``, ``": "``)
    that composes with nothing and is never reordered, so no NFC step crosses it, and
    removing tag characters cannot join two pieces."""
    start = len(out)
    out.append(normalize_text(f"[{message.role}]: "))
    for item in message.content:
        pieces = _item_pieces(item)
        if pieces is not None:
            out += map(normalize_text, pieces)  # returns unchanged text as the same object
            out.append("\n")
    if len(out) == start + 1:
        out.append("<empty message>")
    else:
        out.pop()  # the newline after the last part


def format_message_for_compacting(message: Message) -> str:
    pieces: list[str] = []
    _message_pieces(message, pieces)
    return "".join(pieces)


def format_messages(messages: Iterable[Message]) -> str:
    """The text that fills ``{{ messages }}``: formatted messages joined by ``\\n``.

    One join over pieces that are mostly the session's own strings: the peak is the session
    plus the result (measured in benchmarks/bench.py, figure b)."""
    pieces: list[str] = []
    for message in messages:
        _message_pieces(message, pieces)
        pieces.append("\n")
    if pieces:
        pieces.pop()
    return "".join(pieces)
