"""Goose sessions.db (docs/pipeline.md §1): read-only, schema-tolerant, safe beside a running
Goose."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from goose_tui.session.loader import SessionLoadError, detect_format, list_sessions, load_session
from goose_tui.session.schema import create_schema, insert_session
from tests.session.test_support import untouched


def message(role: str, text: str, created: int, **extra: object) -> dict:
    return {
        "role": role,
        "created": created,
        "content": [{"type": "text", "text": text}],
        "metadata": {"userVisible": True, "agentVisible": True},
        **extra,
    }


def session_row(sid: str, updated: str, **extra: object) -> dict:
    return {
        "id": sid,
        "name": f"session {sid}",
        "working_dir": "/home/dev/proj",
        "created_at": "2025-10-01 08:00:00",
        "updated_at": updated,
        "total_tokens": 1000,
        "input_tokens": 900,
        "output_tokens": 100,
        "accumulated_total_tokens": 3000,
        "provider_name": "openai",
        "model_config": {"model_name": "gpt-4o", "context_limit": 128000, "temperature": None},
        **extra,
    }


def make_db(path: Path, *, wal: bool = False) -> Path:
    connection = sqlite3.connect(path)
    if wal:
        connection.execute("PRAGMA journal_mode=WAL")
    create_schema(connection)
    insert_session(
        connection,
        session_row("20251001_1", "2025-10-01 09:00:00"),
        [message("user", "old question", 1_759_300_000)],
    )
    insert_session(
        connection,
        session_row("20251002_1", "2025-10-02 10:00:00"),
        [
            message("user", "newest question", 1_759_400_000, id="msg_a"),
            message("assistant", "newest answer", 1_759_400_005, tokens=42),
        ],
    )
    connection.commit()
    connection.close()
    return path


def test_most_recent_session_by_default(tmp_path: Path) -> None:
    path = make_db(tmp_path / "sessions.db")
    with untouched(path):
        session = load_session(path)
    assert detect_format(path) == "sqlite"
    assert session.source_format == "sqlite"
    assert session.id == "20251002_1"
    assert session.name == "session 20251002_1"
    assert session.working_dir == "/home/dev/proj"
    assert session.provider_name == "openai"
    assert session.model_name == "gpt-4o"
    assert session.model_config_.context_limit == 128000
    assert session.usage.total_tokens == 1000
    assert session.accumulated_usage.total_tokens == 3000
    assert session.updated_at is not None and session.updated_at.day == 2
    assert [m.content[0]["text"] for m in session.messages] == ["newest question", "newest answer"]
    assert session.messages[0].id == "msg_a"
    assert session.messages[1].id == "msg_20251002_1_1"  # Goose's fallback naming
    assert session.messages[1].tokens == 42
    assert session.messages[0].created == 1_759_400_000


def test_pick_a_session_by_id(tmp_path: Path) -> None:
    path = make_db(tmp_path / "sessions.db")
    session = load_session(path, "20251001_1")
    assert [m.content[0]["text"] for m in session.messages] == ["old question"]


def test_unknown_session_id_names_file_and_id(tmp_path: Path) -> None:
    path = make_db(tmp_path / "sessions.db")
    with pytest.raises(SessionLoadError) as err:
        load_session(path, "nope")
    text = str(err.value)
    assert str(path) in text and "'nope'" in text and "20251002_1" in text
    assert "\n" not in text


def test_listing_a_db(tmp_path: Path) -> None:
    path = make_db(tmp_path / "sessions.db")
    with untouched(path):
        infos = list_sessions(path)
    assert [(i.id, i.message_count) for i in infos] == [("20251002_1", 2), ("20251001_1", 1)]
    assert infos[0].model_name == "gpt-4o"
    assert infos[0].total_tokens == 1000
    assert all(i.path == path for i in infos)


def test_oldest_schema_columns_only(tmp_path: Path) -> None:
    """Schema version 0: no name, message_id, metadata_json, provider or model columns."""
    path = tmp_path / "sessions.db"
    connection = sqlite3.connect(path)
    connection.executescript(
        """
        CREATE TABLE sessions (id TEXT PRIMARY KEY, description TEXT NOT NULL DEFAULT '',
            working_dir TEXT NOT NULL, created_at TIMESTAMP, updated_at TIMESTAMP,
            total_tokens INTEGER);
        CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL,
            role TEXT NOT NULL, content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL,
            timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER);
        INSERT INTO sessions VALUES ('s1', 'legacy description', '/w', '2025-01-01 00:00:00',
            '2025-01-02 00:00:00', 77);
        """
    )
    connection.execute(
        "INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES (?,?,?,?)",
        ("s1", "user", json.dumps([{"type": "text", "text": "hi"}]), 1_735_689_600),
    )
    connection.commit()
    connection.close()
    session = load_session(path)
    assert session.name == "legacy description"  # Goose falls back to the description
    assert session.model_name is None
    assert session.messages[0].metadata.agent_visible is True
    assert session.messages[0].id == "msg_s1_0"
    assert session.usage.total_tokens == 77


def test_chrono_timestamps_with_nanoseconds(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    connection = sqlite3.connect(path)
    create_schema(connection)
    insert_session(
        connection,
        session_row("s", "2025-10-02T10:00:00.123456789+00:00"),
        [message("user", "x", 1)],
    )
    connection.commit()
    connection.close()
    updated = load_session(path).updated_at
    assert updated is not None and updated.microsecond == 123456 and updated.utcoffset() is not None


def test_bad_rows_warn_naming_the_row(tmp_path: Path) -> None:
    path = make_db(tmp_path / "sessions.db")
    connection = sqlite3.connect(path)
    rows = [
        ("20251002_1", "assistant", "{broken", 1_759_400_010),
        ("20251002_1", "assistant", json.dumps({"not": "a list"}), 1_759_400_011),
        ("20251002_1", "system", json.dumps([]), 1_759_400_012),
    ]
    connection.executemany(
        "INSERT INTO messages (session_id, role, content_json, created_timestamp, timestamp)"
        " VALUES (?, ?, ?, ?, '2025-10-02 10:00:00')",
        rows,
    )
    connection.commit()
    connection.close()
    session = load_session(path)
    assert len(session.messages) == 2
    assert len(session.warnings) == 3
    assert all("message row" in w.message for w in session.warnings)
    assert "not valid JSON" in session.warnings[0].message
    assert "not a JSON array" in session.warnings[1].message
    assert "'system'" in session.warnings[2].message


def test_wal_db_without_writer_leaves_no_files(tmp_path: Path) -> None:
    """A plain mode=ro open would create -wal/-shm files and could not remove them."""
    path = make_db(tmp_path / "sessions.db", wal=True)
    assert not (tmp_path / "sessions.db-wal").exists()
    with untouched(path):
        assert load_session(path).id == "20251002_1"
        assert len(list_sessions(path)) == 2


def test_wal_db_while_goose_is_writing(tmp_path: Path) -> None:
    path = make_db(tmp_path / "sessions.db", wal=True)
    writer = sqlite3.connect(path)
    try:
        insert_session(
            writer,
            session_row("20251003_1", "2025-10-03 10:00:00"),
            [message("user", "committed while open", 1_759_500_000)],
        )
        writer.commit()
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("UPDATE sessions SET name = 'uncommitted' WHERE id = '20251003_1'")
        assert (tmp_path / "sessions.db-wal").exists()
        with untouched(path):
            session = load_session(path)
        # Committed WAL content is visible; the open transaction is not.
        assert session.id == "20251003_1"
        assert session.name == "session 20251003_1"
        assert session.messages[0].content[0]["text"] == "committed while open"
        writer.commit()
    finally:
        writer.close()
