"""Shared by the format modules: turning one JSON object into a Message leniently, and
reading the loose timestamp and usage shapes Goose has written over time."""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from goose_tui.session.models import LoadWarnings, Message, ModelConfig, Usage
from goose_tui.session.serde import json_kind

# Goose's flat token counts of a session (the sessions table, the JSONL metadata line, older
# exports): the last call's, then the session's accumulated ones.
ACCUMULATED_TOKEN_FIELDS = (
    "accumulated_total_tokens",
    "accumulated_input_tokens",
    "accumulated_output_tokens",
)
TOKEN_FIELDS = ("total_tokens", "input_tokens", "output_tokens", *ACCUMULATED_TOKEN_FIELDS)

_FRACTION = re.compile(r"(\.\d{6})\d+")


def keep_message(
    messages: list[Message],
    warnings: LoadWarnings,
    where: str,
    message: Message | None,
    problem: str | None,
) -> None:
    """A message ``build_message`` made joins ``messages``, with a warning for what was
    repaired; one it could not make is skipped, with a warning saying so."""
    if message is None:
        warnings.add(f"{where}: {problem}, message skipped")
        return
    if problem:
        warnings.add(f"{where}: {problem}")
    messages.append(message)


def build_message(obj: object) -> tuple[Message | None, str | None]:
    """A Message from one decoded JSON value, or ``(None, reason)`` when it cannot be one.

    The fast path is plain ``model_validate`` (as fast as ``json.loads`` itself, measured);
    only when that fails do we repair the shapes older or foreign writers produce, and
    the second element then says what was repaired."""
    if not isinstance(obj, dict):
        return None, f"not a JSON object (got {json_kind(obj)})"
    role = obj.get("role")
    if role is None:
        return None, "message has no 'role'"
    if not isinstance(role, str):
        return None, "message 'role' is not a string"
    if not role:
        return None, "message 'role' is empty"
    if role not in ("user", "assistant"):
        # rmcp's Role, as serde reads it: Goose reads no other message (a system prompt is
        # not part of its conversation; "User" is not "user").
        return None, f"role {role!r} is not user or assistant"
    try:
        return _without_compaction_markers(Message.model_validate(obj)), None
    except ValidationError:
        pass
    repaired, notes = _repair(obj)
    try:
        message = Message.model_validate(repaired)
    except ValidationError as exc:  # pragma: no cover - _repair leaves only valid shapes
        return None, f"invalid message: {exc.errors()[0].get('msg', 'invalid')}"
    return _without_compaction_markers(message), "; ".join(notes) or None


def _without_compaction_markers(message: Message) -> Message:
    """Goose drops the ``conversationCompacted`` items older versions wrote whenever it
    reads a message (``deserialize_sanitized_content`` in
    crates/goose/src/conversation/message.rs); so do we, so the app, the token counts and
    the summarizer input all see what Goose sees."""
    content = message.content
    for item in content:
        if item.get("type") == "conversationCompacted":
            message.content = [i for i in content if i.get("type") != "conversationCompacted"]
            break
    return message


def _repair(obj: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    fixed = dict(obj)
    notes: list[str] = []
    content = obj.get("content")
    if content is None:
        fixed["content"] = []
    elif isinstance(content, str):
        fixed["content"] = [{"type": "text", "text": content}]
        notes.append("string content read as one text item")
    elif isinstance(content, dict):
        fixed["content"] = [content]
        notes.append("single content object read as a one-item list")
    elif isinstance(content, list):
        items = [item for item in content if isinstance(item, dict)]
        if len(items) != len(content):
            notes.append(
                f"dropped {len(content) - len(items)} content item(s) that are not objects"
            )
        fixed["content"] = items
    else:
        fixed["content"] = []
        notes.append(f"'content' is {json_kind(content)}, read as empty")
    created = obj.get("created")
    if created is not None and to_epoch_seconds(created) is None:
        notes.append("unreadable 'created' dropped")
    fixed["created"] = to_epoch_seconds(created)
    if "id" in obj and not (obj["id"] is None or isinstance(obj["id"], str)):
        fixed["id"] = str(obj["id"])
    metadata = obj.get("metadata")
    if "metadata" in obj and metadata is None:
        fixed.pop("metadata")
        notes.append("'metadata' is null, read as visible to both the user and the agent")
    elif metadata is not None and not isinstance(metadata, dict):
        fixed.pop("metadata")
        notes.append("non-object 'metadata' dropped")
    elif isinstance(metadata, dict):
        fixed["metadata"] = {
            k: v
            for k, v in metadata.items()
            if k not in ("userVisible", "agentVisible", "turnContext") or isinstance(v, bool)
        }
    if "tokens" in obj and not isinstance(obj["tokens"], int):
        fixed["tokens"] = None
    return fixed, notes


# Past this, a number is no time any writer meant (year ~5000 in milliseconds).
_MAX_EPOCH = 10**14


def _plausible(value: int | float) -> bool:
    return math.isfinite(value) and abs(value) <= _MAX_EPOCH


def to_epoch_seconds(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        if not _plausible(value):
            return None
        # Milliseconds show up in foreign exports; Goose itself writes seconds.
        return int(value / 1000) if value > 10**11 else int(value)
    if isinstance(value, str):
        text = value.strip()
        if text.lstrip("-").isdigit():
            return to_epoch_seconds(int(text)) if len(text) <= 16 else None
        parsed = parse_datetime(text)
        return int(parsed.timestamp()) if parsed else None
    return None


def parse_datetime(value: object) -> datetime | None:
    """ISO 8601 / SQLite ``datetime('now')`` text or epoch seconds, always timezone-aware UTC
    (SQLite's text has no zone and is UTC), ``None`` when unreadable."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        if not _plausible(value):
            return None
        seconds = value / 1000 if value > 10**11 else value
        try:
            return datetime.fromtimestamp(seconds, tz=UTC)
        except (OverflowError, OSError, ValueError):
            return None
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    if text.lstrip("-").isdigit():
        return parse_datetime(int(text)) if len(text) <= 16 else None
    # chrono writes nanoseconds; Python reads at most microseconds.
    text = _FRACTION.sub(r"\1", text)
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


def usage_from(data: object, prefix: str = "", keep_extras: bool = False) -> Usage:
    """``{input_tokens, output_tokens, total_tokens}`` from a usage object or from flat
    ``{prefix}total_tokens``-style keys (older exports, the JSONL metadata line)."""
    if not isinstance(data, dict):
        return Usage()
    values: dict[str, Any] = {}
    for key in ("input_tokens", "output_tokens", "total_tokens"):
        raw = data.get(prefix + key)
        values[key] = raw if isinstance(raw, int) and not isinstance(raw, bool) else None
    if keep_extras:
        # Keep cache_* and other counts the export carries.
        values.update({k: v for k, v in data.items() if k not in values})
    return Usage.model_validate(values)


def model_config_from(data: object) -> ModelConfig:
    if not isinstance(data, dict):
        return ModelConfig()
    values = dict(data)
    for key in ("model_name", "context_limit"):
        expected = str if key == "model_name" else int
        if not isinstance(values.get(key), expected) or isinstance(values.get(key), bool):
            values[key] = None
    return ModelConfig.model_validate(values)
