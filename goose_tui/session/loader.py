"""Entry points for loading: detect the format from the content, dispatch to one module per
format (jsonl, sqlite, export, chat). Nothing here writes to an input."""

from __future__ import annotations

import json
import stat
from datetime import UTC, datetime
from pathlib import Path

from goose_tui.dirs import goose_dir
from goose_tui.session import chat, export, jsonl, sqlite
from goose_tui.session.errors import SessionLoadError
from goose_tui.session.models import Session, SessionFormat, SessionInfo

__all__ = [
    "SessionLoadError",
    "default_sessions_dir",
    "detect_format",
    "list_sessions",
    "load_session",
]

_FIRST_LINE_LIMIT = 1 << 20
_SESSION_SUFFIXES = (".jsonl", ".json")
_SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3")


def default_sessions_dir() -> Path:
    """Goose's sessions folder: ``$GOOSE_PATH_ROOT/data/sessions`` when set, else
    ``~/.local/share/goose/sessions`` (``$XDG_DATA_HOME/goose/sessions``)."""
    return goose_dir("data") / "sessions"


def _check_file(path: Path) -> None:
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise SessionLoadError(path, "no such file") from None
    except OSError as exc:
        raise SessionLoadError(path, f"cannot read the file: {exc.strerror or exc}") from exc
    if stat.S_ISDIR(mode):
        raise SessionLoadError(path, "is a folder, not a session file (list it instead)")
    if not stat.S_ISREG(mode):
        # A device (/dev/zero) or a FIFO would be read forever, or block: refused at once.
        kind = "a FIFO (named pipe)" if stat.S_ISFIFO(mode) else "a device or socket"
        raise SessionLoadError(path, f"is {kind}, not a regular file")


def detect_format(path: Path) -> SessionFormat:
    """From the content (SQLite magic, first JSON value's shape), not only the extension."""
    _check_file(path)
    try:
        with path.open("rb") as handle:
            head = handle.read(16)
            handle.seek(0)
            first_line = handle.readline(_FIRST_LINE_LIMIT)
    except OSError as exc:
        raise SessionLoadError(path, f"cannot read the file: {exc.strerror or exc}") from exc
    if head == sqlite.SQLITE_MAGIC:
        return "sqlite"
    if not head:
        raise SessionLoadError(path, "the file is empty (0 bytes)")
    leading = head.removeprefix(jsonl.BOM).lstrip()[:1]
    if path.suffix.lower() in _SQLITE_SUFFIXES and leading not in (b"{", b"["):
        raise SessionLoadError(path, "not a SQLite database (bad file header)")
    stripped = first_line.removeprefix(jsonl.BOM).strip()
    if stripped.startswith(b"["):
        return "chat"
    if stripped.startswith(b"{"):
        value, problem = jsonl.decode_line(stripped, 1)
        if problem is None:
            # A complete object on line 1: a JSONL line, unless it is a one-line export.
            return "export" if isinstance(value, dict) and "conversation" in value else "jsonl"
        # Line 1 is not a whole JSON value: a pretty-printed export, or a JSONL file whose
        # first line is broken. A whole-file object tells them apart; when the file does
        # not parse at all, its extension decides whose error message the user sees.
        whole = _whole_file_kind(path)
        if whole == "message":
            return "jsonl"  # one message line longer than the first-line limit
        if whole == "object" or (whole is None and path.suffix.lower() == ".json"):
            return "export"
    return "jsonl"


def _whole_file_kind(path: Path) -> str | None:
    """ "message" (an object with a role: a JSONL file of one long line), "object" or
    "other" for a file that is one JSON value, None when it is not."""
    try:
        data = json.loads(path.read_bytes().decode("utf-8-sig"))
    except (OSError, RecursionError, UnicodeDecodeError, ValueError):
        return None
    if isinstance(data, dict):
        return "message" if "role" in data and "conversation" not in data else "object"
    return "other"


