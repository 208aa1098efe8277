"""Choose what to save and where. The app refuses targets that are inputs."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.geometry import Size
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Input, RadioButton, RadioSet, Static

from goose_tui.inert import inert, restore
from goose_tui.saving import SaveKind

LABELS: dict[SaveKind, str] = {
    "json": "summary JSON",
    "markdown": "summary Markdown",
    "session": "compacted session, legacy JSONL (for older Goose, which reads session files)",
    "export": "compacted session, JSON for today's Goose (its session import)",
    "report": "report to share: Markdown, and an HTML page beside it (.html)",
    "goose-db": "add to Goose's sessions.db as a new session (for the Goose CLI; the path is "
    "the database; asks first, backs it up)",
}


class Choice(RadioButton):
    """A radio button whose mark tells chosen from not by its shape (● / ○), not by its
    colour alone (Textual draws the same ● for both), and whose label wraps."""

    def render(self) -> Content:
        self.BUTTON_INNER = "●" if self.value else "○"
        return super().render()

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        # As many lines as the label wraps to (app.tcss), as any widget measures its content:
        # RadioButton's own answer is always one line, which cut the label.
        return Widget.get_content_height(self, container, viewport, width)


class SaveDialog(ModalScreen[tuple[SaveKind, Path] | None]):
    BINDINGS = [Binding("escape", "dismiss", "Cancel", id="save.cancel")]

    def __init__(self, defaults: dict[SaveKind, Path], kind: SaveKind = "json") -> None:
        super().__init__()
        self.defaults = defaults
        self.kind: SaveKind = kind

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("Save (enter writes, atomically; inputs are never overwritten)")
            with RadioSet(id="save-kind"):
                for kind, label in LABELS.items():
                    yield Choice(label, value=kind == self.kind, id=f"save-{kind}")
            # Not selected on focus: the first key typed must not wipe the whole path.
            path = inert(str(self.defaults[self.kind]))
            yield Input(path, id="save-path", select_on_focus=False)
            yield Static(Content(inert("")), id="save-note", classes="dialog-note")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        previous = self.kind
        self.kind = str(event.pressed.id).removeprefix("save-")  # type: ignore[assignment]
        path = self.query_one(Input)
        # Back to the path once a kind is chosen: the dialog says "enter writes", and a
        # second enter on the kinds did nothing.
        path.focus()
        if restore(path.value) != str(self.defaults[previous]):
            return  # a path the user typed stays: choosing the kind must not throw it away
        path.value = inert(str(self.defaults[self.kind]))
        # At the end, as a path typed there: left where the last one ended, the next keys
        # (ctrl+u and a name) would keep the new path's tail after them.
        path.cursor_position = len(path.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        value = restore(event.value.strip())  # the path as it is on disk, not as shown
        if value:
            self.dismiss((self.kind, Path(value)))
        else:  # enter did nothing, and said nothing
            self._note("type a path to save to (escape cancels)")

    def on_input_changed(self, event: Input.Changed) -> None:
        self._note("")

    def _note(self, text: str) -> None:
        self.query_one("#save-note", Static).update(Content(inert(text)))
