"""When the panes are tabs (below 200 columns) the summary JSON and reply editors get the
screen's height: `e` and `r` maximise the fields pane and escape gives the layout back. Side
by side, the editor keeps its place beside the summary it re-renders."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import TextArea

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.widgets.goose_footer import GooseFooter

from .conftest import compacted, settle


async def test_the_editors_take_the_screen_at_80_columns(
    session_file: Path, reply_file: Path
) -> None:
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(80, 24)) as pilot:
        await compacted(pilot)
        fields = app.main.query_one("#pane-fields")
        for key in ("e", "r"):
            await pilot.press(key)
            await settle(pilot)
            editor = app.focused
            assert isinstance(editor, TextArea), key
            assert app.screen.maximized is fields, key
            assert editor.size.height >= 14, (key, editor.size)
            footer = app.main.query_one(GooseFooter).render_line(0).text
            assert "esc Leave editor" in footer, footer  # the footer stays with the pane
            await pilot.press("escape")
            await settle(pilot)
            assert app.screen.maximized is None, key
            assert not isinstance(app.focused, TextArea), key


async def test_a_maximise_the_user_chose_stays_after_the_editor(
    session_file: Path, reply_file: Path
) -> None:
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(80, 24)) as pilot:
        await compacted(pilot)
        await pilot.press("e", "escape", "f")
        await settle(pilot)
        fields = app.main.query_one("#pane-fields")
        assert app.screen.maximized is fields
        await pilot.press("r")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen.maximized is fields


async def test_side_by_side_the_editor_stays_beside_the_summary(
    session_file: Path, reply_file: Path
) -> None:
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(200, 50)) as pilot:
        await compacted(pilot)
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.focused, TextArea)
        assert app.screen.maximized is None
        assert app.main.query_one("#pane-markdown").region.height > 0
