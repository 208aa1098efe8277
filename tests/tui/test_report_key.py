"""The report key on the main screen: the save dialog opens on "report", enter writes the
Markdown and the HTML page beside the session (compared with the previous summary), and a
second report there asks before replacing either file."""

from __future__ import annotations

from pathlib import Path

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.screens.confirm import ConfirmScreen
from goose_tui.tui.screens.save_dialog import SaveDialog

from .conftest import settle


async def test_x_writes_the_report_of_the_current_state(
    session_file: Path, reply_file: Path
) -> None:
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("x")  # nothing to report yet: it says how to get a summary
        await settle(pilot)
        assert not isinstance(app.screen, SaveDialog)
        assert "no summary yet" in [n.message for n in app._notifications][-1]
        await pilot.press("c")
        await settle(pilot)
        app.set_model("offline")  # a second summary: the first becomes the one compared
        await pilot.press("c")
        await settle(pilot)

        await pilot.press("x")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, SaveDialog) and dialog.kind == "report"
        assert dialog.query_one("#save-report").value
        await pilot.press("enter")
        await settle(pilot)
        markdown = session_file.with_name("small_session.report.md")
        page = session_file.with_name("small_session.report.html")
        assert [n.message for n in app._notifications][-1] == f"saved {markdown} and {page}"
        text = markdown.read_text(encoding="utf-8")
        assert "- **summary**: summary by offline" in text
        assert "| summary | previous summary | summary by offline |" in text
        assert '<section id="compare">' in page.read_text(encoding="utf-8")

        before = page.read_bytes()
        await pilot.press("x")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert "already exist." in app.screen.question and "Replace them?" in app.screen.question
        await pilot.press("escape")
        await settle(pilot)
        assert page.read_bytes() == before
