"""The app's focus field (issue 14): shown in the input pane, sent with the compaction."""

from __future__ import annotations

from pathlib import Path

from goose_tui.compaction.templates import FOCUS_HEADING
from goose_tui.tui.app import GooseTUI
from goose_tui.tui.widgets.pane import Pane

from .conftest import settle

FOCUS = "the date parser"


async def test_focus_is_shown_in_the_input_pane_and_sent(session_file: Path) -> None:
    app = GooseTUI(session_file)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = app.main
        plain = app.inspector.prompt.text
        await pilot.press("k")
        await settle(pilot)
        await pilot.press(*FOCUS, "enter")
        await settle(pilot)
        assert app.inspector.focus_text == FOCUS
        assert app.inspector.prompt.text == f"{plain}\n\n{FOCUS_HEADING}\n{FOCUS}"
        title = str(main.query_one("#pane-input", Pane).border_title)
        assert title.startswith(f"input · focus: {FOCUS} · ")
        await pilot.press("c")
        await settle(pilot)
        assert app.inspector.result is not None and app.inspector.result.focus == FOCUS
        assert app.inspector.result.request.system_prompt.endswith(FOCUS)
        # escape keeps the focus; an empty answer clears it
        await pilot.press("k")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert app.inspector.focus_text == FOCUS
        await pilot.press("k")
        await settle(pilot)
        await pilot.press("ctrl+u", "enter")
        await settle(pilot)
        assert app.inspector.focus_text == ""
        assert app.inspector.prompt.text == plain
