"""Help: what the screen shows and every key, read from the live bindings so it cannot go
stale."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.binding import ActiveBinding, Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from goose_tui.tui.widgets.compaction_status import compact_key
from goose_tui.tui.widgets.goose_footer import bound_key

INTRO = """goose-tui shows what Goose's context compaction does with a session.

Top: the context gauge (used / limit tokens, the threshold marker ┃, and whether compaction
is due). Below it the conversation (enter expands a message), then four panes: the prompt
exactly as sent to the summarizer, the analysis the model wrote and Goose discards, the
parsed fields (with JSON and raw-reply editors) and the rendered Markdown summary. In a
terminal narrower than {wide} columns the four panes are tabs: {next_pane} and {previous_pane}
switch them (or click a tab).

Press {compact} to compact with the current model; switch models from the command palette."""


def main_screen_intro(app: App[Any]) -> str:
    """The main screen's help, naming the keys as the user's keymap binds them."""
    from goose_tui.tui.screens.main import PANE_BINDINGS, WIDE_COLUMNS

    next_pane, previous_pane = (bound_key(app, binding) for binding in PANE_BINDINGS)
    return INTRO.format(
        compact=compact_key(app),
        wide=WIDE_COLUMNS,
        next_pane=next_pane,
        previous_pane=previous_pane,
    )


def binding_lines(screen: Screen[object]) -> list[str]:
    """One line per action the screen offers, with every key that does it."""
    keys: dict[str, list[str]] = {}  # description -> keys, in the order they are found

    def rank(active: ActiveBinding) -> tuple[bool, int]:
        # goose-tui's own actions (each has an id) before Textual's scrolling and focus keys;
        # among them the screen's, then the focused widget's, then the app's.
        where = 0 if active.node is screen else 2 if active.node is screen.app else 1
        return active.binding.id is None, where

    for active in sorted(screen.active_bindings.values(), key=rank):
        binding: Binding = active.binding
        if not binding.description:
            continue
        # As people read keys ("?", "/", "⏎"), not Textual's names (question_mark, slash).
        shown = screen.app.get_key_display(binding)
        found = keys.setdefault(binding.description, [])
        if shown not in found:
            found.append(shown)
    return [f"{' / '.join(shown):>12}  {description}" for description, shown in keys.items()]


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape", "dismiss", "Close help", id="help.close"),
        Binding("question_mark", "dismiss", "Close help", id="help.close2", show=False),
    ]

    def __init__(self, under: Screen[object]) -> None:
        super().__init__()
        self.under = under

    def compose(self) -> ComposeResult:
        with Vertical(id="help-dialog"):
            with VerticalScroll():
                # A screen of its own says what it shows (HELP); the inspector, the rest.
                own: str | None = getattr(self.under, "HELP", None)
                text = own or main_screen_intro(self.app)
                # The intro's paragraphs are wrapped in the source: let the dialog wrap them.
                intro = "\n\n".join(p.replace("\n", " ") for p in text.split("\n\n"))
                yield Static(Content(intro), id="help-intro")
                keys = "\n".join(binding_lines(self.under))
                yield Static(Content("Keys\n" + keys), id="help-keys")
