"""A read-only text pane on Textual's line API: only visible lines are styled, so a system
prompt built from a session of tens of MB scrolls as smoothly as a short one."""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator
from functools import lru_cache
from itertools import accumulate

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style as RichStyle
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.worker import get_current_worker

from goose_tui.inert import INVISIBLE, inert
from goose_tui.pieces import Pieces, Text, join_slice, line_windows, parts_of
from goose_tui.tui.highlight import highlight_lines, syntax_classes, syntax_css

# (start, end, component class) for one line.
Spans = list[tuple[int, int, str]]
# Where each wrapped line's rows start (lines whose rows are not width characters each), and
# the first row of each line with the rows in all.
Wrap = tuple[dict[int, list[int]], tuple["array[int]", int]]
Highlighter = Callable[[str], Spans]
MAX_MATCHES = 10_000
SYNC_HIGHLIGHT_CHARS = 16_000  # quick for pygments; a longer text is highlighted in a thread
WORD_WRAP_CHARS = 2_000_000
# A longer plain text is split into lines, and its rows counted, in a thread: the prompt of a
# big session has a million lines, too many to index on the event loop.
INDEX_IN_THREAD_CHARS = WORD_WRAP_CHARS
# Search lowers and scans the text this much at a time, so it never holds a lowered copy of
# a whole prompt.
SEARCH_WINDOW_CHARS = 1 << 20


class Lines:
    """The lines of one text without copying it: the text's strings (one, or the pieces of
    the prompt: goose_tui.pieces) and an ``array`` of where each line starts; a line is
    sliced out only when asked for (drawn, wrapped, searched). A 47-million-character
    prompt costs 8 bytes per line here, not a copy of it plus a million ``str`` objects."""

    def __init__(self, text: Text = "") -> None:
        self._parts: list[str] = []
        self._part_starts = array("q")  # where each part starts in the text
        self._length = 0
        self._starts = array("q")
        self._longest: int | None = None  # measured on the first ask, then kept up to date
        for part in parts_of(text):
            self._add(part)

    def _add(self, part: str) -> None:
        if not part:
            return
        begin = self._length
        self._parts.append(part)
        self._part_starts.append(begin)
        self._length += len(part)
        if not self._starts:
            self._starts.append(0)
        starts = self._starts
        position = part.find("\n")
        while position != -1:
            starts.append(begin + position + 1)
            position = part.find("\n", position + 1)

    def append(self, chunk: str) -> None:
        """Add ``chunk`` at the end (its first piece joins the last line)."""
        touched = max(len(self._starts) - 1, 0)  # the last line grows; the lines after are new
        self._add(chunk)
        if self._longest is not None and chunk:
            # Only the lines this chunk touched: a streamed reply of thousands of chunks
            # would otherwise measure every line again per chunk.
            self._longest = max(self._longest, *map(self.length, range(touched, len(self._starts))))

    def parts(self) -> Iterator[tuple[str, int]]:
        """The text's strings, each with where it starts."""
        return zip(self._parts, self._part_starts, strict=True)

    def start(self, number: int) -> int:
        """Where line ``number`` starts in the text."""
        return self._starts[number]

    def number_at(self, offset: int) -> int:
        """The line the character at ``offset`` is on."""
        return bisect_right(self._starts, offset) - 1

    def _end(self, number: int) -> int:
        if number + 1 < len(self._starts):
            return self._starts[number + 1] - 1
        return self._length

    def length(self, number: int) -> int:
        return self._end(number) - self._starts[number]

    def longest(self) -> int:
        if self._longest is None:
            self._longest = max(map(self.length, range(len(self._starts))), default=0)
        return self._longest

    def _slice(self, start: int, end: int) -> str:
        return join_slice(self._parts, self._part_starts, start, end)

    @property
    def text(self) -> Text:
        return self._parts[0] if len(self._parts) == 1 else Pieces(self._parts)

    def __len__(self) -> int:
        return len(self._starts)

    def __bool__(self) -> bool:
        return bool(self._starts)

    def __getitem__(self, number: int) -> str:
        if number < 0:
            number += len(self._starts)
        if not 0 <= number < len(self._starts):
            raise IndexError(number)
        return self._slice(self._starts[number], self._end(number))

    def __iter__(self) -> Iterator[str]:
        for number in range(len(self._starts)):
            yield self[number]


