"""The pane tabs of a narrow terminal follow the keys that open a pane, and a pane's copy is
what its own tab shows."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Tabs

from goose_tui.tui.app import GooseTUI

from .conftest import compacted, settle


async def test_the_editor_keys_make_the_fields_tab_the_active_one(
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
            # The tab bar names the pane shown, so ] goes on from it, not from the input.
            assert tabs.active == "tab-fields", key
            assert app.main.query_one("#pane-fields").has_class("-active")
            await pilot.press("escape", "right_square_bracket")
            await settle(pilot)
            assert tabs.active == "tab-markdown", key
            assert app.main.query_one("#pane-markdown").has_class("-active")
            tabs.active = "tab-input"
            await settle(pilot)


async def test_y_on_the_fields_pane_copies_the_tab_it_shows(
    session_file: Path, reply_file: Path
) -> None:
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    copied: list[str] = []
    async with app.run_test(size=(200, 50)) as pilot:
        await compacted(pilot)
        app.copy_to_clipboard = copied.append  # type: ignore[method-assign]
        fields = app.main.fields
        await pilot.press("r", "escape", "y")
        await settle(pilot)
        assert copied[-1] == fields.reply_editor.text  # the reply, as the tab shows it
        await pilot.press("e", "escape", "y")
        await settle(pilot)
        assert copied[-1] == fields.json_editor.text
    assert copied[0] != copied[1]
