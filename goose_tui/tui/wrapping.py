"""Soft-wrapping a big TextArea document without holding up the event loop.

``RowCountedDocument`` is Textual's ``WrappedDocument`` (the same rows) with two changes
made through its public methods: its height is counted once per wrap or edit, not summed
over every line each time a line is drawn; and a long document asked to wrap at a new
width calls ``rewrap_elsewhere`` instead, keeping its rows (which edits keep right) until
rows wrapped in a thread replace it.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.widgets.text_area import DocumentBase, Location, WrappedDocument

# A document with more lines is wrapped in a thread when its width changes.
SYNC_WRAP_LINES = 2_000


class RowCountedDocument(WrappedDocument):
    def __init__(self, document: DocumentBase, width: int = 0, tab_width: int = 4) -> None:
        self.wrapped_at: tuple[int, int] | None = None  # (width, tab width) of the rows
        self.row_count = 0
        # Set by the editor once the document is shown: wraps a long document in a thread.
        self.rewrap_elsewhere: Callable[[int, int], None] | None = None
        super().__init__(document, width, tab_width)

    def wrap(self, width: int, tab_width: int | None = None) -> None:
        tabs = tab_width or (self.wrapped_at[1] if self.wrapped_at else 4)
        if self.wrapped_at == (width, tabs):
            return  # edits keep the rows right at this width
        if self.rewrap_elsewhere is not None and self.document.line_count > SYNC_WRAP_LINES:
            self.rewrap_elsewhere(width, tabs)
            return
        super().wrap(width, tabs)
        self.wrapped_at = (width, tabs)
        self.row_count = super().height

    def wrap_range(self, start: Location, old_end: Location, new_end: Location) -> None:
        super().wrap_range(start, old_end, new_end)
        self.row_count = super().height

    @property
    def height(self) -> int:
        return self.row_count
