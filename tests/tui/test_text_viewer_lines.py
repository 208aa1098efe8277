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


@pytest.mark.parametrize(
    "chunks", [["ab", "c\nde", "fghij\n", "", "k\n\nlmnopqrs", "t"], ["\n\n", "xyz"], ["", "long"]]
)
def test_the_longest_line_is_kept_up_to_date_as_chunks_arrive(chunks: list[str]) -> None:
    lines = Lines("12\n1234")
    lines.longest()  # measured once, then kept
    joined = "12\n1234"
    for chunk in chunks:
        lines.append(chunk)
        joined += chunk
        assert lines.longest() == max(map(len, joined.split("\n")))


class _CountingLines(Lines):
    measured = 0

    def length(self, number: int) -> int:
        self.measured += 1
        return super().length(number)


def test_a_streamed_chunk_measures_only_the_lines_it_touched() -> None:
    # A reply streamed in thousands of chunks into a pane of thousands of lines measured
    # every line again per chunk (the app's compaction of a 53 MB session spent most of its
    # three minutes there).
    lines = _CountingLines("line\n" * 5_000)
    lines.longest()
    lines.measured = 0
    for _ in range(1_000):
        lines.append("more text ")
        lines.longest()  # as the viewer sizes itself after each chunk
    lines.append("end\nnew line\nanother")
    assert lines.measured <= 1_000 + 3
    assert lines.longest() == len("more text " * 1_000 + "end")
