"""A TextArea for the summary JSON and the reply, highlighted with pygments in the app
theme's colours, that stays responsive on a big text.

Highlighting: ``get_line`` (TextArea's hook for styling a line) colours each line with the
spans ``goose_tui.tui.highlight`` found, in a thread for a long text; the previous spans stay
until the new ones arrive. Tree-sitter (``textual[syntax]``) is not used: TextArea queries
the whole tree again after every edit, which a big summary JSON cannot afford per key.

A big text: one loaded while the editor is not displayed (its tab is not the current one)
waits until the editor is shown, focused or edited; one of over ``SYNC_WRAP_LINES`` lines is
split and soft-wrapped in a thread, when loaded and when the width changes
(``tui/wrapping.py``), and keys that would edit it are refused, with a bell, until it is in.
The bracket at the cursor is matched by a regex scan of the lines, not a step per character.
"""

from __future__ import annotations

import re
from typing import Any

from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.widgets import TextArea
from textual.widgets.text_area import Document, DocumentNavigator, Location

from goose_tui.tui.highlight import LineSpans, highlight_lines, rich_syntax_styles
from goose_tui.tui.widgets.text_viewer import SYNC_HIGHLIGHT_CHARS
from goose_tui.tui.wrapping import SYNC_WRAP_LINES, RowCountedDocument

_OPENING = {"{": "}", "[": "]", "(": ")"}
_CLOSING = {closing: opening for opening, closing in _OPENING.items()}
_BRACKET = re.compile(r"[][(){}]")


