"""Soft-wrapping a TextArea's document the way Textual does, faster.

Textual's ``WrappedDocument.wrap`` splits every line into words to find where it breaks,
and its ``height`` sums the rows of every line each time a line is drawn. For the summary
JSON of 50,000 items (50,000 lines, 2 MB) one wrap was ~0.7 s of the event loop, the
editor wrapped it three times on being shown (its text, its width, its scroll bar), and
each key redrew ~45 lines at ~10 ms of ``height`` each. Here a line that fits (no tab, no
wider than the width) is one row without being split, and the height is the number of rows
kept; the rows are the same as Textual's (tests/tui/test_code_editor_load.py).
"""

from __future__ import annotations

from typing import NamedTuple

from rich.cells import cell_len
from textual._wrap import compute_wrap_offsets
from textual.document._wrapped_document import WrappedDocument
from textual.expand_tabs import get_tab_widths


class Rows(NamedTuple):
    """A wrapped document's state: ``WrappedDocument``'s four private lists."""

    wrap_offsets: list[list[int]]  # per line: where it breaks
    offset_to_line_info: list[tuple[int, int]]  # per row: (line, section of the line)
    line_index_to_offsets: list[list[int]]  # per line: its rows
    tab_width_cache: list[list[int]]  # per line: the width of each of its tabs


def wrap_rows(lines: list[str], width: int, tab_width: int) -> Rows:
    """The rows of ``lines`` wrapped at ``width`` (0: not wrapped), as Textual wraps them."""
    rows = Rows([], [], [], [])
    add_offsets = rows.wrap_offsets.append
    add_info = rows.offset_to_line_info.append
    add_line_rows = rows.line_index_to_offsets.append
    add_tabs = rows.tab_width_cache.append
    row = 0
    for index, line in enumerate(lines):
        if "\t" not in line and (
            not width or len(line) <= width and (line.isascii() or cell_len(line) <= width)
        ):
            add_offsets([])
            add_tabs([0] if line else [])  # what get_tab_widths finds in it
            add_info((index, 0))
            add_line_rows([row])
            row += 1
            continue
        sections = get_tab_widths(line, tab_width)
        offsets = (
            compute_wrap_offsets(line, width, tab_size=tab_width, precomputed_tab_sections=sections)
            if width
            else []
        )
        add_tabs([tab for _, tab in sections])
        add_offsets(offsets)
        add_line_rows(list(range(row, row + len(offsets) + 1)))
        for section in range(len(offsets) + 1):
            add_info((index, section))
        row += len(offsets) + 1
    return rows


class FastWrappedDocument(WrappedDocument):
    """Textual's ``WrappedDocument`` with ``wrap_rows`` and a height that is not a sum."""

    def wrap(self, width: int, tab_width: int | None = None) -> None:
        self.use_rows(
            width,
            tab_width or self._tab_width,
            wrap_rows(self.document.lines, width, tab_width or self._tab_width),
        )

    def use_rows(self, width: int, tab_width: int, rows: Rows) -> None:
        """Take rows wrapped elsewhere (a thread) for the document's lines as they are now."""
        self._width, self._tab_width = width, tab_width
        self._wrap_offsets = rows.wrap_offsets
        self._offset_to_line_info = rows.offset_to_line_info
        self._line_index_to_offsets = rows.line_index_to_offsets
        self._tab_width_cache = rows.tab_width_cache

    def wrapped_for(self, width: int, tab_width: int) -> bool:
        return self._width == width and self._tab_width == tab_width

    @property
    def height(self) -> int:
        return len(self._offset_to_line_info)  # one entry a row, kept by wrap_range too
