"""`?` lists the screen's own actions first: the keys of the focused widget (the conversation's
scrolling) and the app's (focus, copy) come after them, so a small terminal shows what the
screen is for without scrolling."""

from __future__ import annotations

from pathlib import Path

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.screens.help import HelpScreen

from .conftest import settle


async def test_help_names_the_screens_actions_before_scrolling_keys(session_file: Path) -> None:
    app = GooseTUI(session_file)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.main.query_one("#conversation").focus()
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        lines = str(app.screen.query_one("#help-keys").render()).splitlines()
    actions = [line.split(maxsplit=1)[-1] for line in lines[1:]]  # after the "Keys" heading
    assert actions.index("Compact") < actions.index("Previous message"), actions
    assert actions.index("Expand message") < actions.index("Scroll Left"), actions
    assert actions.index("Edit JSON") < actions.index("Focus Next"), actions