# Characters ``inert`` draws wider than one cell (a tab as four spaces, a C1 control as
# ``\x85``, an invisible one as ``<U+200B>``); East Asian and emoji characters take two.
_WIDER = frozenset("\t" + "".join(map(chr, (*INVISIBLE, *range(0x80, 0xA0)))))
# Every character drawn wider than one cell is one of these (no character below U+1100 is
# wider, but the tab, the C1 controls and U+061C): a line without them needs no cell count.
_MAYBE_WIDER = re.compile("[\t\x80-\x9f\u061c\u1100-\U0010ffff]")
MAX_CELLS_PER_CHAR = 8  # "<U+200B>"


def _one_cell_each(line: str) -> bool:
    """Whether each character of ``line`` is drawn in one cell (rows are then cut by
    characters; otherwise by cells, or the characters past the width would not be seen)."""
    if line.isascii():
        return "\t" not in line
    return _WIDER.isdisjoint(line) and cell_len(line) == len(line)


@lru_cache(maxsize=4096)
def _cells(character: str) -> int:
    return cell_len(inert(character))


def _cell_breaks(line: str, width: int, words: bool) -> list[int]:
    """Where each row of ``line`` starts when its characters are laid out by the cells they
    take (``_word_breaks``'s rule, counted in cells; without ``words``, cut at the width)."""
    cells = list(map(_cells, line))
    if not words:  # where the cells so far pass each row's end: bisect, no loop per character
        ends = list(accumulate(cells))
        starts, start = [0], 0
        while True:
            end = bisect_right(ends, (ends[start - 1] if start else 0) + width, start)
            if end >= len(line):
                return starts
            start = max(end, start + 1)  # one character wider than the pane has a row of its own
            starts.append(start)
    starts, start, used, space = [0], 0, 0, -1
    index = 0
    while index < len(line):
        size = cells[index]
        if used + size > width and index > start:
            last = index if line[index] == " " else space
            cut = last + 1 if last > start else index
            starts.append(cut)
            start, used, space = cut, sum(cells[cut:index]), -1
            if cut > index:  # the space that did not fit ends the row
                index = cut
            continue
        used += size
        if line[index] == " ":
            space = index
        index += 1
    return starts


def _word_breaks(line: str, width: int) -> list[int]:
    """Where each row of ``line`` starts when wrapped at spaces to ``width`` columns (a word
    longer than the width is cut)."""
    if not _one_cell_each(line):
        return _cell_breaks(line, width, words=True)
    starts = [0]
    start = 0
    while len(line) - start > width:
        cut = line.rfind(" ", start, start + width + 1)
        end = cut + 1 if cut > start else start + width
        starts.append(end)
        start = end
    return starts


def _line_breaks(lines: Lines, width: int, first: int = 0) -> dict[int, list[int]]:
    """Word breaks of the lines from ``first`` on that are wider than ``width`` columns."""
    out = {}
    for number in range(first, len(lines)):
        size = lines.length(number)
        if size * MAX_CELLS_PER_CHAR <= width:
            continue
        line = lines[number]
        if size > width or not _one_cell_each(line):
            out[number] = _word_breaks(line, width)
    return out


def _cell_cut_breaks(lines: Lines, width: int) -> dict[int, list[int]]:
    """For a text past WORD_WRAP_CHARS, whose rows are cut at the width with no word breaks
    looked for: the rows, cut by cells, of the lines that hold a character wider than one
    (a regex finds them in the text's strings that are not all ASCII; the rest need nothing)."""
    out: dict[int, list[int]] = {}
    for part, begin in lines.parts():
        if part.isascii() and "\t" not in part:  # isascii: a flag CPython keeps, no scan
            continue
        found = _MAYBE_WIDER.search(part)
        while found is not None:
            number = lines.number_at(begin + found.start())
            if number not in out:
                out[number] = _cell_breaks(lines[number], width, words=False)
            after = lines.start(number + 1) - begin if number + 1 < len(lines) else len(part)
            found = _MAYBE_WIDER.search(part, after)
    return out


def _wrapped(lines: Lines, width: int, words: bool) -> Wrap:
    """The rows of ``lines`` at ``width``: word wrap (``words``) for texts of a usual size; a
    prompt of tens of megabytes is cut at the width, which costs no loop per row."""
    breaks = _line_breaks(lines, width) if words else _cell_cut_breaks(lines, width)
    return breaks, _rows(lines, width, breaks)


