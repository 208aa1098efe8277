"""Two sessions of one name are told apart in the picker at 80 columns, where the id and
file columns are off screen: the name cell carries what differs (the id, else the file)."""

from __future__ import annotations

import shutil
from pathlib import Path

from textual.widgets import DataTable

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.screens.session_picker import SessionPicker
from tests.conftest import SAMPLES

from .conftest import opened_before, settle


async def _recent_rows(files: list[Path]) -> list[str]:
    for path in files:  # each opened before, as the app records it: the picker's recent rows
        opened_before(path)
    app = GooseTUI(SAMPLES / "short.jsonl")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("o")
        await settle(pilot)
        assert isinstance(app.screen, SessionPicker)
        table = app.screen.query_one(DataTable)
        drawn = [table.render_line(y).text for y in range(1, table.row_count + 1)]
    return [line.rstrip() for line in drawn if "recent" in line and "invoice" in line]


async def test_two_recent_sessions_of_one_name_differ_on_screen(tmp_path: Path) -> None:
    files = []
    for folder, stem in (("first", "invoice-session-1"), ("second", "invoice-session-2")):
        path = tmp_path / folder / f"{stem}.jsonl"
        path.parent.mkdir()
        shutil.copy(SAMPLES / "long_session.jsonl", path)
        files.append(path)
    rows = await _recent_rows(files)
    assert len(rows) == 2 and rows[0] != rows[1], rows
    assert any("sion-2" in row for row in rows), rows


async def test_two_copies_of_one_file_name_differ_by_their_folder(tmp_path: Path) -> None:
    files = []
    for folder in ("first", "second"):
        path = tmp_path / folder / "long_session.jsonl"
        path.parent.mkdir()
        shutil.copy(SAMPLES / "long_session.jsonl", path)
        files.append(path)
    rows = await _recent_rows(files)
    assert len(rows) == 2 and rows[0] != rows[1], rows
    assert any("first" in row for row in rows) and any("second" in row for row in rows), rows
