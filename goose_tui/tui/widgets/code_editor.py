"""A TextArea highlighted with pygments (tree-sitter, Textual's own way, is not installed),
in the app theme's colours.

The TextArea draws ``self._highlights`` (line -> (start byte, end byte, name)) with its
theme's ``syntax_styles``; this fills them from ``goose_tui.tui.highlight`` and registers a
TextArea theme whose styles come from the app theme's variables, rebuilt when the theme
changes.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import TextArea
from textual.widgets.text_area import TextAreaTheme

from goose_tui.tui.highlight import highlight_lines, rich_syntax_styles

THEME_NAME = "goose-tui-syntax"


class CodeEditor(TextArea):
    """``syntax`` is a pygments language alias (``json``, ``markdown``)."""

    def __init__(self, text: str = "", *, syntax: str | None = None, **kwargs: Any) -> None:
        self.syntax = syntax
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
        self._line_cache.clear()
        highlights = self._highlights
        highlights.clear()
        if not self.syntax:
            return
        text = self.text
        lines = text.split("\n")
        for number, spans in enumerate(highlight_lines(text, self.syntax)):
            if not spans:
                continue
            line = lines[number]
            for start, end, kind in spans:
                # TextArea highlights are in UTF-8 bytes of the line.
                first = len(line[:start].encode("utf-8"))
                last = first + len(line[start:end].encode("utf-8"))
                highlights[number].append((first, last, kind))
