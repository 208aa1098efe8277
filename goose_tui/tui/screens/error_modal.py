"""The one place errors are shown: a modal with the message, a copy button, and a way back.
The app keeps running underneath."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from goose_tui.inert import inert


class ErrorModal(ModalScreen[None]):
    BINDINGS = [
        Binding("escape", "dismiss_modal", "Close", id="error.close"),
        # Enter closes it too, unless a button has the focus (then it presses that button).
        Binding("enter", "dismiss_modal", "Close", show=False, id="error.close_enter"),
        Binding("y", "copy", "Copy error", id="error.copy"),
        # A copy the terminal dropped says "Press W to save it to a file": here too.
        Binding("W", "app.save_last_copy", "Save the copy", show=False, id="error.save_copy"),
    ]

    def __init__(self, title: str, message: str) -> None:
        super().__init__()
        self.error_title = title
        self.message = message

    def compose(self) -> ComposeResult:
        with Vertical(id="error-dialog"):
            yield Label(Content(inert(self.error_title)), id="error-title")
            with VerticalScroll(id="error-body"):
                yield Static(Content(inert(self.message)), id="error-message")
            with Horizontal(id="error-buttons"):
                yield Button("Copy", id="error-copy", variant="primary")
                yield Button("Close", id="error-close")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "error-copy":
            self.action_copy()
        else:
            self.dismiss(None)

    def action_copy(self) -> None:
        from goose_tui.tui.clipboard import copy_text

        copy_text(self.app, f"{self.error_title}\n{self.message}", "the error")

    def action_dismiss_modal(self) -> None:
        self.dismiss(None)
