"""The gauge's detail (issue 14): the context broken down, and a category's messages marked."""

from __future__ import annotations

from textual.widgets import DataTable

from goose_tui.analysis.breakdown import context_breakdown
from goose_tui.session.loader import load_session
from goose_tui.tui.app import GooseTUI, bundled_sample
from goose_tui.tui.screens.context_screen import ContextScreen
from goose_tui.tui.widgets.conversation_view import ConversationView

from .conftest import settle


async def test_u_shows_the_breakdown_and_enter_marks_the_category() -> None:
    session = load_session(bundled_sample())
    expected = context_breakdown(session)
    tool_output = expected.category("tool_output")
    app = GooseTUI(bundled_sample())
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await pilot.press("u")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ContextScreen)
        table = screen.query_one("#context-categories", DataTable)
        labels = [str(table.get_row_at(r)[0]) for r in range(table.row_count)]
        assert labels[:2] == ["system prompt", "tool schemas"]
        row = labels.index("tool output")
        assert str(table.get_row_at(row)[1]) == f"{tool_output.tokens:,}"
        heavy = screen.query_one("#context-heaviest", DataTable)
        assert heavy.row_count == 10
        assert str(heavy.get_row_at(0)[0]) == f"#{expected.heaviest[0].index + 1}"
        for _ in range(row):
            await pilot.press("down")
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is app.main
        view = app.main.query_one(ConversationView)
        assert view.highlighted == tool_output.messages
        assert view.selected == tool_output.messages[0]
        await pilot.press("n")
        assert view.selected == tool_output.messages[1]
        await pilot.press("N", "N")
        assert view.selected == tool_output.messages[-1]  # wraps around


async def test_clicking_the_gauge_opens_the_breakdown() -> None:
    app = GooseTUI(bundled_sample())
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await pilot.click("#gauge")
        await settle(pilot)
        assert isinstance(app.screen, ContextScreen)
        await pilot.press("escape")
        assert app.screen is app.main
