"""Going back from an analysis screen to one message of the conversation."""

from __future__ import annotations

from textual.app import App

from goose_tui.tui.widgets.conversation_view import ConversationView


def show_message(app: App, index: int) -> None:
    """Pop back to the inspector and select (highlight and scroll to) message ``index``."""
    main = app.main  # type: ignore[attr-defined]
    while app.screen is not main and len(app.screen_stack) > 1:
        app.pop_screen()
    view = main.query_one(ConversationView)
    view.selected = index
    view.focus()


def summary_label(main: object) -> str:
    """Where the inspector's current summary came from: the model, or a hand edit."""
    result = getattr(main, "result", None)
    text = getattr(main, "summary_text", "")
    if result is not None and text == result.summary:
        return f"summary by {result.model}"
    return "summary edited by hand"
