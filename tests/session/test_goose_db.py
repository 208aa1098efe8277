"""Adding a compacted session to Goose's sessions.db as a new session (the Goose CLI's route:
it has no import command).

Goose's side, block/goose commit 865e4a03: ``create_session`` and ``replace_conversation_inner``
in crates/goose/src/session/storage.rs (the ``YYYYMMDD_N`` id, ``BEGIN IMMEDIATE``, the columns
of a message row), ``get_conversation`` (read back ordered by created_timestamp, id), the pool's
WAL journal mode and busy timeout (``create_pool``); ``CURRENT_SCHEMA_VERSION`` 13 in
crates/goose/src/session/migrations.rs. The fixtures are built the way Goose builds the file
(tests/fixtures/make_goose_fixtures.py).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from goose_tui.session.goose_db import GooseDbRefused, add_session, check_db
from goose_tui.session.loader import load_session
from goose_tui.session.sqlite import list_sqlite, load_sqlite
from tests.conftest import ROOT, SAMPLES
from tests.session.goose_serde import message_problems

FIXTURES = ROOT / "tests" / "fixtures" / "goose"


def _goose_db(tmp_path: Path, name: str = "sessions-v13.db") -> Path:
    """A copy of the fixture, switched to WAL as Goose's pool opens it."""
    db = tmp_path / "sessions" / "sessions.db"
    db.parent.mkdir()
    shutil.copyfile(FIXTURES / name, db)
    with sqlite3.connect(db) as connection:
        connection.execute("PRAGMA journal_mode=WAL")
    connection.close()
    return db


