"""The sessions opened lately, so the app's picker can offer them first.

Kept in ``$XDG_STATE_HOME/goose-tui/recent.json`` (``~/.local/state/goose-tui/``), written
atomically; an unreadable file is treated as empty (it is a convenience, never a reason to
fail).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from goose_tui.dirs import own_dir
from goose_tui.files import atomic_write_text, read_regular
from goose_tui.session.models import SessionInfo

RECENT_LIMIT = 10
# Ten entries are a few kilobytes; a larger file is not ours and is treated as empty.
RECENT_BYTES = 1 << 20


def recent_file() -> Path:
    return own_dir("state") / "recent.json"


def load_recent() -> list[SessionInfo]:
    """The recent sessions, newest first, that still exist."""
    try:
        raw = json.loads(read_regular(recent_file(), RECENT_BYTES).decode("utf-8"))
    except (OSError, ValueError):
        return []
    infos: list[SessionInfo] = []
    for entry in raw if isinstance(raw, list) else []:
        try:
            info = SessionInfo.model_validate(entry)
        except ValueError:
            continue
        if info.path.exists():
            infos.append(info)
    return infos


def remember(
    path: Path, session_id: str | None, title: str, message_count: int, model: str | None
) -> None:
    """Put a session at the top of the recent list (once)."""
    path = path.expanduser().resolve()
    key = session_id or path.stem
    kept = [i for i in load_recent() if (i.path, i.id) != (path, key)]
    info = SessionInfo(
        id=key,
        name=title,
        updated_at=datetime.now(UTC),
        message_count=message_count,
        model_name=model,
        path=path,
    )
    entries = [i.model_dump(mode="json") for i in [info, *kept][:RECENT_LIMIT]]
    try:
        atomic_write_text(recent_file(), json.dumps(entries, ensure_ascii=False, indent=2) + "\n")
    except OSError:
        pass  # a read-only home: the app works without a recent list