def load_session(
    path: Path, session_id: str | None = None, *, all_sessions: bool = False
) -> Session:
    """Load any supported file. A ``sessions.db`` takes ``session_id`` (default: the most
    recently updated of the sessions `goose session list` shows, or of all of them with
    ``all_sessions``); a single-session file accepts its own id or file stem. Bad lines
    become ``Session.warnings`` and are skipped. Never writes."""
    path = Path(path).expanduser()
    if path.is_dir():
        return _load_from_folder(path, session_id)
    kind = detect_format(path)
    if kind == "sqlite":
        return sqlite.load_sqlite(path, session_id, all_sessions=all_sessions)
    if kind == "jsonl":
        session = jsonl.load_jsonl(path)
    else:
        data, notes = export.read_json_file(path)
        if kind == "chat":
            if not isinstance(data, list):
                raise SessionLoadError(path, "not a chat-message array")
            session = chat.load_chat(path, data)
            session.warnings[:0] = notes
        else:
            session = export.load_export(path, data, notes)
    if session_id is not None and session_id not in (session.id, path.stem):
        raise SessionLoadError(
            path, f"session {session_id!r} not found (this file holds {session.id!r})"
        )
    return session


def _load_from_folder(folder: Path, session_id: str | None) -> Session:
    """The session ``session_id`` of a folder (what ``list_sessions`` lists there, every
    session of its databases included): the file named after it, else the one listed so."""
    listing = f"(`goose-tui sessions {folder}` lists them)"
    if session_id is None:
        raise SessionLoadError(
            folder, f"is a folder of sessions: name one with --session ID {listing}"
        )
    for suffix in _SESSION_SUFFIXES:  # found without reading the others
        candidate = folder / f"{session_id}{suffix}"
        if candidate.is_file():
            return load_session(candidate, session_id)
    for info in _list_folder(folder, all_sessions=True, unreadable=[]):
        if info.id == session_id:
            return load_session(info.path, session_id, all_sessions=True)
    raise SessionLoadError(folder, f"no session {session_id!r} in this folder {listing}")


def list_sessions(
    path: Path | None = None,
    *,
    all_sessions: bool = False,
    unreadable: list[str] | None = None,
) -> list[SessionInfo]:
    """The sessions in a ``sessions.db``, a folder of session files, or Goose's own data dir
    (``path`` None), most recently updated first. Files in a folder that are not sessions are
    left out; a session file or database in it that cannot be read is too, and ``unreadable``
    (when given) gets one "path: why" line for each. From a database, by default only what
    `goose session list` shows (user and scheduled sessions with messages); ``all_sessions``
    lists every one."""
    target = Path(path).expanduser() if path is not None else default_sessions_dir()
    if not target.exists():
        raise SessionLoadError(target, "no such file or folder")
    if target.is_dir():
        infos = _list_folder(target, all_sessions, [] if unreadable is None else unreadable)
    elif detect_format(target) == "sqlite":
        infos = sqlite.list_sqlite(target, all_sessions=all_sessions)
    else:
        infos = [_file_info(target)]
    return sorted(infos, key=_recent_first)


def _recent_first(info: SessionInfo) -> tuple[float, str]:
    stamp = info.updated_at.timestamp() if info.updated_at else float("-inf")
    return (-stamp, info.id)


def _list_folder(folder: Path, all_sessions: bool, unreadable: list[str]) -> list[SessionInfo]:
    infos: list[SessionInfo] = []
    for entry in sorted(folder.iterdir()):
        if not entry.is_file():
            continue
        suffix = entry.suffix.lower()
        try:
            if suffix in _SQLITE_SUFFIXES:
                infos.extend(sqlite.list_sqlite(entry, all_sessions=all_sessions))
            elif suffix in _SESSION_SUFFIXES:
                infos.append(_file_info(entry))
        except SessionLoadError as exc:
            # A folder listing shows what can be opened; a broken file is said, not listed.
            unreadable.append(str(exc))
    return infos


def _file_info(path: Path) -> SessionInfo:
    session = load_session(path)
    updated = session.updated_at or datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)
    return SessionInfo(
        id=session.id or path.stem,
        name=session.name,
        description=session.description,
        updated_at=updated,
        message_count=len(session.messages),
        total_tokens=session.usage.total_tokens,
        model_name=session.model_name,
        path=path,
    )
