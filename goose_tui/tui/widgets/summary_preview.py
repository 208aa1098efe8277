"""The rendered summary: a Markdown preview, or its source, toggled with ``m``.

Textual's ``Markdown`` widget builds one widget per block and took seconds to update on a
20 KB summary (~130 blocks). The preview instead renders the text once with Rich's Markdown
into lines at the pane's width and serves them through the line API; a width change renders
again. Rich's Markdown parses Markdown, not Rich markup, so ``[bold]x[/]`` shows literally;
control characters are made inert first; ``hyperlinks=False`` writes a link as its text and
address, so nothing is clickable and no OSC 8 sequence reaches the terminal.
"""

from __future__ import annotations

from rich.markdown import Markdown as RichMarkdown
from rich.segment import Segment
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import ContentSwitcher

from goose_tui.tui.inert import inert
from goose_tui.tui.widgets.text_viewer import TextViewer


class MarkdownLines(ScrollView, can_focus=True):
    """Markdown rendered by Rich into lines, re-rendered only when the text or width changes."""

    DEFAULT_CSS = """
    MarkdownLines { background: $surface; overflow-x: hidden; }
    MarkdownLines > .markdown-lines--placeholder { color: $text-muted; text-style: italic; }
    """
    COMPONENT_CLASSES = {"markdown-lines--placeholder"}

    def __init__(
        self, *, placeholder: str = "", id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(id=id, classes=classes)
        self._placeholder = placeholder
        self._markdown: RichMarkdown | None = None
        self._strips: list[Strip] = []
        self._rendered_width = -1  # the width self._strips were rendered at

    def set_markdown(self, text: str) -> None:
        self._markdown = RichMarkdown(inert(text), hyperlinks=False) if text else None
        self._rendered_width = -1
        if self.is_mounted and self._width:
            self._render_lines(self._width)  # now, so the virtual size is right at once
        self.refresh()

    @property
    def lines(self) -> list[Strip]:
        """The rendered lines (for tests)."""
        return self._strips

    def _render_lines(self, width: int) -> None:
        self._rendered_width = width
        if self._markdown is None:
            self._strips = []
        else:
            console = self.app.console
            options = self.app.console_options.update(width=width, height=None, highlight=False)
            lines = console.render_lines(self._markdown, options, style=self.rich_style)
            self._strips = [Strip(line, width) for line in lines]
        self.virtual_size = Size(width, len(self._strips))

    @property
    def _width(self) -> int:
        # The width left beside the vertical scrollbar, so lines never need a horizontal one.
        return self.scrollable_content_region.width

    def on_resize(self) -> None:
        if self._width != self._rendered_width:
            self._render_lines(self._width)
            self.refresh()

    def render_line(self, y: int) -> Strip:
        width = self._width
        if width != self._rendered_width:
            self._render_lines(width)
        base = self.rich_style
        number = self.scroll_offset.y + y
        if not self._strips:
            if y == 0 and self._placeholder:
                style = base + self.get_component_rich_style("markdown-lines--placeholder")
                return Strip([Segment(self._placeholder, style)]).crop_extend(0, width, base)
            return Strip.blank(width, base)
        if number >= len(self._strips):
            return Strip.blank(width, base)
        return self._strips[number]


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
            yield MarkdownLines(id="preview-markdown", placeholder="no summary yet")
            yield TextViewer(id="preview-source", placeholder="no summary yet")

    def set_markdown(self, text: str) -> None:
        self._markdown = text
        self.query_one("#preview-markdown", MarkdownLines).set_markdown(text)
        self.query_one("#preview-source", TextViewer).set_text(text)

    def watch_show_source(self, show: bool) -> None:
        switcher = self.query_one(ContentSwitcher)
        switcher.current = "preview-source" if show else "preview-markdown"

    def action_toggle_source(self) -> None:
        self.show_source = not self.show_source
