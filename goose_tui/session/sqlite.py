"""Goose's ``sessions.db``: read-only, tolerant of schema versions, safe beside a running
Goose (docs/pipeline.md §1).

Opening rules, and why:
- ``mode=ro`` always, so nothing we do can change the database.
- A WAL-mode database with no ``-wal`` file next to it has no writer right now; a read-only
  connection would still create ``-wal``/``-shm`` files and leave them behind (it may not
  delete them). We open those with ``immutable=1``, which reads the main file only.
- With a ``-wal`` file present a writer may be active: open normally (``mode=ro``) so its
  committed transactions are seen through the shared WAL index.
- A ``-wal`` file with content but no ``-shm`` (copied without it, or left by a crash): no
  connection has the database open (each one keeps the ``-shm`` while it does), and reading
  it here would create a ``-shm`` (impossible in a read-only folder). Its committed
  transactions live in the ``-wal`` only, so ``immutable=1`` would lose them: the two files
  are copied to a private temporary folder and read there.
- A hot journal (``-journal`` left by a writer that stopped mid-transaction) must be rolled
  back before anything can be read, which a read-only connection may not do: the database
  and its journal are copied and rolled back there, and a warning says so.
- A writer holding an exclusive lock: wait ``BUSY_TIMEOUT`` seconds, then a clear error.
- A hostile file must not hang or fill memory: ``sessions``/``messages`` must be real tables
  (not views, virtual tables or generated columns, which run SQL of the file's choosing:
  recursive CTEs, ``zeroblob(10**9)``); a progress handler stops any query after
  ``QUERY_SECONDS`` and lets Ctrl-C through; no value may exceed ``MAX_VALUE_BYTES``.
- Text that is not UTF-8 is read with ``\\x`` escapes and reported, not a failed load.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from goose_tui.session import hostile
from goose_tui.session._common import (
    TOKEN_FIELDS,
    build_message,
    keep_message,
    model_config_from,
    parse_datetime,
    to_epoch_seconds,
    usage_from,
)
from goose_tui.session.errors import SessionLoadError
from goose_tui.session.models import LoadWarning, LoadWarnings, Message, Session, SessionInfo

SQLITE_MAGIC = b"SQLite format 3\x00"
BUSY_TIMEOUT = 2.0
QUERY_SECONDS = 20.0
MAX_VALUE_BYTES = 256 << 20
# How many SQLite virtual-machine steps between two looks at the clock.
_PROGRESS_STEPS = 10_000
_NOT_UTF8 = "text that is not UTF-8, shown with \\x escapes"
_EXTRA_COLUMNS = ("session_type", "goose_mode", "schedule_id", "user_set_name", "accumulated_cost")
# The session's state Goose keeps as JSON text, read into the field its Session has.
JSON_COLUMNS = {
    "extension_data": "extension_data",
    "recipe_json": "recipe",
    "user_recipe_values_json": "user_recipe_values",
}
# Every sessions column read (a column the file lacks is left out of the query).
_SESSION_COLUMNS = (
    *("id", "name", "description", "working_dir", "created_at", "updated_at"),
    *TOKEN_FIELDS,
    *("provider_name", "model_config_json"),
    *_EXTRA_COLUMNS,
    *JSON_COLUMNS,
)
_MESSAGE_COLUMNS = (
    "id",
    "message_id",
    "role",
    "content_json",
    "created_timestamp",
    "metadata_json",
    "tokens",
)


def _is_wal(path: Path) -> bool:
    with path.open("rb") as handle:
        header = handle.read(20)
    # Bytes 18/19 are the file format read/write versions: 2 means WAL.
    return len(header) >= 20 and header[18] == 2


HOT_JOURNAL_NOTE = (
    "the database has a hot journal (-journal): a writer stopped in the middle of a "
    "transaction; read as it was before that transaction, from a temporary copy (nothing "
    "was written to the database or its journal)"
)


def _wal_without_index(path: Path) -> bool:
    """A WAL database whose ``-wal`` holds transactions but has no ``-shm`` beside it."""
    try:
        return Path(f"{path}-wal").stat().st_size > 0 and not Path(f"{path}-shm").exists()
    except OSError:
        return False


def _private_copy(stack: ExitStack, path: Path, companion: str) -> Path:
    """``path`` and its ``companion`` file copied into a temporary folder that ``stack``
    removes; SQLite may write there (recover the WAL, roll back a journal)."""
    folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="goose-tui-db-")))
    copy = folder / "sessions.db"
    try:
        shutil.copyfile(path, copy)
        shutil.copyfile(f"{path}{companion}", f"{copy}{companion}")
    except OSError as exc:
        raise SessionLoadError(
            path, f"cannot copy the database to read it: {exc.strerror or exc}"
        ) from exc
    return copy


def _open(path: Path, uri: str) -> GuardedConnection:
    try:
        return sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT, factory=GuardedConnection)
    except sqlite3.Error as exc:
        raise SessionLoadError(path, f"cannot open the database: {exc}") from exc


def _uri(path: Path, query: str) -> str:
    return f"file:{quote(str(path.resolve()))}?{query}"


def _needs_rollback(connection: sqlite3.Connection) -> bool:
    """True when the database cannot be read until a hot journal is rolled back."""
    try:
        connection.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
    except sqlite3.OperationalError as exc:
        if getattr(exc, "sqlite_errorname", "") == "SQLITE_READONLY_ROLLBACK":
            return True
        raise
    return False


@contextmanager
def connect_read_only(path: Path) -> Iterator[GuardedConnection]:
    """A connection that reads ``path`` and never writes it or leaves a file beside it; its
    ``guard.note`` says when what is read differs from the file as it lies (a hot journal)."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise SessionLoadError(path, f"cannot read the file: {exc.strerror or exc}") from exc
    if size == 0:
        raise SessionLoadError(path, "the database file is empty (0 bytes)")
    try:
        with path.open("rb") as handle:
            if handle.read(16) != SQLITE_MAGIC:
                raise SessionLoadError(path, "not a SQLite database (bad file header)")
        wal = _is_wal(path)
    except OSError as exc:
        raise SessionLoadError(path, f"cannot read the file: {exc.strerror or exc}") from exc
    with ExitStack() as stack:
        if wal and _wal_without_index(path):
            connection = _open(path, _uri(_private_copy(stack, path, "-wal"), "mode=rw"))
        else:
            immutable = wal and not Path(f"{path}-wal").exists()
            query = "mode=ro" + ("&immutable=1" if immutable else "")
            connection = _open(path, _uri(path, query))
        with _reported(path, connection):
            rollback = _needs_rollback(connection)
        if rollback:
            connection.close()
            copy = _private_copy(stack, path, "-journal")
            connection = _open(path, _uri(copy, "mode=rw"))
            connection.guard.note = HOT_JOURNAL_NOTE
        try:
            with _reported(path, connection):
                yield connection
        finally:
            connection.close()


