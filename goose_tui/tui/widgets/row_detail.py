"""The highlighted row of a table in full, below it: the table cuts its text cells to fit the
screen, and this is where they are read whole."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import Static

from goose_tui.inert import inert


class RowDetail(Static):
    DEFAULT_CSS = """
    RowDetail { height: auto; max-height: 60%; padding: 0 1; border-top: solid $primary-muted; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, markup=False)
        self.display = False

    def show(self, fields: Sequence[tuple[str, str]], *, cut: bool) -> None:
        """Each (name, text) on its own line; shown only when the table ``cut`` a cell of the
        row (else the row already says it all)."""
        self.display = cut
        if cut:
            lines = [Text.assemble((f"{name}: ", "bold"), inert(text)) for name, text in fields]
            self.update(Text("\n").join(lines))

    def hide(self) -> None:
        self.display = False
