"""The summary JSON and reply editors in each layout. When the panes are tabs (below 200
columns) the editors get the screen's height: `e` and `r` maximise the fields pane, make its
tab the active one, and escape gives the layout back; the footer offers what the keys do in
an editor (escape leaves it and cancels nothing, `/` types a slash). Side by side, the editor
keeps its place beside the summary it re-renders, and a pane's copy is what its tab shows."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Tabs, TextArea

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.widgets.goose_footer import GooseFooter

from .conftest import compacted, settle


async def test_the_editors_take_the_screen_at_80_columns_and_a_chosen_maximise_stays(
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
        # A maximise the user chose stays after the editor.
        await pilot.press("e", "escape", "f")
        await settle(pilot)
        assert app.screen.maximized is fields
        await pilot.press("r")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen.maximized is fields


async def test_the_editor_keys_make_the_fields_tab_active_and_the_footer_say_escape_leaves(
    session_file: Path, reply_file: Path
) -> None:
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(120, 36)) as pilot:
        await compacted(pilot)
        tabs = app.main.query_one(Tabs)
        for key in ("e", "r"):
            assert tabs.active == "tab-input"
            await pilot.press(key)
            await settle(pilot)
            assert isinstance(app.focused, TextArea)
            # The tab bar names the pane shown, so ] goes on from it, not from the input.
            assert tabs.active == "tab-fields", key
            assert app.main.query_one("#pane-fields").has_class("-active")
            footer = app.main.query_one(GooseFooter).render_line(0).text
            assert "esc Leave editor" in footer, footer
            assert "Cancel" not in footer and "Search prompt" not in footer, footer
            await pilot.press("escape")
            await settle(pilot)
            assert not isinstance(app.focused, TextArea), key
            footer = app.main.query_one(GooseFooter).render_line(0).text
            assert "Search prompt" in footer and "Leave editor" not in footer, footer
            await pilot.press("right_square_bracket")
            await settle(pilot)
            assert tabs.active == "tab-markdown", key
            assert app.main.query_one("#pane-markdown").has_class("-active")
            tabs.active = "tab-input"
            await settle(pilot)


async def test_side_by_side_the_editor_stays_beside_the_summary_and_y_copies_the_tab_shown(
    session_file: Path, reply_file: Path
) -> None:
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    copied: list[str] = []
    async with app.run_test(size=(200, 50)) as pilot:
        await compacted(pilot)
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.focused, TextArea)
        assert app.screen.maximized is None
        assert app.main.query_one("#pane-markdown").region.height > 0
        await pilot.press("escape")
        await settle(pilot)
        app.copy_to_clipboard = copied.append  # type: ignore[method-assign]
        fields = app.main.fields
        await pilot.press("r", "escape", "y")
        await settle(pilot)
        assert copied[-1] == fields.reply_editor.text  # the reply, as the tab shows it
        await pilot.press("e", "escape", "y")
        await settle(pilot)
        assert copied[-1] == fields.json_editor.text
    assert copied[0] != copied[1]
