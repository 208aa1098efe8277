"""Ask for one line of text (a model string, a replay file, a save path)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from goose_tui.inert import inert, restore


class InputPrompt(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "dismiss", "Cancel", id="prompt.cancel")]

    def __init__(
        self, question: str, value: str = "", *, note: str = "", allow_empty: bool = False
    ) -> None:
        super().__init__()
        self.question, self.value, self.note = question, value, note
        # With allow_empty an empty answer is "" (clear), escape still None (keep).
        self.allow_empty = allow_empty

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Content(inert(self.question)), classes="dialog-question")
            yield Input(inert(self.value), id="prompt-input")
            if self.note:
                yield Static(Content(inert(self.note)), classes="dialog-note")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        value = restore(event.value.strip())
        self.dismiss(value if value or self.allow_empty else None)
