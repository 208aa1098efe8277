"""A TextArea highlighted with pygments (tree-sitter, Textual's own way, is not installed),
in the app theme's colours.

The TextArea draws ``self._highlights`` (line -> (start byte, end byte, name)) with its
theme's ``syntax_styles``; this fills them from ``goose_tui.tui.highlight`` and registers a
TextArea theme whose styles come from the app theme's variables, rebuilt when the theme
changes.
"""

from __future__ import annotations

from typing import Any

from textual.message import Message
from textual.widgets import TextArea
from textual.widgets.text_area import TextAreaTheme

from goose_tui.tui.highlight import highlight_lines, rich_syntax_styles
from goose_tui.tui.widgets.text_viewer import SYNC_HIGHLIGHT_CHARS

Highlight = tuple[int, int | None, str]  # TextArea's: start byte, end byte, name

THEME_NAME = "goose-tui-syntax"


class CodeEditor(TextArea):
    """``syntax`` is a pygments language alias (``json``, ``markdown``)."""

    def __init__(self, text: str = "", *, syntax: str | None = None, **kwargs: Any) -> None:
        self.syntax = syntax
        self._highlight_generation = 0  # bumped per text: older threads' results are dropped
        super().__init__(text, **kwargs)

    def on_mount(self) -> None:
        self._use_app_theme()
        self.app.theme_changed_signal.subscribe(self, lambda _: self._use_app_theme())

    def _use_app_theme(self) -> None:
        styles = rich_syntax_styles(self.app.theme_variables)
        self.register_theme(TextAreaTheme(name=THEME_NAME, syntax_styles=styles))
        self.theme = THEME_NAME
        self._build_highlight_map()
        self.refresh()

    def _build_highlight_map(self) -> None:
        # TextArea calls this after every edit. pygments takes ~3 s a MB, so a text over
        # SYNC_HIGHLIGHT_CHARS is highlighted in a thread: the previous highlights stay
        # until the new ones arrive (for the text they were computed for), and keys go on.
        self._line_cache.clear()
        self._highlight_generation += 1
        if not self.syntax:
            self._highlights.clear()
            return
        text = self.text
        if len(text) <= SYNC_HIGHLIGHT_CHARS or not self.is_attached:
            self._use_highlights(_byte_highlights(text, self.syntax))
            return
        generation, syntax = self._highlight_generation, self.syntax

        def work() -> None:
            self.post_message(self.Highlighted(generation, _byte_highlights(text, syntax)))

        self.run_worker(work, thread=True, group="code-editor-highlight", exclusive=True)

    class Highlighted(Message):
        """Posted by the highlighting thread: the highlights of one text."""

        def __init__(self, generation: int, highlights: dict[int, list[Highlight]]) -> None:
            super().__init__()
            self.generation = generation
            self.highlights = highlights

    def on_code_editor_highlighted(self, message: Highlighted) -> None:
        message.stop()
        if message.generation == self._highlight_generation:
            self._use_highlights(message.highlights)
            self._line_cache.clear()
            self.refresh()

    def _use_highlights(self, found: dict[int, list[Highlight]]) -> None:
        highlights = self._highlights
        highlights.clear()
        highlights.update(found)


def _byte_highlights(text: str, syntax: str) -> dict[int, list[Highlight]]:
    """pygments spans of ``text`` as TextArea highlights: per line, in UTF-8 bytes."""
    found: dict[int, list[Highlight]] = {}
    lines = text.split("\n")
    for number, spans in enumerate(highlight_lines(text, syntax)):
        if not spans:
            continue
        line = lines[number]
        found[number] = [
            (
                first := len(line[:start].encode("utf-8")),
                first + len(line[start:end].encode("utf-8")),
                kind,
            )
            for start, end, kind in spans
        ]
    return found