@contextmanager
def _reported(path: Path, connection: GuardedConnection) -> Iterator[None]:
    """SQLite's errors while reading as SessionLoadError (or KeyboardInterrupt); the
    connection is closed on any error."""
    guard = connection.guard
    try:
        yield
    except sqlite3.OperationalError as exc:
        connection.close()
        # The progress handler stopped the query: over time, or Ctrl-C arrived (the
        # KeyboardInterrupt may be raised before the handler's own code runs, and sqlite3
        # swallows it; "interrupted" with the clock not expired can only be that).
        if guard.interrupted or (str(exc) == "interrupted" and not guard.expired):
            raise KeyboardInterrupt from None
        if guard.expired:
            raise SessionLoadError(
                path, f"reading the database took longer than {QUERY_SECONDS:g} s, stopped"
            ) from exc
        if "locked" in str(exc) or "busy" in str(exc):
            raise SessionLoadError(
                path,
                f"database is locked by another process (waited {BUSY_TIMEOUT:g} s); "
                "try again when Goose is idle",
            ) from exc
        raise SessionLoadError(path, f"cannot read the database: {exc}") from exc
    except sqlite3.DatabaseError as exc:
        connection.close()
        raise SessionLoadError(path, f"corrupt or unreadable database: {exc}") from exc
    except BaseException:
        connection.close()
        raise


