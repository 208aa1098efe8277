"""``goose session export --format json``: one object, the session's fields plus its
``conversation`` array (docs/pipeline.md §1)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from goose_tui.session import hostile
from goose_tui.session._common import (
    TOKEN_FIELDS,
    build_message,
    keep_message,
    model_config_from,
    parse_datetime,
    usage_from,
)
from goose_tui.session.errors import SessionLoadError
from goose_tui.session.models import LoadWarning, LoadWarnings, Message, Session

_KNOWN = frozenset(Session.model_fields) | {"model_config", "conversation", *TOKEN_FIELDS}


def read_json_file(path: Path) -> tuple[Any, list[LoadWarning]]:
    """The file's one JSON value, and a warning for each value no session can use (kept as
    text, see ``hostile``); every failure is a one-line SessionLoadError."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SessionLoadError(path, f"cannot read the file: {exc.strerror or exc}") from exc
    if not raw.strip():
        raise SessionLoadError(path, "the file is empty")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise SessionLoadError(path, f"line {line}: invalid UTF-8") from exc
    try:
        value, changed = hostile.loads(text)
    except RecursionError as exc:
        raise SessionLoadError(path, "JSON nested too deeply to read") from exc
    except json.JSONDecodeError as exc:
        raise SessionLoadError(path, f"invalid JSON: {hostile.json_error(exc)}") from exc
    return value, [LoadWarning(message=note) for note in changed]


def read_messages(items: list[Any], label: str) -> tuple[list[Message], list[LoadWarning]]:
    """Messages from a JSON array; a bad element becomes a warning naming its index."""
    messages: list[Message] = []
    warnings = LoadWarnings()
    for index, item in enumerate(items):
        keep_message(messages, warnings, f"{label}[{index}]", *build_message(item))
    return messages, warnings.as_list()


def load_export(
    path: Path, data: Any | None = None, notes: list[LoadWarning] | None = None
) -> Session:
    """``notes``: what reading the file already reported (``read_json_file``)."""
    if data is None:
        data, notes = read_json_file(path)
    if not isinstance(data, dict):
        raise SessionLoadError(path, "not a Goose export: the JSON is not an object")
    conversation = data.get("conversation")
    # Some Goose versions wrap the array as {"messages": [...]}.
    if isinstance(conversation, dict) and isinstance(conversation.get("messages"), list):
        conversation = conversation["messages"]
    if conversation is None:
        conversation = []
    if not isinstance(conversation, list):
        raise SessionLoadError(path, "not a Goose export: 'conversation' is not an array")
    if "conversation" not in data and not any(k in data for k in ("id", "working_dir")):
        raise SessionLoadError(path, "not a Goose export: no 'conversation' array")
    messages, warnings = read_messages(conversation, "conversation")
    warnings = [*(notes or []), *warnings]
    usage = data.get("usage")
    accumulated = data.get("accumulated_usage")
    extras = {k: v for k, v in data.items() if k not in _KNOWN and isinstance(k, str)}
    return Session(
        id=_text(data.get("id")),
        name=_text(data.get("name")),
        description=_text(data.get("description")),
        working_dir=_text(data.get("working_dir")),
        created_at=parse_datetime(data.get("created_at")),
        updated_at=parse_datetime(data.get("updated_at")),
        provider_name=_text(data.get("provider_name")),
        model_config=model_config_from(data.get("model_config")),
        # Newer exports nest usage; older ones write Goose's flat Session fields.
        usage=usage_from(usage, keep_extras=True) if isinstance(usage, dict) else usage_from(data),
        accumulated_usage=(
            usage_from(accumulated, keep_extras=True)
            if isinstance(accumulated, dict)
            else usage_from(data, prefix="accumulated_")
        ),
        messages=messages,
        source_path=path,
        source_format="export",
        warnings=warnings,
        **extras,
    )


def _text(value: object) -> str | None:
    if isinstance(value, str):
        return value
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else None
