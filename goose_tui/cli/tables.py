"""Plain-text tables for the analysis commands' terminal output."""

from __future__ import annotations

from collections.abc import Collection


def table(rows: list[list[str]], right: Collection[int] = frozenset()) -> list[str]:
    """Rows aligned in columns; the columns in ``right`` are right-aligned (numbers)."""
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    lines = []
    for r in rows:
        cells = [
            cell.rjust(widths[c]) if c in right else cell.ljust(widths[c])
            for c, cell in enumerate(r)
        ]
        lines.append("  ".join(cells).rstrip())
    return lines
