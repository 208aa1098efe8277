"""A read-only text pane on Textual's line API: only visible lines are styled, so a system
prompt built from a 50 MB session scrolls as smoothly as a short one."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable

from rich.segment import Segment
from rich.style import Style as RichStyle
from textual.binding import Binding
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from goose_tui.tui.inert import inert

# (start, end, component class) for one line.
Spans = list[tuple[int, int, str]]
Highlighter = Callable[[str], Spans]
MAX_MATCHES = 10_000

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


class TextViewer(ScrollView, can_focus=True):
    DEFAULT_CSS = """
    TextViewer { background: $surface; }
    TextViewer > .text-viewer--role { color: $accent; text-style: bold; }
    TextViewer > .text-viewer--tool { color: $secondary; }
    TextViewer > .text-viewer--tag { color: $warning; }
    TextViewer > .text-viewer--match { background: $warning 40%; }
    TextViewer > .text-viewer--current-match { background: $warning; color: $background; }
    TextViewer > .text-viewer--placeholder { color: $text-muted; text-style: italic; }
    """
    COMPONENT_CLASSES = {
        "text-viewer--role",
        "text-viewer--tool",
        "text-viewer--tag",
        "text-viewer--match",
        "text-viewer--current-match",
        "text-viewer--placeholder",
    }
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
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self._highlighter = highlighter
        self._placeholder = placeholder
        self._text = ""
        self._lines: list[str] = []
        self._matches: list[tuple[int, int]] = []  # (line, column)
        self._current = -1
        self.set_text(text)

    @property
    def text(self) -> str:
        """The text as given (made inert only when drawn), for copying."""
        return self._text

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

    def set_text(self, text: str) -> None:
        if self._lines and text == self._text:
            # The prompt comes back unchanged after a compaction: splitting 47 million
            # characters into lines again would block the UI for a few hundred ms.
            return
        self._text = text
        # Lines are kept raw and made inert when drawn: a 50 MB prompt is never copied whole.
        self._lines = text.split("\n") if text else []
        self._update_size()
        self._find_matches()
        self.refresh()

    def append(self, chunk: str) -> None:
        """Add streamed text at the end, keeping the view pinned to the bottom if it was."""
        at_bottom = self.scroll_y >= self.max_scroll_y
        self._text += chunk
        pieces = chunk.split("\n")
        if self._lines:
            self._lines[-1] += pieces[0]
            self._lines.extend(pieces[1:])
        else:
            self._lines = pieces
        self._update_size()
        self.refresh()
        if at_bottom:
            self.scroll_end(animate=False, immediate=False, x_axis=False)

    def _update_size(self) -> None:
        width = max(map(len, self._lines), default=0)
        self.virtual_size = Size(width + 1, max(len(self._lines), 1))

    def watch_search(self) -> None:
        self._find_matches()
        if self._matches:
            self._current = 0
            self._show_current()
        self.refresh()

    def _find_matches(self) -> None:
        """One pass of ``str.find`` over the whole text; line numbers come from counting
        newlines between consecutive hits, so the cost is in C, not a loop over lines."""
        self._matches, self._current = [], -1
        needle = self.search.lower()
        if not needle or "\n" in needle:
            return
        haystack = self._text.lower()
        if len(haystack) != len(self._text):  # lower() changed lengths: go line by line
            for number, line in enumerate(self._lines):
                start = line.lower().find(needle)
                while start != -1 and len(self._matches) < MAX_MATCHES:
                    self._matches.append((number, start))
                    start = line.lower().find(needle, start + len(needle))
            return
        line, line_start, previous = 0, 0, 0
        position = haystack.find(needle)
        while position != -1 and len(self._matches) < MAX_MATCHES:
            newlines = haystack.count("\n", previous, position)
            if newlines:
                line += newlines
                line_start = haystack.rfind("\n", 0, position) + 1
            self._matches.append((line, position - line_start))
            previous = position
            position = haystack.find(needle, position + len(needle))

    def _show_current(self) -> None:
        line, column = self._matches[self._current]
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
            if y == 0 and self._placeholder:
                style = base + self.get_component_rich_style("text-viewer--placeholder")
                return Strip([Segment(self._placeholder, style)]).crop_extend(0, width, base)
            return Strip.blank(width, base)
        if number >= len(self._lines):
            return Strip.blank(width, base)
        # Style only the visible slice: a single line can be megabytes of tool output.
        line = inert(self._lines[number][scroll_x : scroll_x + width])
        strip = Strip(self._segments(number, line, scroll_x, base))
        return strip.crop_extend(0, width, base)

    def _segments(self, number: int, line: str, offset: int, base: RichStyle) -> list[Segment]:
        spans = self._highlighter(line) if self._highlighter else []
        if self.search:
            current = self._matches[self._current] if self._current >= 0 else None
            size = len(self.search)
            for line_no, column in self._matches_on(number):
                name = (
                    "text-viewer--current-match"
                    if current == (line_no, column)
                    else "text-viewer--match"
                )
                spans.append((column - offset, column - offset + size, name))
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
