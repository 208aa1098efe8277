"""The templates in use against goose-tui's built-in ones and Goose's own (as released): the
unified diffs, highlighted."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding

from goose_tui.inert import inert
from goose_tui.tui.screens.analysis import AnalysisScreen
from goose_tui.tui.widgets.goose_footer import GooseFooter
from goose_tui.tui.widgets.text_viewer import TextViewer


class TemplateDiffScreen(AnalysisScreen):
    HELP = (  # what `?` says this screen shows (screens/help.py)
        "The two templates in use (prompt and summary), each as a unified diff against "
        "goose-tui's built-in copy and against Goose's own as released: - lines are theirs, "
        "+ lines the one in use."
    )
    BINDINGS = [
        Binding("escape", "back", "Back", id="template_diff.back"),
        Binding("y", "copy_diff", "Copy diff", id="template_diff.copy"),
    ]

    def __init__(self, diffs: str) -> None:
        super().__init__()
        self.diffs = diffs

    def compose(self) -> ComposeResult:
        yield TextViewer(inert(self.diffs), id="template-diff", syntax="diff", wrap=True)
        yield GooseFooter()

    def on_mount(self) -> None:
        self.query_one(TextViewer).focus()

    def action_copy_diff(self) -> None:
        from goose_tui.tui.clipboard import copy_text

        copy_text(self.app, self.diffs, "the template diffs")