class _Guard:
    """Bounds a connection in time (the progress handler), lets Ctrl-C stop a query, limits
    the size of any value, and reads text that is not UTF-8 with escapes (``bad_text``
    counts those, so the caller can say where)."""

    def __init__(self, connection: sqlite3.Connection):
        self.deadline = time.monotonic() + QUERY_SECONDS
        self.expired = False
        self.interrupted = False
        self.bad_text = 0
        self.note: str | None = None
        connection.set_progress_handler(self._progress, _PROGRESS_STEPS)
        connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
        connection.text_factory = self._text

    def _progress(self) -> int:
        try:
            if time.monotonic() > self.deadline:
                self.expired = True
            return int(self.expired)
        except KeyboardInterrupt:
            # Raised here by the SIGINT handler while SQLite runs: stop the query, and
            # raise it again once sqlite3 has returned.
            self.interrupted = True
            return 1

    def _text(self, data: bytes) -> str:
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            self.bad_text += 1
            return data.decode("utf-8", "backslashreplace")


class GuardedConnection(sqlite3.Connection):
    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.guard = _Guard(self)


def _columns(connection: sqlite3.Connection, table: str) -> set[str]:
    """The stored columns of a table; empty when there is no such table. ``table_info``
    leaves generated columns out, so their SQL (of the file's choosing) is never run."""
    return {row[1] for row in connection.execute(f"PRAGMA table_info({table})")}


def _refuse_non_tables(path: Path, connection: sqlite3.Connection) -> None:
    for name in ("sessions", "messages"):
        row = connection.execute(
            "SELECT type, sql FROM sqlite_master WHERE name = ? COLLATE NOCASE", (name,)
        ).fetchone()
        if row is None:
            continue
        kind, sql = row
        if kind != "table" or (sql or "").lstrip().upper().startswith("CREATE VIRTUAL"):
            what = "a virtual table" if kind == "table" else f"a {kind}"
            raise SessionLoadError(
                path, f"not a Goose sessions.db: '{name}' is {what}, not a table (not read)"
            )


def _require_tables(path: Path, connection: sqlite3.Connection) -> tuple[set[str], set[str]]:
    _refuse_non_tables(path, connection)
    session_columns = _columns(connection, "sessions")
    message_columns = _columns(connection, "messages")
    missing = [
        name
        for name, cols in (("sessions", session_columns), ("messages", message_columns))
        if not cols
    ]
    if missing:
        raise SessionLoadError(
            path, f"not a Goose sessions.db: missing table(s) {', '.join(missing)}"
        )
    if "id" not in session_columns:
        raise SessionLoadError(path, "not a Goose sessions.db: sessions has no 'id'")
    for needed in ("session_id", "role", "content_json"):
        if needed not in message_columns:
            raise SessionLoadError(path, f"not a Goose sessions.db: messages has no '{needed}'")
    return session_columns, message_columns


def _session_rows(
    connection: sqlite3.Connection, columns: set[str], session_id: str | None
) -> list[dict[str, Any]]:
    """The rows, most recently updated first. Goose writes its timestamps in two text forms
    (SQLite's ``datetime('now')``, ``2025-10-14 09:30:00``, and chrono's RFC 3339,
    ``2025-10-14T09:30:00.123+00:00``), which do not sort as text: compare parsed times."""
    wanted = [name for name in _SESSION_COLUMNS if name in columns]
    query = f"SELECT {', '.join(wanted)} FROM sessions"
    params: tuple[Any, ...] = ()
    if session_id is not None:
        query += " WHERE id = ?"
        params = (session_id,)
    query += " ORDER BY rowid DESC"
    cursor = connection.execute(query, params)
    names = [description[0] for description in cursor.description]
    rows = [dict(zip(names, row, strict=True)) for row in cursor]
    rows.sort(key=_recency, reverse=True)  # stable: ties keep the newest row first
    return rows


