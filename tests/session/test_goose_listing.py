"""How Goose's sessions are read and listed, as Goose does it: legacy .jsonl names, the
order of sessions.db's sessions and messages, which sessions `goose session list` shows.
Each test names the Goose source it follows; the fixtures in tests/fixtures/goose/ are in
the shapes Goose writes (tests/fixtures/make_goose_fixtures.py)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from goose_tui.cli import main
from goose_tui.session.loader import list_sessions, load_session

FIXTURES = Path(__file__).parents[1] / "fixtures" / "goose"
V13 = FIXTURES / "sessions-v13.db"
V5 = FIXTURES / "sessions-v5.db"


# --- legacy JSONL name -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "title"),
    [
        ("legacy-2024.jsonl", "Port the ledger CLI to click"),
        ("legacy-2025.jsonl", "Add CSV export to the ledger"),
    ],
)
def test_legacy_session_name_comes_from_description(name: str, title: str) -> None:
    """legacy.rs load_session reads line 1 into Session, whose `name` takes `description`
    as an alias; the id is the file name."""
    session = load_session(FIXTURES / name)
    assert session.name == title
    assert session.id == Path(name).stem


# --- sessions.db: timestamps, what is listed ---------------------------------------------


def test_most_recent_compares_parsed_times_not_text() -> None:
    """The user session was updated at 09:58 by add_message (SQLite's datetime('now')
    text), the scheduled one at 09:05 by the legacy import (RFC 3339 text, chrono via sqlx).
    As text the scheduled one sorts first ('T' > ' '); by time it is second."""
    assert "2025-10-09T09:05:00.250000+00:00" > "2025-10-09 09:58:00"
    infos = list_sessions(V13)
    assert [i.id for i in infos] == ["20251009_1", "20251009_2"]
    assert load_session(V13).id == "20251009_1"


def test_text_order_and_time_order_disagree_here(tmp_path: Path) -> None:
    # The earlier session has the text that sorts later: only a parsed comparison is right.
    path = tmp_path / "sessions.db"
    with sqlite3.connect(path) as db:
        db.executescript(
            "CREATE TABLE sessions (id TEXT PRIMARY KEY, working_dir TEXT, created_at TEXT,"
            " updated_at TEXT, session_type TEXT DEFAULT 'user');"
            "CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT,"
            " content_json TEXT, created_timestamp INTEGER, metadata_json TEXT);"
        )
        db.execute(
            "INSERT INTO sessions VALUES ('early', '/w', '', '2025-10-09T08:00:00+00:00', 'user')"
        )
        db.execute("INSERT INTO sessions VALUES ('late', '/w', '', '2025-10-09 09:00:00', 'user')")
        for sid in ("early", "late"):
            db.execute(
                "INSERT INTO messages (session_id, role, content_json, created_timestamp)"
                " VALUES (?, 'user', '[]', 1)",
                (sid,),
            )
    assert "2025-10-09T08:00:00+00:00" > "2025-10-09 09:00:00"
    assert load_session(path).id == "late"
    assert [i.id for i in list_sessions(path)] == ["late", "early"]


def test_default_listing_is_what_goose_session_list_shows() -> None:
    """list_sessions -> list_sessions_by_types([User, Scheduled]) with an INNER JOIN on
    messages (crates/goose/src/session/session_manager.rs): no subagent, hidden or empty
    sessions, although each of those was updated later."""
    assert {i.id for i in list_sessions(V13)} == {"20251009_1", "20251009_2"}
    every = list_sessions(V13, all_sessions=True)
    assert {i.id for i in every} == {f"20251009_{n}" for n in range(1, 6)}
    assert every[0].id == "20251009_5"  # the empty one is the most recently updated
    assert {i.session_type for i in every} >= {"sub_agent", "hidden", "scheduled", "user"}
    assert load_session(V13, all_sessions=True).id == "20251009_5"


def test_all_sessions_flag_in_cli(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sessions", str(V13), "--json"]) == 0
    listed = [row["id"] for row in json.loads(capsys.readouterr().out)]
    assert listed == ["20251009_1", "20251009_2"]
    assert main(["sessions", str(V13), "--json", "--all-sessions"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 5
    assert main(["sessions", str(V13), "--all-sessions"]) == 0
    table = capsys.readouterr().out
    assert "TYPE" in table and "sub_agent" in table and "hidden" in table
    assert main(["format", str(V13), "--all-sessions"]) == 0
    assert capsys.readouterr().out == "\n"  # the empty session, the most recent of all
    assert main(["usage", str(V13), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["messages"] == 10


def test_messages_in_goose_order_created_timestamp_then_id(tmp_path: Path) -> None:
    """get_conversation: ORDER BY created_timestamp, id (not the `timestamp` column)."""
    path = tmp_path / "sessions.db"
    with sqlite3.connect(path) as db:
        db.executescript(
            "CREATE TABLE sessions (id TEXT PRIMARY KEY, working_dir TEXT, updated_at TEXT);"
            "CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT,"
            " content_json TEXT, created_timestamp INTEGER, timestamp TEXT);"
            "INSERT INTO sessions VALUES ('s', '/w', '2025-01-01 00:00:00');"
        )
        rows = [("second", 20, "2025-01-01 00:00:00"), ("first", 10, "2025-01-01 00:00:05")]
        for body, created, stamp in rows:
            db.execute(
                "INSERT INTO messages (session_id, role, content_json, created_timestamp,"
                " timestamp) VALUES ('s', 'user', ?, ?, ?)",
                (json.dumps([{"type": "text", "text": body}]), created, stamp),
            )
    assert [m.content[0]["text"] for m in load_session(path).messages] == ["first", "second"]


def test_schema_v5_database_loads_with_description_as_name() -> None:
    session = load_session(V5)
    assert session.id == "20250612_1"
    assert session.name == "Set up the ledger project"
    assert [i.id for i in list_sessions(V5)] == ["20250612_1"]


def test_batch_takes_what_goose_session_list_shows_unless_all_sessions() -> None:
    from goose_tui.analysis.batch import collect_jobs

    assert [job.session_id for job in collect_jobs(V13)] == ["20251009_1", "20251009_2"]
    assert len(collect_jobs(V13, all_sessions=True)) == 5
    assert len(collect_jobs(FIXTURES)) == 2 + 1 + 4  # both databases' listed, four files


def test_a_database_with_nothing_listable_opens_the_most_recent_with_a_warning(
    tmp_path: Path,
) -> None:
    path = tmp_path / "sessions.db"
    with sqlite3.connect(path) as db:
        db.executescript(
            "CREATE TABLE sessions (id TEXT PRIMARY KEY, working_dir TEXT, updated_at TEXT,"
            " session_type TEXT);"
            "CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT,"
            " content_json TEXT, created_timestamp INTEGER);"
            "INSERT INTO sessions VALUES ('sub', '/w', '2025-01-01 00:00:00', 'sub_agent');"
            "INSERT INTO messages VALUES (1, 'sub', 'user', '[]', 1);"
        )
    session = load_session(path)
    assert session.id == "sub"
    assert "goose session list" in str(session.warnings[0])
    assert list_sessions(path) == []
