"""Goose's legacy session file: ``<id>.jsonl``, one JSON value per line, the first line
optionally the session's metadata (docs/pipeline.md §1)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from goose_tui.gc_pause import paused_gc
from goose_tui.session import hostile
from goose_tui.session._common import TOKEN_FIELDS, build_message, model_config_from, usage_from
from goose_tui.session.errors import SessionLoadError
from goose_tui.session.models import LoadWarning, LoadWarnings, Message, Session

BOM = b"\xef\xbb\xbf"
# Keys Goose's SessionMetadata writes; one of them on a role-less line 1 marks metadata.
METADATA_KEYS = frozenset(
    {
        "description",
        "message_count",
        "working_dir",
        *TOKEN_FIELDS,
        "schedule_id",
        "extension_data",
        "recipe",
        "model_config",
        "provider_name",
        "name",
    }
)
_SESSION_FIELDS = frozenset(Session.model_fields) | {"model_config"}


def looks_like_metadata(obj: object) -> bool:
    return (
        isinstance(obj, dict)
        and "role" not in obj
        and "content" not in obj
        and (not obj or any(key in obj for key in METADATA_KEYS))
    )


def decode_line(raw: bytes, number: int, notes: list[str] | None = None) -> tuple[Any, str | None]:
    """One line's JSON value, or ``(None, reason)``. Values no session can use (NaN, 1e400,
    huge integers, lone surrogates) are kept as text, each change appended to ``notes``."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"invalid UTF-8 at byte {exc.start + 1} of the line, line skipped"
    try:
        value, changed = hostile.loads(text)
        if notes is not None:
            notes.extend(changed)
        return value, None
    except RecursionError:
        return None, "JSON nested too deeply to read, line skipped"
    except json.JSONDecodeError as exc:
        # json's message may end in "at" ("Invalid control character at"): said once.
        reason = exc.msg.removesuffix(" at")
        return None, f"invalid JSON ({reason} at column {exc.colno}), line skipped"


def load_jsonl(path: Path) -> Session:
    messages: list[Message] = []
    warnings = LoadWarnings()
    metadata: dict[str, Any] | None = None
    last_number = 0
    last_failed = False
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise SessionLoadError(path, f"cannot read the file: {exc.strerror or exc}") from exc
    with handle, paused_gc():
        for number, raw in enumerate(handle, start=1):
            if number == 1 and raw.startswith(BOM):
                raw = raw[len(BOM) :]
            if not raw.strip():
                continue
            last_number = number
            notes: list[str] = []
            value, problem = decode_line(raw, number, notes)
            for change in notes:
                warnings.add(change, number)
            # A line cut off by a writer that has not finished is broken JSON with no
            # newline yet: the one case worth the "truncated" hint.
            last_failed = problem is not None and not raw.endswith(b"\n")
            if problem is not None:
                warnings.add(problem, number)
                continue
            if number == 1 and looks_like_metadata(value):
                metadata = value
                continue
            message, note = build_message(value)
            if message is None:
                warnings.add(f"{note}, line skipped", number)
                continue
            if note:
                warnings.add(note, number)
            messages.append(message)
    if last_number == 0:
        raise SessionLoadError(path, "the file is empty (no lines to read)")
    last = warnings.last()
    if last_failed and last is not None and last.line == last_number:
        warnings.replace_last(
            LoadWarning(
                message=last.message + " (last line: the file may be truncated or still "
                "being written)",
                line=last_number,
            )
        )
    if metadata is None and not messages:
        first = warnings.first[0] if warnings.first else None
        raise SessionLoadError(
            path, f"not a Goose session: no line could be read (first problem: {first})"
        )
    return _session(path, metadata or {}, messages, warnings.as_list())


def _session(
    path: Path, metadata: dict[str, Any], messages: list[Message], warnings: list[LoadWarning]
) -> Session:
    extras = {
        k: v
        for k, v in metadata.items()
        if k not in _SESSION_FIELDS and k not in METADATA_KEYS and isinstance(k, str)
    }
    for key in ("message_count", "schedule_id", "extension_data", "recipe"):
        if key in metadata:
            extras[key] = metadata[key]
    # Goose's importer (crates/goose/src/session/legacy.rs, load_session) names the session
    # after the file and reads line 1 into its Session, whose `name` field takes
    # `description` as an alias: a legacy file's description is the session's name.
    return Session(
        id=path.stem,
        name=_str_or_none(metadata.get("name")) or _str_or_none(metadata.get("description")),
        description=_str_or_none(metadata.get("description")),
        working_dir=_str_or_none(metadata.get("working_dir")),
        provider_name=_str_or_none(metadata.get("provider_name")),
        model_config=model_config_from(metadata.get("model_config")),
        usage=usage_from(metadata),
        accumulated_usage=usage_from(metadata, prefix="accumulated_"),
        messages=messages,
        source_path=path,
        source_format="jsonl",
        warnings=warnings,
        **extras,
    )


def _str_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None