def _rows(
    lines: Lines, width: int, breaks: dict[int, list[int]], first: int = 0, row: int = 0
) -> tuple[array[int], int]:
    """The first visual row of each line from ``first`` on (which starts at ``row``) at
    ``width`` columns, and the rows up to the end."""
    counts = (
        len(breaks[number])
        if number in breaks
        else ((size - 1) // width + 1 if (size := lines.length(number)) else 1)
        for number in range(first, len(lines))
    )
    starts = array("q", accumulate(counts, initial=row))
    return starts, starts.pop()


def find_matches(
    lines: Lines, search: str, cancelled: Callable[[], bool] = lambda: False
) -> list[tuple[int, int]]:
    """(line, column) of each match of ``search`` (case ignored; at most MAX_MATCHES):
    ``str.find`` over the text a window of whole lines at a time; line numbers come from
    counting newlines between consecutive hits, so the cost is in C, not a loop over lines."""
    matches: list[tuple[int, int]] = []
    needle = search.lower()
    if not needle or "\n" in needle:
        return matches
    for offset, window in line_windows(lines.text, SEARCH_WINDOW_CHARS):
        if cancelled():
            return matches
        _find_in(window, lines.number_at(offset), needle, matches)
        if len(matches) >= MAX_MATCHES:
            return matches[:MAX_MATCHES]
    return matches


def _find_in(window: str, first: int, needle: str, matches: list[tuple[int, int]]) -> None:
    """Add the matches in ``window``, whole lines from line ``first`` on."""
    haystack = window.lower()
    if len(haystack) != len(window):  # lower() changed lengths: go line by line
        for number, text_line in enumerate(window.split("\n"), first):
            lowered = text_line.lower()
            start = lowered.find(needle)
            while start != -1 and len(matches) < MAX_MATCHES:
                matches.append((number, start))
                start = lowered.find(needle, start + len(needle))
        return
    line, line_start, previous = first, 0, 0
    position = haystack.find(needle)
    while position != -1 and len(matches) < MAX_MATCHES:
        newlines = haystack.count("\n", previous, position)
        if newlines:
            line += newlines
            line_start = haystack.rfind("\n", 0, position) + 1
        matches.append((line, position - line_start))
        previous = position
        position = haystack.find(needle, position + len(needle))


_ROLE = re.compile(r"^\[(user|assistant|system)\]: ")
_TOOL = re.compile(r"\b(tool_request|tool_response|tool_confirmation_request|action_required)\b")
_TAG = re.compile(r"</?analysis>|^#{1,6} .*|^```\w*$")


def prompt_highlighter(line: str) -> Spans:
    """Roles, tool markers and Markdown structure of a compaction prompt."""
    spans: Spans = []
    if match := _ROLE.match(line):
        spans.append((0, match.end(), "text-viewer--role"))
    spans.extend((m.start(), m.end(), "text-viewer--tool") for m in _TOOL.finditer(line))
    spans.extend((m.start(), m.end(), "text-viewer--tag") for m in _TAG.finditer(line))
    return spans


@lru_cache(maxsize=16)
def placeholder_rows(text: str, width: int) -> list[str]:
    """The placeholder wrapped at ``width``: a reason (a template's error, with its path) is
    read to its end, not cut at the pane's edge."""
    import textwrap

    return textwrap.wrap(text, max(width, 1)) if text else []


class TextViewer(ScrollView, can_focus=True):
    DEFAULT_CSS = """
    TextViewer { background: $surface; }
    TextViewer > .text-viewer--role { color: $accent; text-style: bold; }
    TextViewer > .text-viewer--tool { color: $secondary; }
    TextViewer > .text-viewer--tag { color: $warning; }
    TextViewer > .text-viewer--match { background: $warning 40%; }
    TextViewer > .text-viewer--current-match { background: $warning; color: $background; }
    TextViewer > .text-viewer--placeholder { color: $text-muted; text-style: italic; }
    """ + syntax_css("TextViewer", "text-viewer")
    COMPONENT_CLASSES = {
        "text-viewer--role",
        "text-viewer--tool",
        "text-viewer--tag",
        "text-viewer--match",
        "text-viewer--current-match",
        "text-viewer--placeholder",
    } | syntax_classes("text-viewer")
    BINDINGS = [
        Binding("n", "next_match", "Next match", id="viewer.next_match"),
        Binding("N", "previous_match", "Previous match", id="viewer.previous_match"),
    ]

    search: reactive[str] = reactive("", init=False)

    def __init__(
        self,
        text: str = "",
        *,
        placeholder: str = "",
        highlighter: Highlighter | None = None,
        syntax: str | None = None,
        wrap: bool = False,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self._highlighter = highlighter
        # A pygments language: the whole text is highlighted once per set_text (small texts).
        self._syntax = syntax
        self._syntax_spans: list[list[tuple[int, int, str]]] = []
        self._unhighlighted: str | None = None  # a hidden text's, highlighted when shown
        self._highlighting = 0  # bumped per text: a thread's spans for an older one are dropped
        # Soft wrap at the view's width: _row_starts[i] is the first visual row of line i.
        self._wrap = wrap
        self._row_starts: array[int] = array("q")
        self._row_total = 0
        self._breaks: dict[int, list[int]] = {}  # line -> where each of its rows starts
        self._wrapped_width = -1
        self._rewrapping: int | None = None  # the width a thread is counting rows for
        self._version = 0  # bumped when the lines change: a thread's rows for older are dropped
        self._placeholder = placeholder
        self._text: Text = ""
        self._lines = Lines()
        # A big text being split into lines in a thread; a thread's lines for any other
        # text (one set since, or none: a small text or streamed text came) are dropped.
        self._incoming: Text | None = None
        self._matches: list[tuple[int, int]] = []  # (line, column)
        self._current = -1
        self._searching: tuple[str, Lines] | None = None  # a search running in a thread
        self.set_text(text)

    @property
    def text(self) -> str:
        """The text as given (made inert only when drawn), for copying."""
        return str(self._text)

    @property
    def matches(self) -> list[tuple[int, int]]:
        return self._matches

    @property
    def placeholder(self) -> str:
        return self._placeholder

    @placeholder.setter
    def placeholder(self, text: str) -> None:
        """Shown while there is no text (e.g. "building prompt…")."""
        self._placeholder = text
        self.refresh()

    def set_text(self, text: Text) -> None:
        if self._incoming is not None:
            if text == self._incoming:
                return
        elif self._lines and text == self._text:
            # The prompt comes back unchanged after a compaction: splitting 47 million
            # characters into lines again would block the UI for a few hundred ms.
            return
        self._incoming = None
        if len(text) > INDEX_IN_THREAD_CHARS and not self._syntax and self.is_attached:
            self._index_in_thread(text)  # what is shown stays until its lines are ready
            return
        self._show_text(text)

    class Indexed(Message):
        """Posted by the indexing thread: one text's lines (and rows, when wrapped)."""

        def __init__(self, text: Text, lines: Lines, width: int | None, wrap: Wrap | None) -> None:
            super().__init__()
            self.text, self.lines, self.width, self.wrap = text, lines, width, wrap

    def _index_in_thread(self, text: Text) -> None:
        self._incoming = text
        width = self._wrap_width if self._wrap and self.scrollable_content_region.width else None

        def work() -> None:
            lines = Lines(text)
            words = len(text) <= WORD_WRAP_CHARS
            wrap = _wrapped(lines, width, words) if width is not None else None
            if width is None:
                lines.longest()  # measured here, not on the loop (kept by the lines)
            self.post_message(self.Indexed(text, lines, width, wrap))

        self.run_worker(work, thread=True, group="text-viewer-index", exclusive=True)

    def on_text_viewer_indexed(self, message: Indexed) -> None:
        message.stop()
        if message.text is not self._incoming:
            return
        self._incoming, self._rewrapping = None, None
        self._text, self._lines, self._syntax_spans = message.text, message.lines, []
        self._version += 1
        if message.wrap is not None and message.width == self._wrap_width:
            self._wrapped_width = -1  # a new text: nothing of the last view's place to keep
            self._use_rows(message.width, *message.wrap)
        else:  # not wrapped, or the width changed meanwhile
            self._update_size()
        self._find_matches()
        self.refresh()

    def _show_text(self, text: Text) -> None:
        self._text = text
        # Lines are kept raw and made inert when drawn: a 50 MB prompt is never copied whole.
        # A highlighted text is small: its lines are made inert now, so spans line up.
        self._lines = Lines(text)
        self._syntax_spans = []
        self._highlighting += 1
        self._unhighlighted = None
        if self._syntax and text:
            shown = inert(str(text))
            self._lines = Lines(shown)
            self._highlight(shown, self._syntax)
        self._update_size()
        self._find_matches()
        self.refresh()

    class Highlighted(Message):
        """Posted by the highlighting thread: the spans of one text."""

        def __init__(self, generation: int, spans: list[Spans]) -> None:
            super().__init__()
            self.generation = generation
            self.spans = spans

    def _highlight(self, shown: str, syntax: str) -> None:
        if self.is_attached and not self.display:
            # Hidden (the summary's Markdown source behind its rendered view): highlighted
            # when shown, so a compaction's end does not pay for a view nobody is looking at.
            self._unhighlighted = shown
            return
        if len(shown) <= SYNC_HIGHLIGHT_CHARS or not self.is_attached:
            self._syntax_spans = highlight_lines(shown, syntax)
        else:
            self._highlight_in_thread(shown, syntax)

    def on_show(self) -> None:
        if self._unhighlighted is not None and self._syntax:
            shown, self._unhighlighted = self._unhighlighted, None
            self._highlight(shown, self._syntax)
            self.refresh()

    def _highlight_in_thread(self, shown: str, syntax: str) -> None:
        """pygments is slow on a big text: it is shown plain until its spans are ready."""
        generation = self._highlighting

        def work() -> None:
            self.post_message(self.Highlighted(generation, highlight_lines(shown, syntax)))

        self.run_worker(work, thread=True, group="text-viewer-highlight", exclusive=True)

    def on_text_viewer_highlighted(self, message: Highlighted) -> None:
        message.stop()
        if message.generation == self._highlighting:
            self._syntax_spans = message.spans
            self.refresh()

    def append(self, chunk: str) -> None:
        """Add streamed text at the end, keeping the view pinned to the bottom if it was."""
        if self._incoming is not None:  # the text it extends is being indexed: now, then
            text, self._incoming = self._incoming, None
            self._show_text(text)
        at_bottom = self.scroll_y >= self.max_scroll_y
        touched = max(len(self._lines) - 1, 0)  # the last line grows; the lines after it are new
        self._lines.append(chunk)
        # One string shared with the line index, not a second growing copy.
        self._text = self._lines.text if not self._syntax else str(self._text) + chunk
        if self._wrap and self._wrap_from(touched):
            self._version += 1
        else:
            self._update_size()
        self.refresh()
        if at_bottom:
            self.scroll_end(animate=False, immediate=False, x_axis=False)

    def _update_size(self) -> None:
        """After the lines changed (a new text, appended text)."""
        self._version += 1
        if self._wrap:
            self._wrapped_width, self._rewrapping = -1, None
            self._rewrap()
            return
        width = self._lines.longest()
        self.virtual_size = Size(width + 1, max(len(self._lines), 1))

    @property
    def _wrap_width(self) -> int:
        return max(self.scrollable_content_region.width, 10)

    def _rewrap(self) -> None:
        """Where each line starts among the visual rows at the current width."""
        if not self.scrollable_content_region.width:
            return  # not laid out yet: wrapped when it is
        width = self._wrap_width
        if width == self._wrapped_width or width == self._rewrapping:
            return
        if len(self._text) > INDEX_IN_THREAD_CHARS and self.is_attached:
            # A million rows to count again (a scroll bar appeared, the pane was resized):
            # in a thread; the rows at the last width are drawn until then.
            self._rewrap_in_thread(width)
            return
        self._use_rows(width, *_wrapped(self._lines, width, len(self._text) <= WORD_WRAP_CHARS))

    def _wrap_from(self, touched: int) -> bool:
        """After an append, wrap again only the lines from ``touched`` on (a streamed reply
        of thousands of chunks would otherwise be wrapped whole per chunk); False when the
        whole text must be wrapped (another width, a text past WORD_WRAP_CHARS)."""
        width = self._wrap_width
        if (
            width != self._wrapped_width
            or self._rewrapping is not None
            or len(self._text) > WORD_WRAP_CHARS
            or touched > len(self._row_starts)
        ):
            return False
        starts, breaks = self._row_starts, self._breaks
        row = starts[touched] if touched < len(starts) else self._row_total
        for number in [n for n in breaks if n >= touched]:
            del breaks[number]
        breaks.update(_line_breaks(self._lines, width, touched))
        tail, self._row_total = _rows(self._lines, width, breaks, touched, row)
        del starts[touched:]
        starts.extend(tail)
        self.virtual_size = Size(width, max(self._row_total, 1))
        return True

    def _use_rows(
        self, width: int, breaks: dict[int, list[int]], rows: tuple[array[int], int]
    ) -> None:
        """The rows at ``width``. When the lines are those wrapped before (a new width, not a
        new text), the line at the top of the view stays at the top."""
        top, at_end = None, False
        if self._wrapped_width > 0 and self._row_starts and self.scroll_y > 0:
            top = bisect_right(self._row_starts, int(self.scroll_y)) - 1
            # The last row in view: it stays in view (max_scroll_y is not settled mid-resize).
            at_end = self.scroll_y + self.size.height >= self._row_total
        self._breaks, self._wrapped_width = breaks, width
        self._row_starts, self._row_total = rows
        self.virtual_size = Size(width, max(self._row_total, 1))
        if at_end:
            self.scroll_end(animate=False, immediate=False, x_axis=False)
        elif top is not None and top < len(self._row_starts):
            self.scroll_to(y=self._row_starts[top], animate=False)

    class Rewrapped(Message):
        """Posted by the rewrapping thread: the rows of the current lines at one width."""

        def __init__(self, version: int, width: int, wrap: Wrap) -> None:
            super().__init__()
            self.version, self.width, self.wrap = version, width, wrap

    def _rewrap_in_thread(self, width: int) -> None:
        self._rewrapping = width
        lines, version = self._lines, self._version
        words = len(self._text) <= WORD_WRAP_CHARS

        def work() -> None:
            self.post_message(self.Rewrapped(version, width, _wrapped(lines, width, words)))

        self.run_worker(work, thread=True, group="text-viewer-rewrap", exclusive=True)

    def on_text_viewer_rewrapped(self, message: Rewrapped) -> None:
        message.stop()
        if message.version != self._version or message.width != self._rewrapping:
            return  # another text, or a newer width is being counted
        self._rewrapping = None
        self._use_rows(message.width, *message.wrap)
        self._rewrap()  # the width may have changed again meanwhile
        self.refresh()

    def on_resize(self) -> None:
        if self._wrap:
            self._rewrap()
            self.refresh()

    def watch_search(self) -> None:
        self._find_matches()

    @property
    def searching(self) -> bool:
        """A search of a big text is running in a thread (``Searched`` comes when it ends)."""
        return self._searching is not None

    class Searched(Message):
        """Posted when a search that ran in a thread has its matches in place."""

        def __init__(self, viewer: TextViewer) -> None:
            super().__init__()
            self.viewer = viewer

        @property
        def control(self) -> TextViewer:
            return self.viewer

    def _find_matches(self) -> None:
        """The search's matches: at once in a text of a usual size; in a thread in a big one
        (so each key typed into the search box is answered at once)."""
        self._matches, self._current, self._searching = [], -1, None
        needle, lines = self.search, self._lines
        if needle and len(self._text) > INDEX_IN_THREAD_CHARS and self.is_attached:
            self._searching = (needle, lines)

            def work() -> None:
                worker = get_current_worker()
                found = find_matches(lines, needle, lambda: worker.is_cancelled)
                if not worker.is_cancelled:
                    self.app.call_from_thread(self._searched, needle, lines, found)

            self.run_worker(work, thread=True, group="text-viewer-search", exclusive=True)
            return
        self._use_matches(find_matches(lines, needle))

    def _searched(self, needle: str, lines: Lines, found: list[tuple[int, int]]) -> None:
        pending = self._searching
        if pending is None or pending[0] != needle or pending[1] is not lines:
            return  # a newer search since, or another text
        self._searching = None
        self._use_matches(found)
        self.post_message(self.Searched(self))

    def _use_matches(self, found: list[tuple[int, int]]) -> None:
        self._matches, self._current = found, -1
        if found:
            self._current = 0
            self._show_current()
        self.refresh()

    def _show_current(self) -> None:
        line, column = self._matches[self._current]
        if self._wrap and self._row_starts:
            self._rewrap()
            breaks = self._breaks.get(line)
            part = bisect_right(breaks, column) - 1 if breaks else column // self._wrapped_width
            row = self._row_starts[line] + part
            self.scroll_to(y=max(row - self.size.height // 2, 0), animate=False)
            return
        self.scroll_to(
            x=max(column - self.size.width // 2, 0),
            y=max(line - self.size.height // 2, 0),
            animate=False,
        )

    def action_next_match(self) -> None:
        if self._matches:
            self._current = (self._current + 1) % len(self._matches)
            self._show_current()
            self.refresh()

    def action_previous_match(self) -> None:
        if self._matches:
            self._current = (self._current - 1) % len(self._matches)
            self._show_current()
            self.refresh()

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.size.width
        base = self.rich_style
        number = scroll_y + y
        if not self._lines:
            rows = placeholder_rows(self._placeholder, width)
            if y < len(rows):
                style = base + self.get_component_rich_style("text-viewer--placeholder")
                return Strip([Segment(rows[y], style)]).crop_extend(0, width, base)
            return Strip.blank(width, base)
        if self._wrap:
            self._rewrap()
            if self._wrapped_width < 0 or number >= self._row_total:
                return Strip.blank(width, base)
            line_no = bisect_right(self._row_starts, number) - 1
            part = number - self._row_starts[line_no]
            breaks = self._breaks.get(line_no)
            if breaks:
                start = breaks[part]
                end = breaks[part + 1] if part + 1 < len(breaks) else self._lines.length(line_no)
            else:
                start = part * self._wrapped_width
                end = start + self._wrapped_width
            raw = self._lines[line_no][start:end]
            return Strip(self._segments(line_no, raw, start, base)).crop_extend(0, width, base)
        if number >= len(self._lines):
            return Strip.blank(width, base)
        # Style only the visible slice: a single line can be megabytes of tool output.
        raw = self._lines[number][scroll_x : scroll_x + width]
        strip = Strip(self._segments(number, raw, scroll_x, base))
        return strip.crop_extend(0, width, base)

    def _segments(self, number: int, raw: str, offset: int, base: RichStyle) -> list[Segment]:
        """The styled segments of ``raw``, the part of line ``number`` from ``offset`` on that
        is drawn, made inert."""
        line = inert(raw)

        def shown(column: int) -> int:
            # A match's column in the raw line, where it is drawn: a tab before it is drawn
            # as four spaces, an invisible character as <U+200B>.
            if len(line) == len(raw) or column <= 0:
                return column
            return len(inert(raw[:column])) + max(column - len(raw), 0)

        spans = self._highlighter(line) if self._highlighter else []
        if number < len(self._syntax_spans):
            spans = [
                (start - offset, end - offset, f"text-viewer--syn-{kind}")
                for start, end, kind in self._syntax_spans[number]
                if end > offset and start < offset + len(line)
            ] + spans
        if self.search:
            current = self._matches[self._current] if self._current >= 0 else None
            size = len(self.search)
            for line_no, column in self._matches_on(number):
                name = (
                    "text-viewer--current-match"
                    if current == (line_no, column)
                    else "text-viewer--match"
                )
                spans.append((shown(column - offset), shown(column - offset + size), name))
        if not spans:
            return [Segment(line, base)]
        # Each character takes the styles of every span over it, later spans on top.
        styles: list[RichStyle] = [base] * len(line)
        for start, end, name in spans:
            extra = self.get_component_rich_style(name, partial=True)
            for index in range(max(start, 0), min(end, len(line))):
                styles[index] = styles[index] + extra
        segments: list[Segment] = []
        run_start = 0
        for index in range(1, len(line) + 1):
            if index == len(line) or styles[index] != styles[run_start]:
                segments.append(Segment(line[run_start:index], styles[run_start]))
                run_start = index
        return segments

    def _matches_on(self, number: int) -> list[tuple[int, int]]:
        # Matches are sorted by line: bisect keeps this cheap with many matches.
        low = bisect_left(self._matches, (number, -1))
        high = bisect_right(self._matches, (number, 1 << 30))
        return self._matches[low:high]
