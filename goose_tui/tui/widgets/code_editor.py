"""A TextArea highlighted with pygments (tree-sitter, Textual's own way, is not installed),
in the app theme's colours.

The TextArea draws ``self._highlights`` (line -> (start byte, end byte, name)) with its
theme's ``syntax_styles``; this fills them from ``goose_tui.tui.highlight`` and registers a
TextArea theme whose styles come from the app theme's variables, rebuilt when the theme
changes.

What a big text (the summary JSON and the reply of a 53 MB session) made slow on the event
loop is done differently: a text loaded while the editor is not displayed (its tab is not
the current one) waits until the editor is shown, focused or edited; a text of over
``SYNC_WRAP_LINES`` lines is split and soft-wrapped in a thread (``tui/wrapping.py``), when
loaded and when the width changes, and keys that would edit it wait for none of that: they
are refused, with a bell, until the text is in; the bracket at the cursor is matched by a
regex scan of the lines, not a Python step per character.
"""

from __future__ import annotations

import re
from typing import Any

from textual import events
from textual.message import Message
from textual.widgets import TextArea
from textual.widgets.text_area import Document, DocumentNavigator, Location, TextAreaTheme

from goose_tui.tui.highlight import highlight_lines, rich_syntax_styles
from goose_tui.tui.widgets.text_viewer import SYNC_HIGHLIGHT_CHARS
from goose_tui.tui.wrapping import FastWrappedDocument, Rows, wrap_rows

Highlight = tuple[int, int | None, str]  # TextArea's: start byte, end byte, name

THEME_NAME = "goose-tui-syntax"

_OPENING = {"{": "}", "[": "]", "(": ")"}
_CLOSING = {closing: opening for opening, closing in _OPENING.items()}
_BRACKET = re.compile(r"[][(){}]")

# ~10 ms of wrapping on the 2-core VM; a text with more lines is split and wrapped in a
# thread (the summary JSON of 50,000 items froze the app 2.5-4 s on its first ``e``).
SYNC_WRAP_LINES = 2_000


