"""The rendered summary: a Markdown preview, or its source, toggled with ``m``.

Links in model output must not open a browser on their own: the preview is built with
``open_links=False`` and a click only tells the user where the link points."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.reactive import reactive
from textual.widgets import ContentSwitcher, Markdown

from goose_tui.tui.inert import inert
from goose_tui.tui.widgets.text_viewer import TextViewer


class SummaryPreview(Vertical, can_focus=False):
    BINDINGS = [
        Binding("m", "toggle_source", "Preview/source", id="preview.toggle_source"),
    ]

    show_source: reactive[bool] = reactive(False)

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._markdown = ""

    @property
    def markdown(self) -> str:
        return self._markdown

    def compose(self) -> ComposeResult:
        with ContentSwitcher(initial="preview-markdown"):
            yield Markdown("", id="preview-markdown", open_links=False)
            yield TextViewer(id="preview-source", placeholder="no summary yet")

    def set_markdown(self, text: str) -> None:
        self._markdown = text
        self.query_one("#preview-markdown", Markdown).update(inert(text))
        self.query_one("#preview-source", TextViewer).set_text(text)

    def watch_show_source(self, show: bool) -> None:
        switcher = self.query_one(ContentSwitcher)
        switcher.current = "preview-source" if show else "preview-markdown"

    def action_toggle_source(self) -> None:
        self.show_source = not self.show_source

    def on_markdown_link_clicked(self, event: Markdown.LinkClicked) -> None:
        event.stop()
        self.notify(f"link not opened: {inert(event.href)}", markup=False)