def _recency(row: dict[str, Any]) -> tuple[float, float]:
    def stamp(name: str) -> float:
        parsed = parse_datetime(row.get(name))
        return parsed.timestamp() if parsed else float("-inf")

    return stamp("updated_at"), stamp("created_at")


# What `goose session list` shows (crates/goose/src/session/session_manager.rs,
# list_sessions -> list_sessions_by_types): user and scheduled sessions, through an INNER JOIN
# on messages, so a session without messages is not listed; subagent, hidden, terminal,
# gateway and ACP sessions are not either. A database older than the session_type column
# (schema v5) holds user sessions only.
LISTED_SESSION_TYPES = ("user", "scheduled")


def _listed(row: dict[str, Any], counts: dict[Any, int]) -> bool:
    kind = row.get("session_type", "user")
    return counts.get(row["id"], 0) > 0 and (kind is None or kind in LISTED_SESSION_TYPES)


def _message_counts(connection: sqlite3.Connection) -> dict[Any, int]:
    return dict(connection.execute("SELECT session_id, COUNT(*) FROM messages GROUP BY session_id"))


def load_sqlite(
    path: Path, session_id: str | None = None, *, all_sessions: bool = False
) -> Session:
    """The session ``session_id`` (any type), or by default the most recently updated one of
    those `goose session list` shows (``all_sessions``: of every session)."""
    with connect_read_only(path) as connection:
        session_columns, message_columns = _require_tables(path, connection)
        rows = _session_rows(connection, session_columns, session_id)
        note = None
        if session_id is None and rows and not all_sessions:
            counts = _message_counts(connection)
            listed = [row for row in rows if _listed(row, counts)]
            if listed:
                rows = listed
            else:
                note = (
                    "no session here is one `goose session list` shows (user or scheduled, "
                    "with messages): opened the most recently updated of all"
                )
        if not rows:
            if session_id is None:
                raise SessionLoadError(path, "the database holds no sessions")
            known = [r["id"] for r in _session_rows(connection, session_columns, None)][:10]
            raise SessionLoadError(
                path,
                f"session {session_id!r} not found"
                + (f" (sessions: {', '.join(map(str, known))})" if known else ""),
            )
        row = rows[0]
        bad_in_sessions = connection.guard.bad_text
        messages, warnings = _messages(connection, message_columns, str(row["id"]))
        if note is not None:
            warnings.insert(0, LoadWarning(message=note))
        if connection.guard.note is not None:
            warnings.insert(0, LoadWarning(message=connection.guard.note))
        if bad_in_sessions:
            warnings.insert(0, LoadWarning(message=f"session {row['id']}: {_NOT_UTF8}"))
    return _session(path, row, messages, warnings)


def _messages(
    connection: GuardedConnection, columns: set[str], session_id: str
) -> tuple[list[Message], list[LoadWarning]]:
    wanted = [name for name in _MESSAGE_COLUMNS if name in columns]
    # Goose's get_conversation orders by created_timestamp, then id for messages created in
    # the same second (crates/goose/src/session/session_manager.rs).
    order: list[str] = [name for name in ("created_timestamp", "id") if name in columns]
    order = order or ["rowid"]
    cursor = connection.execute(
        f"SELECT rowid, {', '.join(wanted)} FROM messages WHERE session_id = ? "
        f"ORDER BY {', '.join(order)}",
        (session_id,),
    )
    names = ["_rowid", *wanted]
    messages: list[Message] = []
    warnings = LoadWarnings()
    bad_before = connection.guard.bad_text
    for index, values in enumerate(cursor):
        record = dict(zip(names, values, strict=True))
        where = f"session {session_id}, message row {record.get('id', record['_rowid'])}"
        notes: list[str] = []
        if connection.guard.bad_text != bad_before:
            bad_before = connection.guard.bad_text
            notes.append(_NOT_UTF8)
        message, problem = _message(record, session_id, index, notes)
        for note in notes:
            warnings.add(f"{where}: {note}")
        keep_message(messages, warnings, where, message, problem)
    return messages, warnings.as_list()