class CodeEditor(TextArea):
    """``syntax`` is a pygments language alias (``json``, ``markdown``)."""

    def __init__(self, text: str = "", *, syntax: str | None = None, **kwargs: Any) -> None:
        self.syntax = syntax
        self.spans: dict[int, LineSpans] = {}  # per line: where each syntax kind is
        self.syntax_styles: dict[str, Style] = {}
        self.highlight_generation = 0  # bumped per text: older threads' spans are dropped
        self.pending_text: str | None = None  # loaded, not in the editor yet
        self.preparing: str | None = None  # the text a thread splits and wraps now
        self.wrap_request = 0  # bumped per wrap asked for: older threads' rows are dropped
        super().__init__(text, **kwargs)

    # -- a text loaded while hidden waits -----------------------------------------------

    @property
    def text(self) -> str:
        pending = self.pending_text
        return pending if pending is not None else self.document.text

    @text.setter
    def text(self, value: str) -> None:
        self.load_text(value)

    def load_text(self, text: str) -> None:
        if self.is_mounted and (_lines_over(text, SYNC_WRAP_LINES) or not self._displayed()):
            self.pending_text = text
            self._load(Document(""))  # Changed is posted with ``text`` already the new text
            self._prepare_pending()
            return
        self.pending_text = None
        self._load(Document(text))

    def _load(self, document: Document, wrapped: RowCountedDocument | None = None) -> None:
        """What TextArea's ``load_text`` does, with a document that may be wrapped already."""
        self.history.clear()
        self._use_document(
            document, wrapped or RowCountedDocument(document, self.wrap_width, self.indent_width)
        )
        self.post_message(self.Changed(self).set_sender(self))
        self.update_suggestion()

    def load_pending(self) -> None:
        """Load the text that waits (while the editor was hidden, or in a thread) at once."""
        if self.pending_text is not None:
            text, self.pending_text = self.pending_text, None
            self._load(Document(text))

    @property
    def getting_ready(self) -> bool:
        """A text is loaded but not in the editor yet (being split and wrapped)."""
        return self.pending_text is not None

    def _prepare_pending(self) -> None:
        """Load the waiting text if the editor is displayed: a small one at once, a big one
        split and wrapped in a thread, at the width it will be shown at."""
        text = self.pending_text
        if text is None or text is self.preparing or not self._displayed():
            return  # shown and focused at once: prepared once
        if not _lines_over(text, SYNC_WRAP_LINES):
            self.load_pending()
            return
        if not self.size.width:  # shown this frame: its size comes with the next layout
            self.call_after_refresh(self._prepare_pending)
            return
        width, tab_width = self._wrap_width_for(text.count("\n") + 1), self.indent_width
        self.preparing = text

        def work() -> None:
            document = Document(text)
            wrapped = RowCountedDocument(document, width, tab_width)
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

        def __init__(self, text: str, document: Document, wrapped: RowCountedDocument) -> None:
            super().__init__()
            self.text, self.document, self.wrapped = text, document, wrapped

    def on_code_editor_prepared(self, message: Prepared) -> None:
        message.stop()
        if message.text is self.preparing:
            self.preparing = None
        if message.text is not self.pending_text:  # another text since, or loaded at once
            return
        self.pending_text = None
        self._load(message.document, message.wrapped)
        # Checked after the next layout, with the scroll bar it needs: a width not the one
        # foreseen wraps it again (in a thread).
        self.call_after_refresh(self._wrap_at_width)

    def on_key(self, event: events.Key) -> None:
        if (self.read_only and event.is_printable) or (
            self.getting_ready
            and (event.is_printable or event.key == "enter" or self._binds(event.key))
        ):
            # Typed into an editor that takes nothing now (a compaction runs, or its text is
            # still being loaded): the letters are not the screen's shortcuts either, nor
            # are they typed once the text is in.
            event.stop()
            event.prevent_default()
            self.app.bell()

    def _binds(self, key: str) -> bool:
        """Whether ``key`` is one of the editor's own bindings (delete, undo, moves)."""
        active = self.screen.active_bindings.get(key)
        return active is not None and active.node is self

    def on_paste(self, event: events.Paste) -> None:
        # TextArea's own handler runs after this one unless prevented.
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

    def _use_document(self, document: Document, wrapped: RowCountedDocument) -> None:
        """Show ``document`` with the rows ``wrapped`` has."""
        self.wrap_request += 1  # rows a thread wraps for the previous text are dropped
        self.document = document
        self._use_rows(wrapped)
        self.move_cursor((0, 0))  # highlighted once TextArea.Changed comes

    def _use_rows(self, wrapped: RowCountedDocument) -> None:
        wrapped.rewrap_elsewhere = self._wrap_in_thread
        self.wrapped_document = wrapped
        self.navigator = DocumentNavigator(wrapped)
        self._rows_changed()

    def _rows_changed(self) -> None:
        self.notify_style_update()  # drops the lines TextArea drew with the old rows
        if self.soft_wrap:
            self.virtual_size = Size(0, self.wrapped_document.height)
        else:  # one more column: the cursor rests after the end of the longest line
            width, height = self.document.get_size(self.indent_width)
            self.virtual_size = Size(width + self.gutter_width + 1, height)
        self.refresh()

    def _wrap_at_width(self) -> None:
        self.wrapped_document.wrap(self.wrap_width, self.indent_width)

    def _wrap_in_thread(self, width: int, tab_width: int) -> None:
        self.wrap_request += 1
        request, lines = self.wrap_request, list(self.document.lines)

        def work() -> None:
            wrapped = RowCountedDocument(Document("\n".join(lines)), width, tab_width)
            self.post_message(self.Rewrapped(request, lines, wrapped))

        self.run_worker(work, thread=True, group="code-editor-wrap", exclusive=True)

    class Rewrapped(Message):
        """Posted by the wrapping thread: ``lines`` wrapped at another width."""

        def __init__(self, request: int, lines: list[str], wrapped: RowCountedDocument) -> None:
            super().__init__()
            self.request, self.lines, self.wrapped = request, lines, wrapped

    def on_code_editor_rewrapped(self, message: Rewrapped) -> None:
        message.stop()
        if message.request != self.wrap_request or message.wrapped.wrapped_at != (
            self.wrap_width,
            self.indent_width,
        ):
            return  # another text, or another width, since
        if self.document.lines != message.lines:  # edited meanwhile: wrapped again
            self._wrap_in_thread(*message.wrapped.wrapped_at or (0, self.indent_width))
            return
        message.wrapped.document = self.document
        self._use_rows(message.wrapped)

    # -- bracket matching -------------------------------------------------------------------

    def find_matching_bracket(self, bracket: str, search_from: Location) -> Location | None:
        """TextArea's rule (a stack of open brackets; a closing bracket pops only its own
        opening one; the first that empties the stack matches), over the brackets a regex
        finds in each line: a summary JSON opening with ``{`` at the cursor is not walked a
        character at a time."""
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

    # -- highlighting -----------------------------------------------------------------------

    def on_mount(self) -> None:
        self._use_app_theme()
        self.app.theme_changed_signal.subscribe(self, lambda _: self._use_app_theme())

    def _use_app_theme(self) -> None:
        self.syntax_styles = rich_syntax_styles(self.app.theme_variables)
        self._highlight()

    def get_line(self, line_index: int) -> Text:
        line = super().get_line(line_index)
        styles = self.syntax_styles
        for start, end, kind in self.spans.get(line_index, ()):
            style = styles.get(kind)
            if style is not None:
                line.stylize(style, start, end)
        return line

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if event.text_area is self:  # an edit, an undo, a text loaded
            self._highlight()

    def _highlight(self) -> None:
        """Find the spans of the text shown: a text over SYNC_HIGHLIGHT_CHARS in a thread
        (pygments takes seconds a megabyte), the previous spans staying until then."""
        self.highlight_generation += 1
        text = self.document.text  # not a text waiting while hidden or being wrapped
        if not self.syntax or not text:
            self._use_spans({})
            return
        if len(text) <= SYNC_HIGHLIGHT_CHARS or not self.is_attached:
            self._use_spans(_spans_by_line(text, self.syntax))
            return
        generation, syntax = self.highlight_generation, self.syntax

        def work() -> None:
            self.post_message(self.Highlighted(generation, _spans_by_line(text, syntax)))

        self.run_worker(work, thread=True, group="code-editor-highlight", exclusive=True)

    class Highlighted(Message):
        """Posted by the highlighting thread: the spans of one text."""

        def __init__(self, generation: int, spans: dict[int, LineSpans]) -> None:
            super().__init__()
            self.generation, self.spans = generation, spans

    def on_code_editor_highlighted(self, message: Highlighted) -> None:
        message.stop()
        if message.generation == self.highlight_generation:
            self._use_spans(message.spans)

    def _use_spans(self, spans: dict[int, LineSpans]) -> None:
        self.spans = spans
        self.notify_style_update()  # drops the lines TextArea drew with the old spans
        self.refresh()


def _lines_over(text: str, count: int) -> bool:
    """Whether ``text`` has over ``count`` lines."""
    return len(text) > count and text.count("\n") >= count


def _spans_by_line(text: str, syntax: str) -> dict[int, LineSpans]:
    """pygments spans of ``text``, by line (lines without any left out)."""
    return {number: spans for number, spans in enumerate(highlight_lines(text, syntax)) if spans}