class CodeEditor(TextArea):
    """``syntax`` is a pygments language alias (``json``, ``markdown``)."""

    def __init__(self, text: str = "", *, syntax: str | None = None, **kwargs: Any) -> None:
        self.syntax = syntax
        self._highlight_generation = 0  # bumped per text: older threads' results are dropped
        # A text loaded while the editor is not displayed: wrapping it and matching the
        # bracket at the cursor took ~0.5 s of the loop after compacting a 53 MB session,
        # for an editor in a tab nobody was looking at.
        self._pending: str | None = None
        self._wrap_request = 0  # bumped per wrap asked for: older threads' rows are dropped
        self._preparing: str | None = None  # the text a thread splits and wraps now
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
        big = _lines_over(text, SYNC_WRAP_LINES)
        if self.is_mounted and (big or not self._displayed()):
            self._pending = text
            super().load_text("")  # posts Changed, with ``text`` already the new text
            self._prepare_pending()
            return
        self._pending = None
        super().load_text(text)

    def load_pending(self) -> None:
        """Load the text that waits (while the editor was hidden, or in a thread) at once."""
        if self._pending is not None:
            text, self._pending = self._pending, None
            super().load_text(text)

    @property
    def getting_ready(self) -> bool:
        """A text is loaded but not in the editor yet (being split and wrapped)."""
        return self._pending is not None

    def _prepare_pending(self) -> None:
        """Load the waiting text if the editor is displayed: a small one at once, a big one
        split and wrapped in a thread, at the width it will be shown at."""
        text = self._pending
        if text is None or text is self._preparing or not self._displayed():
            return  # shown and focused at once: prepared once
        if not _lines_over(text, SYNC_WRAP_LINES):
            self.load_pending()
            return
        if not self.size.width:  # shown this frame: its size comes with the next layout
            self.call_after_refresh(self._prepare_pending)
            return
        width, tab_width = self._wrap_width_for(text.count("\n") + 1), self.indent_width
        self._preparing = text

        def work() -> None:
            document = Document(text)
            wrapped = FastWrappedDocument(document, width, tab_width)
            self.post_message(self.Prepared(text, document, wrapped))

        self.run_worker(work, thread=True, group="code-editor-load", exclusive=True)

    def _wrap_width_for(self, line_count: int) -> int:
        """The wrap width once a text of ``line_count`` lines is in: without the vertical
        scroll bar it will need (which would wrap it once more)."""
        width, styles = self.wrap_width, self.styles
        if (
            width
            and styles.overflow_y == "auto"
            and not self.scrollbar_size_vertical  # not there, nor kept a place
            and line_count > self.scrollable_content_region.height
        ):
            width = max(0, width - styles.scrollbar_size_vertical)
        return width

    class Prepared(Message):
        """Posted by the loading thread: a text split and wrapped."""

        def __init__(self, text: str, document: Document, wrapped: FastWrappedDocument) -> None:
            super().__init__()
            self.text, self.document, self.wrapped = text, document, wrapped

    def on_code_editor_prepared(self, message: Prepared) -> None:
        message.stop()
        if message.text is self._preparing:
            self._preparing = None
        if message.text is not self._pending:  # another text since, or loaded at once
            return
        self._pending = None
        self.history.clear()
        self._use_document(message.document, message.wrapped)
        # Checked after the next layout, with the scroll bar it needs: a width not the one
        # foreseen wraps it again (in a thread).
        self.call_after_refresh(self._rewrap_and_refresh_virtual_size)
        self.post_message(self.Changed(self).set_sender(self))
        self.update_suggestion()

    async def _on_key(self, event: events.Key) -> None:
        if (self.read_only and event.is_printable) or (
            self.getting_ready
            and (
                event.is_printable
                or event.key == "enter"
                or event.key in self._bindings.key_to_bindings  # delete, undo, moves
            )
        ):
            # Typed into an editor that takes nothing now (a compaction runs, or its text is
            # still being loaded): the letters are not the screen's shortcuts either ("EDIT"
            # opened the template editor), nor are they typed once the text is in.
            event.stop()
            event.prevent_default()
            self.app.bell()
            return
        await super()._on_key(event)

    async def _on_paste(self, event: events.Paste) -> None:
        # TextArea's own handler runs after this one (Textual calls each class's), unless
        # prevented.
        if self.getting_ready:
            event.stop()
            event.prevent_default()
            self.app.bell()

    def _displayed(self) -> bool:
        return all(node.display for node in self.ancestors_with_self)

    def on_show(self) -> None:
        self._prepare_pending()

    def on_focus(self) -> None:
        self._prepare_pending()

    def edit(self, edit: Any) -> Any:
        self.load_pending()  # an edit applies to the text the user sees
        return super().edit(edit)

    # -- the document and its soft wrapping -------------------------------------------------

    def _set_document(self, text: str, language: str | None) -> None:
        if language:  # a tree-sitter document (not installed): TextArea's own
            super()._set_document(text, language)
            return
        document = Document(text)
        self._use_document(document, FastWrappedDocument(document, tab_width=self.indent_width))
        self._rewrap_and_refresh_virtual_size()

    def _use_document(self, document: Document, wrapped: FastWrappedDocument) -> None:
        """What TextArea's ``_set_document`` does once the document is made and wrapped."""
        self._highlight_query = None
        self.document = document
        self.wrapped_document = wrapped
        self.navigator = DocumentNavigator(wrapped)
        self._build_highlight_map()
        self.move_cursor((0, 0))
        self._line_cache.clear()
        self._refresh_size()

    def _rewrap_and_refresh_virtual_size(self) -> None:
        # TextArea wraps the whole text again on each call (a resize, the scroll bar coming,
        # a new text): not when it is wrapped at that width already, and a big text in a
        # thread, keeping the rows it has (edits keep them right) until the new ones come.
        wrapped = self.wrapped_document
        if not isinstance(wrapped, FastWrappedDocument):
            super()._rewrap_and_refresh_virtual_size()
            return
        self._wrap_request += 1
        width, tab_width = self.wrap_width, self.indent_width
        if not wrapped.wrapped_for(width, tab_width):
            lines = self.document.lines
            if len(lines) > SYNC_WRAP_LINES and self.is_attached:
                self._wrap_in_thread(list(lines), width, tab_width)
                return
            wrapped.wrap(width, tab_width)
        self._line_cache.clear()
        self._refresh_size()

    def _wrap_in_thread(self, lines: list[str], width: int, tab_width: int) -> None:
        request = self._wrap_request

        def work() -> None:
            rows = wrap_rows(lines, width, tab_width)
            self.post_message(self.Rewrapped(request, lines, width, tab_width, rows))

        self.run_worker(work, thread=True, group="code-editor-wrap", exclusive=True)

    class Rewrapped(Message):
        """Posted by the wrapping thread: the rows of ``lines`` at ``width``."""

        def __init__(
            self, request: int, lines: list[str], width: int, tab_width: int, rows: Rows
        ) -> None:
            super().__init__()
            self.request, self.lines, self.rows = request, lines, rows
            self.width, self.tab_width = width, tab_width

    def on_code_editor_rewrapped(self, message: Rewrapped) -> None:
        message.stop()
        wrapped = self.wrapped_document
        if message.request != self._wrap_request or not isinstance(wrapped, FastWrappedDocument):
            return  # another width, or another text, asked for since
        if self.document.lines != message.lines:  # edited meanwhile: wrapped again
            self._rewrap_and_refresh_virtual_size()
            return
        wrapped.use_rows(message.width, message.tab_width, message.rows)
        self._line_cache.clear()
        self._refresh_size()
        self.refresh()

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
        text = self.document.text  # what is shown (not a text waiting while hidden or wrapped)
        if not self.syntax or not text:
            self._highlights.clear()
            return
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


def _lines_over(text: str, count: int) -> bool:
    """Whether ``text`` has over ``count`` lines."""
    return len(text) > count and text.count("\n") >= count


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
