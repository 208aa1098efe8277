"""The gauge's detail (issue 14): the context broken down, and a category's messages marked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import DataTable

from goose_tui.analysis.breakdown import context_breakdown
from goose_tui.session.loader import load_session
from goose_tui.tui.app import GooseTUI, bundled_sample
from goose_tui.tui.screens.context_screen import ContextScreen
from goose_tui.tui.widgets.conversation_view import ConversationView

from .conftest import settle


async def test_clicking_the_gauge_or_u_shows_the_breakdown_and_enter_marks_the_category() -> None:
    session = load_session(bundled_sample())
    expected = context_breakdown(session)
    tool_output = expected.category("tool_output")
    app = GooseTUI(bundled_sample())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.click("#gauge")
        await settle(pilot)
        assert isinstance(app.screen, ContextScreen)
        await pilot.press("escape")
        assert app.screen is app.main
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


@pytest.mark.parametrize("recorded_system_prompt", [False, True])
async def test_the_conversation_list_shows_each_message_as_the_breakdown_does(
    tmp_path: Path, recorded_system_prompt: bool
) -> None:
    # Goose's estimate of one message is count_chat_tokens("", [message], []), which adds the
    # 3-token reply primer (crates/goose/src/token_counter.rs); the breakdown (`u`) and the
    # timeline show that figure. The list showed it without the primer, and its share was of
    # its own sum, so the same message read 1,828 tokens in the list and 1,831 in `u`. The
    # share is of the breakdown's total in context, a recorded system prompt included.
    path = bundled_sample()
    if recorded_system_prompt:
        path = tmp_path / "chat.json"
        chat = [{"role": "system", "content": "You are a careful agent. " * 40}]
        chat += [
            {"role": role, "content": f"message {n}: " + "words " * (n * 7)}
            for n, role in enumerate(["user", "assistant"] * 3)
        ]
        path.write_text(json.dumps(chat), encoding="utf-8")
    expected = context_breakdown(load_session(path))
    assert expected.category("system_prompt").recorded == recorded_system_prompt
    app = GooseTUI(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        view = app.main.query_one(ConversationView)
        for heavy in expected.heaviest:
            header = view._header(heavy.index)
            assert f"{heavy.tokens:>7,} tok" in header, (heavy, header)
            assert f" {heavy.share:5.1%}" in header, (heavy, header)
