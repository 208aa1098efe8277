"""The one write goose-tui makes to Goose's data: a compacted session added to Goose's
``sessions.db`` as a new session, so ``goose session --resume --session-id NEW`` continues
from the (edited) summary. The Goose CLI has no import command; this is its route.

How, and why:
- Only a schema version the tests cover (``SUPPORTED_SCHEMA_VERSIONS``): the columns written
  are the ones that version has, and a Goose of another version may read them otherwise.
- A copy of the whole database first, through SQLite's backup API (a consistent snapshot
  even while Goose writes), next to it, under a new name the caller reports.
- One ``BEGIN IMMEDIATE`` transaction with a busy timeout, as Goose's own writes
  (crates/goose/src/session/storage.rs, commit 865e4a03): a Goose writing at that moment
  makes this wait, then fail with nothing written; in WAL mode its readers never block it.
- INSERTs only: one ``sessions`` row and its ``messages`` rows. No existing row is updated or
  deleted (SQLite advances its own ``sqlite_sequence`` counter for ``messages``, as every
  Goose insert does).
- The new id is made as Goose's ``create_session`` makes it (``YYYYMMDD_N``, the day's next
  number), inside the transaction, so it cannot collide with one Goose makes meanwhile.
- Read back through the read-only loader after the commit, and compared.
"""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from goose_tui.files import keys_removed_note
from goose_tui.redact import remove_known_keys
from goose_tui.session._common import ACCUMULATED_TOKEN_FIELDS
from goose_tui.session.errors import SessionLoadError
from goose_tui.session.goose_import import readable_messages, session_state
from goose_tui.session.models import Message, Session
from goose_tui.session.sqlite import JSON_COLUMNS, load_sqlite
from goose_tui.session.writer import compacted_messages, export_dict, goose_data_dirs

# crates/goose/src/session/migrations.rs CURRENT_SCHEMA_VERSION at commit 865e4a03; the
# fixture tests/fixtures/goose/sessions-v13.db is built to it.
SUPPORTED_SCHEMA_VERSIONS = frozenset({13})
BUSY_TIMEOUT = 10.0


class GooseDbRefused(Exception):
    """Nothing was written to the database; the message says why and what to do."""


@dataclass(frozen=True)
class AddedSession:
    session_id: str
    backup: Path
    message_count: int
    notes: list[str]

    @property
    def resume_command(self) -> str:
        return f"goose session --resume --session-id {self.session_id}"


def default_goose_db() -> Path | None:
    """Goose's own ``sessions.db`` on this machine (its ``sessions`` folder in the first data
    folder that has one), or None."""
    for data in goose_data_dirs():
        candidate = data / "sessions" / "sessions.db"
        if candidate.is_file():
            return candidate
    return None


def _serde(value: Any) -> str:
    # serde_json::to_string: no spaces, UTF-8 as is.
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _connect(db: Path, mode: str = "rw") -> sqlite3.Connection:
    uri = f"file:{db.resolve()}?mode={mode}"
    try:
        return sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT, isolation_level=None)
    except sqlite3.Error as exc:
        raise GooseDbRefused(f"{db}: cannot open the database: {exc}") from exc


def schema_version(connection: sqlite3.Connection) -> int | None:
    try:
        row = connection.execute("SELECT MAX(version) FROM schema_version").fetchone()
    except sqlite3.DatabaseError:
        return None
    return row[0] if row and isinstance(row[0], int) else None


def _check_schema(db: Path, connection: sqlite3.Connection) -> None:
    version = schema_version(connection)
    if version not in SUPPORTED_SCHEMA_VERSIONS:
        known = ", ".join(str(v) for v in sorted(SUPPORTED_SCHEMA_VERSIONS))
        what = "no Goose schema_version" if version is None else f"schema version {version}"
        raise GooseDbRefused(
            f"{db}: {what}; goose-tui writes only to Goose databases of schema version {known}. "
            "Save the compacted session as .json and import it in Goose instead"
        )


def check_db(db: Path) -> None:
    """Before any work: ``GooseDbRefused`` unless ``db`` is a Goose database of a schema
    version goose-tui writes to (read only; nothing is created next to it)."""
    db = Path(db).expanduser()
    if not db.is_file():
        raise GooseDbRefused(f"{db}: no such database file")
    connection = _connect(db, "ro")
    try:
        _check_schema(db, connection)
    finally:
        connection.close()


def _backup_path(db: Path) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    for n in range(1000):
        suffix = f"-{n}" if n else ""
        candidate = db.with_name(f"{db.name}.goose-tui-backup-{stamp}{suffix}")
        if not candidate.exists():
            return candidate
    raise GooseDbRefused(f"{db}: no free name for a backup next to it")


