"""Goose versions (issue 10, section 4): how each writes the conversation for the summarizer.

- ``goose-sdk-wheel``: each message is ``[role]: `` then its parts joined by newlines
  (``<empty message>`` when it has none), messages joined by newlines; what the goose-sdk
  wheel (0.1.0a13) runs, differential-tested in tests/differential. The default: it is the
  form of the installed reference and of released Goose.
- ``goose-main``: Goose's ``crates/goose-context-management/src/format.rs`` on its main
  branch writes each message as one JSON record, ``{"role":"user","content":[...parts]}``
  (``serde_json::json!(..).to_string()``; the crate enables serde_json's
  ``preserve_order``, so ``role`` comes first), records joined by newlines. Text inside a
  message cannot forge another role's line: its newlines are ``\\n`` inside a JSON string.
  Tested against the cases of that file's own tests (tests/test_profiles.py).

The parts themselves (``tool_request(name): {...}``, ``tool_response: ...``, images,
documents, ...) and the text normalization are the same in both.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, get_args

from goose_tui.compaction.format import (
    _item_pieces,
    format_message_pieces,
    normalize_text,
)
from goose_tui.session.models import Message
from goose_tui.session.serde import compact_json

GooseProfile = Literal["goose-sdk-wheel", "goose-main"]
PROFILES: tuple[GooseProfile, ...] = get_args(GooseProfile)
DEFAULT_PROFILE: GooseProfile = "goose-sdk-wheel"

DESCRIPTIONS: dict[GooseProfile, str] = {
    "goose-sdk-wheel": "[role]: lines, as the goose-sdk wheel and released Goose write them",
    "goose-main": "one JSON record per message, as Goose's main branch writes them",
}


def message_parts(message: Message) -> list[str]:
    """The message's parts as the summarizer reads them, thinking left out."""
    parts = []
    for item in message.content:
        pieces = _item_pieces(item)
        if pieces is not None:
            parts.append(normalize_text("".join(pieces)))
    return parts


def format_message_record(message: Message) -> str:
    """goose-main's ``format_message_for_compacting``: one line of JSON."""
    return compact_json({"role": message.role, "content": message_parts(message)})


def pieces_for_profile(messages: Iterable[Message], profile: GooseProfile) -> list[str]:
    """The pieces whose join fills ``{{ messages }}`` in the given Goose version."""
    if profile == "goose-main":
        pieces = [part for message in messages for part in (format_message_record(message), "\n")]
        return pieces[:-1]
    return format_message_pieces(messages)


def format_for_profile(messages: Iterable[Message], profile: GooseProfile) -> str:
    """The text that fills ``{{ messages }}`` in the given Goose version."""
    return "".join(pieces_for_profile(messages, profile))


def next_profile(profile: GooseProfile) -> GooseProfile:
    return PROFILES[(PROFILES.index(profile) + 1) % len(PROFILES)]
