"""The one place errors are shown: a modal with the message, a copy button, and a way back.
The app keeps running underneath. ``MessageModal`` is that dialog for any message a user may
want to copy (goose_db_added.py)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from goose_tui.inert import inert


def message_bindings(prefix: str, copy: str) -> list[BindingType]:
    """A message modal's keys, under ``prefix``'s binding ids (the ones a keymap names)."""
    return [
        Binding("escape", "dismiss", "Close", id=f"{prefix}.close"),
        # Enter closes it too, unless a button has the focus (then it presses that button).
        Binding("enter", "dismiss", "Close", show=False, id=f"{prefix}.close_enter"),
        Binding("y", "copy", copy, id=f"{prefix}.copy"),
        # A copy the terminal dropped says "Press W to save it to a file": here too.
        Binding("W", "app.save_last_copy", "Save the copy", show=False, id=f"{prefix}.save_copy"),
    ]


class MessageModal(ModalScreen[None]):
    """``message`` under ``title``, with Copy (``copy``, named ``copy_what`` when copied) and
    Close buttons. The widgets' ids start with ``ID``, which app.tcss styles."""

    ID = ""
    DIALOG_CLASSES = "dialog"
    BUTTONS_CLASSES = "dialog-buttons"
    COPY_LABEL, CLOSE_LABEL = "Copy", "Close"

    def __init__(self, title: str, message: str, copy: str, copy_what: str) -> None:
        super().__init__()
        self.error_title, self.message = title, message
        self.copy, self.copy_what = copy, copy_what

    def compose(self) -> ComposeResult:
        with Vertical(id=f"{self.ID}-dialog", classes=self.DIALOG_CLASSES):
            yield Label(Content(inert(self.error_title)), id=f"{self.ID}-title")
            with VerticalScroll(id=f"{self.ID}-body"):
                yield Static(Content(inert(self.message)), id=f"{self.ID}-message")
            with Horizontal(id=f"{self.ID}-buttons", classes=self.BUTTONS_CLASSES):
                yield Button(self.COPY_LABEL, id=f"{self.ID}-copy", variant="primary")
                yield Button(self.CLOSE_LABEL, id=f"{self.ID}-close")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == f"{self.ID}-copy":
            self.action_copy()
        else:
            self.dismiss(None)

    def action_copy(self) -> None:
        from goose_tui.tui.clipboard import copy_text

        copy_text(self.app, self.copy, self.copy_what)


class ErrorModal(MessageModal):
    ID, DIALOG_CLASSES, BUTTONS_CLASSES = "error", "", ""
    BINDINGS = message_bindings("error", "Copy error")

    def __init__(self, title: str, message: str) -> None:
        super().__init__(title, message, f"{title}\n{message}", "the error")
