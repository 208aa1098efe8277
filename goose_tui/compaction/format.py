"""docs/pipeline.md §2: each message becomes ``[{role}]: `` + its parts, the text the
summarizer reads.

Content items are plain dicts (see ``session/models.py``), read by key and leniently: a file
written by an older or newer Goose must format, never raise.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

import unicodedata2

from goose_tui.session.content import ok_value, tool_response_texts
from goose_tui.session.models import ContentItem, Message, content_type
from goose_tui.session.serde import compact_json

INVALID_JSON = "<<invalid json>>"

# Items the summarizer never sees. Thinking is the model's private scratch work; the two old
# control markers only record that Goose hit the limit or was asked to summarize, which says
# nothing about the work itself (Goose's own formatter has no arm for them either).
DROPPED_TYPES = frozenset(
    {"thinking", "redactedThinking", "reasoning", "contextLengthExceeded", "summarizationRequested"}
)


def field_text(value: Any) -> str:
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


def _tool_request(item: ContentItem) -> str:
    ok, call = ok_value(item.get("toolCall"))
    if not ok or not isinstance(call, dict):
        return "tool_request: [error]"
    try:
        arguments = compact_json(call.get("arguments"))
    except (TypeError, ValueError):
        arguments = INVALID_JSON
    return f"tool_request({field_text(call.get('name'))}): {arguments}"


def _document(item: ContentItem) -> str:
    mime = field_text(_first(item, "mimeType", "mime_type"))
    name = item.get("name")
    return f"[document: {field_text(name)} ({mime})]" if name is not None else f"[document: {mime}]"


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
    kind = field_text(_first(data, "actionType", "action_type"))
    label, keys = _ACTIONS.get(kind, (kind or "unknown", ("id",)))
    return f"action_required({label}): {field_text(_first(data, *keys))}"


def _frontend_tool_request(item: ContentItem) -> str:
    ok, call = ok_value(item.get("toolCall"))
    if not ok or not isinstance(call, dict):
        return "frontend_tool_request: [error]"
    return f"frontend_tool_request: {field_text(call.get('name'))}"


_FORMATTERS: dict[str, Callable[[ContentItem], str]] = {
    "text": lambda item: field_text(item.get("text")),
    "image": lambda item: f"[image: {field_text(_first(item, 'mimeType', 'mime_type'))}]",
    "document": _document,
    "toolRequest": _tool_request,
    "toolConfirmationRequest": lambda item: (
        f"tool_confirmation_request: {field_text(_first(item, 'toolName', 'tool_name'))}"
    ),
    "actionRequired": _action_required,
    "frontendToolRequest": _frontend_tool_request,
    "systemNotification": lambda item: f"system_notification: {field_text(item.get('msg'))}",
    "error": lambda item: f"error: {field_text(_first(item, 'message', 'msg', 'error'))}",
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
    # items on load (docs/pipeline.md §1) and name them here so the summarizer knows something
    # was there without us guessing at its fields.
    return [f"[{kind or 'unknown content'}]"]


def format_content_item(item: ContentItem) -> str | None:
    """The text of one content item, or None when the summarizer never sees it (thinking)."""
    pieces = _item_pieces(item)
    return None if pieces is None else "".join(pieces)


_TAG_CHARACTERS = re.compile("[\U000e0000-\U000e007f]")

# Goose's normalization uses Unicode 17.0's tables (tests/differential/test_unicode_tables.py),
# newer than the running Python's (3.11 has 14.0), so the tables come from unicodedata2: a
# character composed or reordered only in newer Unicode reaches the prompt as Goose sends it.
UNICODE_VERSION: str = unicodedata2.unidata_version
_nfc: Callable[[str, str], str] = unicodedata2.normalize


def _has_astral(text: str) -> bool:
    """Whether ``text`` holds a character past U+FFFF (which every tag character is): its
    UTF-16 form is then longer than two bytes a character. One C pass, several times quicker
    than searching for the tag characters themselves (lone surrogates pass as two bytes)."""
    return len(text.encode("utf-16-le", "surrogatepass")) != 2 * len(text)


def normalize_text(text: str) -> str:
    """What the reference does to message text before it reaches the prompt (found over
    loopback, tests/differential/test_findings.py): NFC normalization, and Unicode tag
    characters removed (they can hide instructions from a human reader), in that order: what
    a tag character kept apart is not composed afterwards, so the result need not be NFC
    (``"e\\U000e0041\\u0301"`` is sent as ``"e\\u0301"``). Both steps are skipped cheaply
    for the usual text that needs neither."""
    if text.isascii():  # C speed; most tool output ends here
        return text
    text = _nfc("NFC", text)  # returns ``text`` itself when it is already NFC
    if _has_astral(text) and _TAG_CHARACTERS.search(text):
        text = _TAG_CHARACTERS.sub("", text)
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


def format_message_pieces(messages: Iterable[Message]) -> list[str]:
    """The pieces whose join is ``format_messages``: mostly the session's own strings, so
    the prompt can be joined from them in one copy (engine.Pieces)."""
    pieces: list[str] = []
    for message in messages:
        _message_pieces(message, pieces)
        pieces.append("\n")
    if pieces:
        pieces.pop()
    return pieces


def format_messages(messages: Iterable[Message]) -> str:
    """The text that fills ``{{ messages }}``: formatted messages joined by ``\\n``.

    One join over pieces that are mostly the session's own strings, so the peak memory is
    the session plus the result (benchmarks/bench.py measures it)."""
    return "".join(format_message_pieces(messages))
