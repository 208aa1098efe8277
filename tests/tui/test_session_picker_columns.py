"""The session picker's columns: a recent row's file does not push its date off a 120-column
screen, with --all-sessions each row says its type, as `goose-tui sessions` does, and
sessions of one name are told apart."""

from __future__ import annotations

import shutil
from pathlib import Path

from textual.widgets import DataTable

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.screens.session_picker import SessionPicker
from tests.conftest import SAMPLES

from .conftest import opened_before, settle

V13 = Path(__file__).parents[1] / "fixtures" / "goose" / "sessions-v13.db"


async def test_a_recent_row_keeps_its_date_on_screen_at_120_columns(tmp_path: Path) -> None:
    # A deep folder, as real ones are: the path is longer than the screen is wide.
    deep = tmp_path.joinpath(*(f"projects-folder-{n}" for n in range(6)), "long_session.jsonl")
    deep.parent.mkdir(parents=True)
    shutil.copy(SAMPLES / "long_session.jsonl", deep)
    opened_before(deep)
    app = GooseTUI(SAMPLES / "short.jsonl")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("o")
        await settle(pilot)
        assert isinstance(app.screen, SessionPicker)
        table = app.screen.query_one(DataTable)
        header, rows = table.render_line(0).text, [table.render_line(y).text for y in (1, 2)]
        cells = [str(cell) for cell in table.get_row_at(1)]
    assert "updated" in header and "messages" in header, header
    assert any("long_session.jsonl" in cell for cell in cells), cells
    recent = next(row for row in rows if "recent" in row)
    assert "opened 20" in recent, recent


async def test_the_picker_shows_each_sessions_type_with_all_sessions() -> None:
    app = GooseTUI(V13, all_sessions=True)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        table = app.screen.query_one(DataTable)
        headers = [str(column.label) for column in table.columns.values()]
        types = {str(table.get_row_at(row)[0]) for row in range(table.row_count)}
    assert headers[0] == "type", headers
    assert types == {"user", "scheduled", "sub_agent", "hidden"}, types
    app = GooseTUI(V13)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        headers = [str(c.label) for c in app.screen.query_one(DataTable).columns.values()]
    assert "type" not in headers, headers


async def test_the_picker_tells_sessions_of_one_name_apart() -> None:
    # A walk-through: a folder with short.jsonl and the short.compacted.jsonl saved beside it
    # listed two rows "Makefile uses pinned hugo", with nothing to tell which was which;
    # `goose-tui sessions` shows their ids.
    from datetime import UTC, datetime

    from textual.app import App
    from textual.widgets import DataTable

    from goose_tui.session.models import SessionInfo
    from goose_tui.tui.screens.session_picker import SessionPicker

    when = datetime(2025, 3, 1, 9, 30, tzinfo=UTC)
    sessions = [
        SessionInfo(id=stem, name="Makefile uses pinned hugo", updated_at=when, path=Path(stem))
        for stem in ("short.compacted", "short")
    ]

    class PickerApp(App[None]):
        def on_mount(self) -> None:
            self.push_screen(SessionPicker(sessions, "a folder"))

    app = PickerApp()
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        table = app.screen.query_one(DataTable)
        rows = [" ".join(map(str, table.get_row_at(i))) for i in range(table.row_count)]
        assert len(rows) == 2 and rows[0] != rows[1]
        assert "short.compacted" in rows[0] and "short" in rows[1]
