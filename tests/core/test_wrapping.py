"""The editor's row-counted document (goose_tui/tui/wrapping.py) has Textual's own height,
before and after an edit. No app."""

from __future__ import annotations

import pytest
from textual.widgets.text_area import Document, WrappedDocument

from goose_tui.tui.wrapping import RowCountedDocument

LINES = [
    "",
    "a",
    "abc def",
    "x" * 40,
    "word " * 20,
    "\tindented\tx",
    "日本語テキスト" * 5,
    "日本",
    "  trailing   ",
    "a\t" * 30,
    "é" * 10,
    " " * 50,
]


@pytest.mark.parametrize("width", [0, 1, 3, 5, 10, 39, 40, 41, 80])
@pytest.mark.parametrize("tab_width", [4, 8])
def test_the_row_count_is_textuals_height(width: int, tab_width: int) -> None:
    theirs = WrappedDocument(Document("\n".join(LINES)), width, tab_width)
    ours = RowCountedDocument(Document("\n".join(LINES)), width, tab_width)
    assert ours.height == theirs.height
    # Kept by an edit as Textual keeps its own.
    for wrapped in (theirs, ours):
        wrapped.document.replace_range((2, 1), (5, 3), "new\nlines\tand " * 3)
        wrapped.wrap_range((2, 1), (5, 3), wrapped.document.end)
    assert ours.document.text == theirs.document.text
    assert ours.lines == theirs.lines
    assert ours.height == theirs.height
