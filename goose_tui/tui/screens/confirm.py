"""Ask yes or no before something that writes outside the app (a template override)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from goose_tui.inert import inert


class ConfirmScreen(ModalScreen[bool]):
    # Every question guards something that replaces or discards (a file, a hand edit): a
    # reflex Enter keeps things as they are; y (or Yes) does it.
    AUTO_FOCUS = "#confirm-no"
    BINDINGS = [
        Binding("escape", "dismiss(False)", "Cancel", id="confirm.no"),
        Binding("y", "dismiss(True)", "Yes", id="confirm.yes"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Content(inert(self.question)), id="confirm-question")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Yes (y)", id="confirm-yes", variant="primary")
                yield Button("No (esc)", id="confirm-no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm-yes")


def confirm_then(
    app: App[Any],
    question: str,
    action: Callable[[], object],
    declined: Callable[[], object] | None = None,
) -> None:
    """Ask ``question`` and run ``action`` on yes (``declined`` on no); nothing while a
    question is already up (a key pressed twice asks once)."""
    if isinstance(app.screen, ConfirmScreen):
        return

    def answered(yes: bool | None) -> None:
        if yes:
            action()
        elif declined is not None:
            declined()

    app.push_screen(ConfirmScreen(question), answered)