def _message(
    record: dict[str, Any], session_id: str, index: int, notes: list[str]
) -> tuple[Message | None, str | None]:
    try:
        content, changed = hostile.loads(record["content_json"] or "[]")
        notes.extend(f"content_json {note}" for note in changed)
    except RecursionError:
        return None, "content_json nested too deeply to read"
    except (TypeError, ValueError) as exc:
        return None, f"content_json is not valid JSON ({exc})"
    if not isinstance(content, list):
        return None, "content_json is not a JSON array"
    metadata: Any = None
    if record.get("metadata_json"):
        try:
            metadata, changed = hostile.loads(record["metadata_json"])
            notes.extend(f"metadata_json {note}" for note in changed)
        except (RecursionError, TypeError, ValueError):
            metadata = None  # Goose itself falls back to the default metadata here.
    obj: dict[str, Any] = {
        # Goose names messages without a stored id this way when it reads them back.
        "id": record.get("message_id") or f"msg_{session_id}_{index}",
        "role": record.get("role"),
        "created": to_epoch_seconds(record.get("created_timestamp")),
        "content": content,
        "tokens": record.get("tokens") if isinstance(record.get("tokens"), int) else None,
    }
    if isinstance(metadata, dict):
        obj["metadata"] = metadata
    return build_message(obj)


def _text(value: object) -> str | None:
    # Columns are dynamically typed in SQLite; a stray integer must not fail the load.
    if value is None or value == "":
        return None
    return value if isinstance(value, str) else str(value)


def _json_column(row: dict[str, Any], name: str) -> Any:
    """A column of JSON text, parsed; None when empty or not JSON (as Goose's from_row reads
    it: ``serde_json::from_str(..).ok()``)."""
    raw = row.get(name)
    if not raw:
        return None
    try:
        return hostile.loads(raw)[0]
    except (RecursionError, TypeError, ValueError):
        return None


def _session(
    path: Path, row: dict[str, Any], messages: list[Message], warnings: list[LoadWarning]
) -> Session:
    extras = {name: row[name] for name in _EXTRA_COLUMNS if name in row}
    for column, field in JSON_COLUMNS.items():
        if column in row:
            extras[field] = _json_column(row, column)
    return Session(
        id=str(row["id"]),
        # Goose shows the description when the (newer) name column is empty.
        name=_text(row.get("name")) or _text(row.get("description")),
        description=_text(row.get("description")),
        working_dir=_text(row.get("working_dir")),
        created_at=parse_datetime(row.get("created_at")),
        updated_at=parse_datetime(row.get("updated_at")),
        provider_name=_text(row.get("provider_name")),
        model_config=model_config_from(_json_column(row, "model_config_json")),
        usage=usage_from(row),
        accumulated_usage=usage_from(row, prefix="accumulated_"),
        messages=messages,
        source_path=path,
        source_format="sqlite",
        warnings=warnings,
        **extras,
    )


def list_sqlite(path: Path, *, all_sessions: bool = False) -> list[SessionInfo]:
    """The sessions `goose session list` shows, or every one with ``all_sessions``."""
    with connect_read_only(path) as connection:
        session_columns, _ = _require_tables(path, connection)
        rows = _session_rows(connection, session_columns, None)
        counts = _message_counts(connection)
    infos = []
    for row in rows:
        if not all_sessions and not _listed(row, counts):
            continue
        config = model_config_from(_json_column(row, "model_config_json"))
        infos.append(
            SessionInfo(
                id=str(row["id"]),
                name=_text(row.get("name")) or _text(row.get("description")),
                description=_text(row.get("description")),
                updated_at=parse_datetime(row.get("updated_at")),
                message_count=counts.get(row["id"], 0),
                total_tokens=usage_from(row).total_tokens,
                model_name=config.model_name,
                path=path,
                session_type=_text(row.get("session_type")),
            )
        )
    return infos