def _rows(db: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every table but SQLite's own AUTOINCREMENT counter, as stored."""
    connection = sqlite3.connect(db)
    try:
        tables = [
            name
            for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")
            if name != "sqlite_sequence"
        ]
        return {
            table: sorted(connection.execute(f"SELECT rowid, * FROM {table}").fetchall(), key=repr)
            for table in tables
        }
    finally:
        connection.close()


def test_the_new_session_is_added_and_no_existing_row_changes(tmp_path: Path) -> None:
    db = _goose_db(tmp_path)
    before = _rows(db)
    session = load_sqlite(db, "20251009_1")
    added = add_session(db, session, "the edited summary")
    after = _rows(db)
    for table, rows in before.items():
        kept = [row for row in after[table] if row in rows]
        assert kept == rows, f"{table}: an existing row changed"
    new_sessions = [row for row in after["sessions"] if row not in before["sessions"]]
    assert [row[1] for row in new_sessions] == [added.session_id]


def test_the_new_session_resumes_from_the_summary(tmp_path: Path) -> None:
    db = _goose_db(tmp_path)
    session = load_sqlite(db, "20251009_1")
    added = add_session(db, session, "the edited summary")
    loaded = load_sqlite(db, added.session_id)
    visible = [m for m in loaded.messages if m.metadata.agent_visible]
    # What the agent reads on resume: the summary (user, agent only), then Goose's note.
    assert [m.role for m in visible] == ["user", "assistant"]
    assert visible[0].content == [{"type": "text", "text": "the edited summary"}]
    assert len(loaded.messages) == len(session.messages) + 2
    assert added.resume_command == f"goose session --resume --session-id {added.session_id}"
    # `goose session list` (user and scheduled sessions with messages) shows it first.
    assert list_sqlite(db)[0].id == added.session_id
    with sqlite3.connect(db) as connection:
        for role, content, created, metadata in connection.execute(
            "SELECT role, content_json, created_timestamp, metadata_json FROM messages"
            " WHERE session_id = ?",
            (added.session_id,),
        ):
            message = {
                "role": role,
                "content": json.loads(content),
                "created": created,
                "metadata": json.loads(metadata),
            }
            assert message_problems(message) == []
    connection.close()


def test_the_session_state_is_written_to_its_columns(tmp_path: Path) -> None:
    db = _goose_db(tmp_path)
    session = load_sqlite(db, "20251009_2")  # a scheduled session
    session = session.model_copy(
        update={"goose_mode": "smart_approve", "extension_data": {"todo.v0": {"content": "x"}}}
    )
    added = add_session(db, session, "summary")
    with sqlite3.connect(db) as connection:
        row = connection.execute(
            "SELECT goose_mode, session_type, schedule_id, extension_data FROM sessions"
            " WHERE id = ?",
            (added.session_id,),
        ).fetchone()
    connection.close()
    assert row == ("smart_approve", "scheduled", "nightly-ledger", '{"todo.v0":{"content":"x"}}')


def test_a_backup_is_made_first_next_to_it(tmp_path: Path) -> None:
    db = _goose_db(tmp_path)
    before = _rows(db)
    added = add_session(db, load_sqlite(db, "20251009_1"), "summary")
    assert added.backup.parent == db.parent and added.backup.name.startswith("sessions.db.")
    assert _rows(added.backup) == before
    assert not Path(f"{added.backup}-wal").exists()


def test_a_session_from_another_format_is_added(tmp_path: Path) -> None:
    db = _goose_db(tmp_path)
    session = load_session(FIXTURES / "legacy-2024.jsonl")
    added = add_session(db, session, "summary")
    assert any("contextLengthExceeded" in note for note in added.notes)
    assert load_sqlite(db, added.session_id).messages[-2].content[0]["text"] == "summary"


@pytest.mark.parametrize("name", ["sessions-v5.db"])
def test_a_schema_version_the_tests_do_not_cover_is_refused(tmp_path: Path, name: str) -> None:
    db = _goose_db(tmp_path, name)
    before = db.read_bytes()
    with pytest.raises(GooseDbRefused, match="schema version 5"):
        check_db(db)
    with pytest.raises(GooseDbRefused, match="schema version 5"):
        add_session(db, load_session(SAMPLES / "short.jsonl"), "summary")
    assert db.read_bytes() == before
    assert [p.name for p in db.parent.iterdir() if "backup" in p.name] == []


def test_a_goose_writing_at_the_same_time_makes_it_wait_then_refuse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from goose_tui.session import goose_db

    monkeypatch.setattr(goose_db, "BUSY_TIMEOUT", 0.3)
    db = _goose_db(tmp_path)
    session = load_sqlite(db, "20251009_1")
    # Another writer in WAL mode, inside an open read/write transaction, as Goose's
    # add_message holds one.
    goose = sqlite3.connect(db, isolation_level=None)
    try:
        goose.execute("BEGIN IMMEDIATE")
        goose.execute(
            "INSERT INTO messages (message_id, session_id, role, content_json,"
            " created_timestamp, metadata_json) VALUES ('g1', '20251009_1', 'user', '[]', 1, '{}')"
        )
        before = _rows(db)
        with pytest.raises(GooseDbRefused, match="writing to the database"):
            add_session(db, session, "summary")
        assert _rows(db) == before
        goose.execute("COMMIT")
    finally:
        goose.close()
    # Once Goose is idle it goes in, and Goose's own row is there as it wrote it.
    added = add_session(db, session, "summary")
    rows = _rows(db)["messages"]
    assert any(row[2] == "g1" for row in rows)
    assert load_sqlite(db, added.session_id).messages[-2].content[0]["text"] == "summary"


def test_a_reader_holding_the_database_open_does_not_block_it(tmp_path: Path) -> None:
    db = _goose_db(tmp_path)
    reader = sqlite3.connect(db, isolation_level=None)
    try:
        reader.execute("BEGIN")
        reader.execute("SELECT COUNT(*) FROM messages").fetchone()
        added = add_session(db, load_sqlite(db, "20251009_1"), "summary")
        assert load_sqlite(db, added.session_id).messages
    finally:
        reader.close()


def test_the_cli_adds_the_session_and_prints_the_resume_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from goose_tui.cli import main

    db = _goose_db(tmp_path)
    code = main(["compact", str(db), "--session", "20251009_1", "--add-to-goose-db", str(db)])
    err = capsys.readouterr().err
    assert code == 0, err
    new_id = list_sqlite(db)[0].id
    assert f"goose session --resume --session-id {new_id}" in err
    assert "backed up" in err and ".goose-tui-backup-" in err
    assert "offline summarizer's extract" in err


def test_the_cli_refuses_an_unsupported_database_before_compacting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from goose_tui.cli import main

    db = _goose_db(tmp_path, "sessions-v5.db")
    code = main(["compact", str(SAMPLES / "short.jsonl"), "--add-to-goose-db", str(db)])
    assert code == 2
    assert "schema version 5" in capsys.readouterr().err
