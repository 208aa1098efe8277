"""A TextArea highlighted with pygments (tree-sitter, Textual's own way, is not installed),
in the app theme's colours.

The TextArea draws ``self._highlights`` (line -> (start byte, end byte, name)) with its
theme's ``syntax_styles``; this fills them from ``goose_tui.tui.highlight`` and registers a
TextArea theme whose styles come from the app theme's variables, rebuilt when the theme
changes.

Two things a big text (the summary JSON and the reply of a 53 MB session) made slow on the
event loop are done differently: a text loaded while the editor is not displayed (its tab
is not the current one) waits until the editor is shown, focused or edited, and the
bracket at the cursor is matched by a regex scan of the lines, not a Python step per
character.
"""

from __future__ import annotations

import re
from typing import Any

from textual import events
from textual.message import Message
from textual.widgets import TextArea
from textual.widgets.text_area import Location, TextAreaTheme

from goose_tui.tui.highlight import highlight_lines, rich_syntax_styles
from goose_tui.tui.widgets.text_viewer import SYNC_HIGHLIGHT_CHARS

Highlight = tuple[int, int | None, str]  # TextArea's: start byte, end byte, name

THEME_NAME = "goose-tui-syntax"

_OPENING = {"{": "}", "[": "]", "(": ")"}
_CLOSING = {closing: opening for opening, closing in _OPENING.items()}
_BRACKET = re.compile(r"[][(){}]")


class CodeEditor(TextArea):
    """``syntax`` is a pygments language alias (``json``, ``markdown``)."""

    def __init__(self, text: str = "", *, syntax: str | None = None, **kwargs: Any) -> None:
        self.syntax = syntax
        self._highlight_generation = 0  # bumped per text: older threads' results are dropped
        # A text loaded while the editor is not displayed: wrapping it and matching the
        # bracket at the cursor took ~0.5 s of the loop after compacting a 53 MB session,
        # for an editor in a tab nobody was looking at.
        self._pending: str | None = None
        super().__init__(text, **kwargs)

    # -- a text loaded while hidden waits -----------------------------------------------

    @property
    def text(self) -> str:
        pending = self._pending
        return pending if pending is not None else self.document.text

    @text.setter
    def text(self, value: str) -> None:
        self.load_text(value)

    def load_text(self, text: str) -> None:
        if self.is_mounted and not self._displayed():
            self._pending = text
            super().load_text("")  # posts Changed, with ``text`` already the new text
            return
        self._pending = None
        super().load_text(text)

    def load_pending(self) -> None:
        """Load the text that waited while the editor was hidden (if any)."""
        if self._pending is not None:
            text, self._pending = self._pending, None
            super().load_text(text)

    async def _on_key(self, event: events.Key) -> None:
        if self.read_only and event.is_printable:
            # Typed into an editor that takes nothing now (a compaction runs): the letters
            # are not the screen's shortcuts either ("EDIT" opened the template editor).
            event.stop()
            event.prevent_default()
            self.app.bell()
            return
        await super()._on_key(event)

    def _displayed(self) -> bool:
        return all(node.display for node in self.ancestors_with_self)

    def on_show(self) -> None:
        self.load_pending()

    def on_focus(self) -> None:
        self.load_pending()

    def edit(self, edit: Any) -> Any:
        self.load_pending()  # an edit applies to the text the user sees
        return super().edit(edit)

    # -- bracket matching -------------------------------------------------------------------

    def find_matching_bracket(self, bracket: str, search_from: Location) -> Location | None:
        """TextArea's rule (a stack of open brackets; a closing bracket pops only its own
        opening one; the first that empties the stack matches), over the brackets a regex
        finds in each line: a summary JSON opening with ``{`` at the cursor walked the
        whole document a character at a time (0.24 s for the 53 MB session's summary)."""
        document = self.document
        row, column = search_from
        if column < 0 and bracket in _OPENING:  # TextArea would index from the line's end
            return super().find_matching_bracket(bracket, search_from)
        stack: list[str] = []
        line_count = document.line_count
        if bracket in _OPENING:
            while 0 <= row < line_count:
                for found in _BRACKET.finditer(document[row], column):
                    character = found[0]
                    if character in _OPENING:
                        stack.append(character)
                    elif stack and stack[-1] == _CLOSING[character]:
                        stack.pop()
                        if not stack:
                            return row, found.start()
                row, column = row + 1, 0
        elif bracket in _CLOSING:
            while 0 <= row < line_count:
                line = document[row]
                end = len(line) if column == -1 else column + 1
                for found in reversed(list(_BRACKET.finditer(line, 0, max(end, 0)))):
                    character = found[0]
                    if character in _CLOSING:
                        stack.append(character)
                    elif stack and stack[-1] == _OPENING[character]:
                        stack.pop()
                        if not stack:
                            return row, found.start()
                row, column = row - 1, -1
        return None

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
        text = self.document.text  # what is shown (not a text waiting while hidden)
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
