"""The viewer's line index gives the same lines as ``str.split("\\n")`` without a copy."""

from __future__ import annotations

import pytest

from goose_tui.tui.widgets.text_viewer import Lines

TEXTS = ["", "a", "\n", "a\n", "\na", "a\nb\n\nc", "é😀\nx\n\n", "\n\n\n", "no newline at all"]


@pytest.mark.parametrize("text", TEXTS)
def test_lines_match_split(text: str) -> None:
    lines = Lines(text)
    expected = text.split("\n") if text else []
    assert list(lines) == expected
    assert len(lines) == len(expected)
    assert bool(lines) == bool(expected)
    assert [lines.length(n) for n in range(len(lines))] == [len(x) for x in expected]
    assert lines.longest() == max(map(len, expected), default=0)
    if expected:
        assert lines[-1] == expected[-1]
    with pytest.raises(IndexError):
        lines[len(expected)]


@pytest.mark.parametrize("chunks", [["a", "b\nc", "\n", "", "d\n\ne"], ["\n", "x"], ["", "y\n"]])
def test_append_matches_split_of_joined(chunks: list[str]) -> None:
    lines = Lines()
    for chunk in chunks:
        lines.append(chunk)
    joined = "".join(chunks)
    assert lines.text == joined
    assert list(lines) == joined.split("\n")


def test_the_text_is_not_copied() -> None:
    text = "x" * 1000 + "\n" + "y" * 10
    assert Lines(text).text is text
