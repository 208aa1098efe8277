"""terminal.shorten: the one cell-and-line shortener of the CLI tables, the probes and the TUI."""

from __future__ import annotations

import pytest

from goose_tui.terminal import shorten


@pytest.mark.parametrize(
    ("text", "width", "expected"),
    [
        ("short", 10, "short"),
        ("  spaced\n\tout  text ", 40, "spaced out text"),
        ("exactly ten", 11, "exactly ten"),
        ("one word too many", 10, "one word …"),
        ("", 5, ""),
    ],
)
def test_whitespace_is_squeezed_and_a_long_text_ends_in_an_ellipsis(
    text: str, width: int, expected: str
) -> None:
    assert shorten(text, width) == expected
    assert len(shorten(text, width)) <= width
