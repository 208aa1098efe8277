"""The save dialog's last kind: the compacted session added to Goose's sessions.db as a new
session (goose_db.add_session, the route for the Goose CLI). Asked first; afterwards the new
id, the backup and the resume command, which y copies. The fixture databases and what Goose
does with them are described in tests/session/test_goose_db.py."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, RadioButton

from goose_tui.session.sqlite import list_sqlite, load_sqlite
from goose_tui.tui.app import GooseTUI
from goose_tui.tui.screens.confirm import ConfirmScreen
from goose_tui.tui.screens.error_modal import ErrorModal
from goose_tui.tui.screens.goose_db_added import GooseDbAdded
from tests.session.test_goose_db import _goose_db, _rows

from .conftest import compacted, paste, settle

SESSION_ID = "20251009_1"


async def _add_to(pilot: Pilot, db: Path) -> None:
    """Compact (offline), edit the summary JSON by hand, then save it to ``db``."""
    await compacted(pilot)
    await pilot.press("e", "end", "enter", "space")
    await settle(pilot)
    assert pilot.app.inspector.unsaved_summary_edits() != []  # type: ignore[attr-defined]
    await pilot.press("escape")
    await _save_to(pilot, db)


async def _save_to(pilot: Pilot, db: Path) -> None:
    """s, the sessions.db kind (its path field then holds the open session's database),
    ``db`` as its path, enter."""
    await pilot.press("s")
    await settle(pilot)
    pilot.app.screen.query_one("#save-goose-db", RadioButton).value = True
    await settle(pilot)
    path = pilot.app.screen.query_one("#save-path", Input).value
    assert path.endswith("sessions.db"), path  # the path field holds Goose's database
    await pilot.press("ctrl+u")
    await paste(pilot, str(db))
    await pilot.press("enter")
    await settle(pilot)


def _backups(db: Path) -> list[Path]:
    return [p for p in db.parent.iterdir() if ".goose-tui-backup-" in p.name]


async def test_the_session_is_added_after_a_yes_not_after_a_no_nor_while_goose_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from goose_tui.session import goose_db

    monkeypatch.setattr(goose_db, "BUSY_TIMEOUT", 0.3)
    db = _goose_db(tmp_path)
    before = _rows(db)
    app = GooseTUI(db, session_id=SESSION_ID)
    # Another writer inside an open transaction, as Goose's add_message holds one.
    goose = sqlite3.connect(db, isolation_level=None)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await _add_to(pilot, db)
            question = app.screen
            assert isinstance(question, ConfirmScreen), app.screen
            assert str(db) in question.question and "new session" in question.question
            assert _rows(db) == before and _backups(db) == []  # nothing before the yes
            # No: nothing is written.
            await pilot.press("escape")
            await settle(pilot)
            assert not isinstance(app.screen, ConfirmScreen | GooseDbAdded)
            assert _rows(db) == before and _backups(db) == []
            # Yes while Goose writes: waited for, then said.
            await _save_to(pilot, db)
            assert isinstance(app.screen, ConfirmScreen), app.screen
            goose.execute("BEGIN IMMEDIATE")
            await pilot.press("y")
            await settle(pilot)
            assert isinstance(app.screen, ErrorModal), app.screen
            assert "writing to the database" in app.screen.message
            assert _rows(db) == before
            assert app.inspector.unsaved_summary_edits() != []  # not added: still unsaved
            goose.execute("ROLLBACK")
            earlier = _backups(db)  # the backup made before the write that waited
            await pilot.press("escape")
            await settle(pilot)
            assert [s.id for s in list_sqlite(db)].count(SESSION_ID) == 1
            # Yes: added.
            await _save_to(pilot, db)
            assert isinstance(app.screen, ConfirmScreen), app.screen
            await pilot.press("y")
            await settle(pilot)
            shown = app.screen
            assert isinstance(shown, GooseDbAdded), app.screen
            new_id = list_sqlite(db)[0].id
            resume = f"goose session --resume --session-id {new_id}"
            [backup] = [path for path in _backups(db) if path not in earlier]
            assert resume in shown.message and str(backup) in shown.message
            assert new_id in shown.message
            await pilot.press("y")  # the resume command, to paste into a shell
            await settle(pilot)
            assert app.last_copy == resume  # type: ignore[attr-defined]
            summary = app.inspector.summary.text
            assert app.inspector.unsaved_summary_edits() == []
            await pilot.press("escape")
            await settle(pilot)
            assert not isinstance(app.screen, GooseDbAdded)
    finally:
        goose.close()
    after = _rows(db)
    for table, rows in before.items():
        assert [row for row in after[table] if row in rows] == rows, f"{table}: a row changed"
    assert [row[1] for row in after["sessions"] if row not in before["sessions"]] == [new_id]
    added = load_sqlite(db, new_id)
    visible = [m for m in added.messages if m.metadata.agent_visible]
    assert visible[0].content == [{"type": "text", "text": summary}]
    assert _rows(backup) == before


async def test_a_schema_version_not_covered_is_refused_before_asking(tmp_path: Path) -> None:
    db = _goose_db(tmp_path, "sessions-v5.db")
    before = db.read_bytes()
    (tmp_path / "open").mkdir()
    app = GooseTUI(_goose_db(tmp_path / "open"), session_id=SESSION_ID)
    async with app.run_test(size=(120, 40)) as pilot:
        await _add_to(pilot, db)
        assert isinstance(app.screen, ErrorModal), app.screen
        assert "schema version 5" in app.screen.message
    assert db.read_bytes() == before and _backups(db) == []
