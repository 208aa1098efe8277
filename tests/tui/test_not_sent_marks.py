"""The app shows every message, and marks what the summarizer does not receive (issue 10):
agent-invisible history, turn-context messages, user-only content items (Goose's
agent_visible_content, crates/goose/src/conversation/message.rs)."""

from __future__ import annotations

from pathlib import Path

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.widgets.conversation_view import ConversationView
from goose_tui.tui.widgets.text_viewer import TextViewer
from tests.tui.conftest import settle

V13 = Path(__file__).parents[1] / "fixtures" / "goose" / "sessions-v13.db"


async def test_hidden_messages_and_items_are_shown_marked_not_sent() -> None:
    app = GooseTUI(V13, session_id="20251009_1")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        view = app.main.query_one(ConversationView)
        rows = [view.row_text(i) for i in range(view.row_count)]
        headers = [r for r in rows if r.startswith("#")]
        assert len(headers) == 10  # every message is shown
        assert sum("(not agent-visible: not sent)" in h for h in headers) == 2
        # No share of a context the message is not in.
        assert not any("%" in h for h in headers if "not agent-visible" in h)
        assert sum("(turn context: not sent)" in h for h in headers) == 1
        assert any("The rounding test fails, can you look?" in r for r in rows)
        # The doubled shell output: the tool response row carries the mark, because its
        # user copy is cut before the summarizer sees it.
        assert sum("(user only: not sent)" in r for r in rows) == 1
        prompt = app.main.query_one("#input-view", TextViewer).text
        assert prompt.count("test_rounding FAILED") == 1
        assert "<turn-context>" not in prompt
        assert "The rounding test fails, can you look?" not in prompt


async def test_picker_lists_what_goose_session_list_shows() -> None:
    app = GooseTUI(V13)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        picker = app.screen
        assert type(picker).__name__ == "SessionPicker"
        assert [s.id for s in picker.sessions] == ["20251009_1", "20251009_2"]
    app = GooseTUI(V13, all_sessions=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert len(app.screen.sessions) == 5


async def test_the_header_columns_line_up_with_or_without_a_time() -> None:
    # A walk-through: a message without `created` showed "—" in place of a 16-character
    # time, and "#10" took a column more than "#9": the token column wandered.
    from textual.app import App, ComposeResult

    from goose_tui.session.models import Message

    messages = [
        Message.model_validate(
            {
                "role": "user" if n % 2 else "assistant",
                "created": None if n % 3 == 0 else 1730000000 + n,
                "content": [{"type": "text", "text": f"message {n}"}],
            }
        )
        for n in range(12)
    ]

    class Bare(App[None]):
        def compose(self) -> ComposeResult:
            yield ConversationView()

    app = Bare()
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(ConversationView)
        view.set_messages(messages)
        view.set_token_counts([5 + n for n in range(12)], 200)
        await pilot.pause()
        headers = [view.row_text(r) for r in range(view.row_count)]
        headers = [h for h in headers if h.startswith("#")]
        assert len(headers) == 12
        assert "—" in headers[0] and "2024-" in headers[1]
        assert len({h.index(" tok ") for h in headers}) == 1, headers
        assert len({h.index("user") if "user" in h else h.index("assistant") for h in headers}) == 1