def backup(db: Path, connection: sqlite3.Connection) -> Path:
    """A consistent copy of the database next to it (SQLite's online backup), as one
    self-contained file."""
    target = _backup_path(db)
    try:
        copy = sqlite3.connect(target, isolation_level=None)
        try:
            connection.backup(copy)
            copy.execute("PRAGMA journal_mode=DELETE")
        finally:
            copy.close()
    except sqlite3.Error as exc:
        raise GooseDbRefused(
            f"{db}: the backup to {target} failed ({exc}); nothing written"
        ) from exc
    return target


# The sessions columns written from the export's field of the same name, and those Goose
# keeps as JSON text (sqlite.JSON_COLUMNS reads them back) with the field each holds.
_PLAIN_COLUMNS = (
    "name",
    "user_set_name",
    "session_type",
    "working_dir",
    *ACCUMULATED_TOKEN_FIELDS,
    "accumulated_cost",
    "schedule_id",
    "provider_name",
)
_JSON_FIELDS = {field: column for column, field in JSON_COLUMNS.items()}
_JSON_FIELDS["model_config"] = "model_config_json"


def _rows(
    session: Session, messages: Sequence[Message], new_id: str, now: int
) -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
    """The ``sessions`` row and the ``messages`` rows: the session JSON a save writes
    (``writer.export_dict``), in Goose's columns."""
    data = export_dict(session, messages, now)
    row = {"id": new_id, **{column: data.get(column) for column in _PLAIN_COLUMNS}}
    for field, column in _JSON_FIELDS.items():
        row[column] = None if data.get(field) is None else _serde(data[field])
    row["goose_mode"] = data.get("goose_mode", "auto")
    message_rows = [
        (
            m["id"] or f"msg_{new_id}_{uuid.uuid4()}",
            new_id,
            m["role"],
            _serde(m["content"]),
            m["created"],
            _serde(m["metadata"]),
        )
        for m in data["conversation"]
    ]
    return row, message_rows


# create_session's id: the day's date and the next number after the day's highest.
_NEW_ID = (
    "SELECT ? || '_' || CAST(COALESCE((SELECT MAX(CAST(SUBSTR(id, 10) AS INTEGER)) "
    "FROM sessions WHERE id LIKE ? || '_%'), 0) + 1 AS TEXT)"
)


def add_session(db: Path, session: Session, summary_text: str) -> AddedSession:
    """Add the compacted ``session`` (its history agent-invisible, then ``summary_text`` and
    Goose's continuation message) to ``db`` as a new session; raises ``GooseDbRefused`` with
    nothing written."""
    db = Path(db).expanduser()
    if not db.is_file():
        raise GooseDbRefused(f"{db}: no such database file")
    now = int(time.time())
    # What goes into Goose's database loses the keys this process knows, as a file does.
    summary_text, removed = remove_known_keys(summary_text)
    messages, notes = readable_messages(compacted_messages(session.messages, summary_text, now))
    _, state_notes = session_state(session)
    notes = [*state_notes, *notes]
    if removed:
        notes.append(keys_removed_note(db, removed))
    connection = _connect(db)
    try:
        _check_schema(db, connection)
        saved = backup(db, connection)
        try:
            connection.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise GooseDbRefused(
                f"{db}: another process (Goose) is writing to the database (waited "
                f"{BUSY_TIMEOUT:g} s); nothing written; try again when Goose is idle "
                f"(backup: {saved})"
            ) from exc
        try:
            today = datetime.now(UTC).strftime("%Y%m%d")
            new_id = connection.execute(_NEW_ID, (today, today)).fetchone()[0]
            row, message_rows = _rows(session, messages, new_id, now)
            columns = ", ".join(row)
            connection.execute(
                f"INSERT INTO sessions ({columns}) VALUES ({', '.join('?' * len(row))})",
                tuple(row.values()),
            )
            connection.executemany(
                "INSERT INTO messages (message_id, session_id, role, content_json, "
                "created_timestamp, metadata_json) VALUES (?, ?, ?, ?, ?, ?)",
                message_rows,
            )
            connection.execute("COMMIT")
        except BaseException:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise
    except sqlite3.Error as exc:
        raise GooseDbRefused(f"{db}: nothing written: {exc}") from exc
    finally:
        connection.close()
    _read_back(db, new_id, messages)
    return AddedSession(new_id, saved, len(messages), notes)


def _read_back(db: Path, new_id: str, written: Sequence[Message]) -> None:
    """The new session, read as goose-tui reads Goose's database, has every message written,
    in order, with the same content and visibility."""
    try:
        loaded = load_sqlite(db, new_id)
    except SessionLoadError as exc:
        raise GooseDbRefused(
            f"{db}: session {new_id} was written but cannot be read back: {exc}"
        ) from exc
    got = [(m.role, m.content, m.metadata.agent_visible) for m in loaded.messages]
    want = [(m.role, m.content, m.metadata.agent_visible) for m in written]
    if got != want:
        raise GooseDbRefused(
            f"{db}: session {new_id} was written but reads back differently "
            f"({len(got)} of {len(want)} messages); the backup is next to it"
        )
