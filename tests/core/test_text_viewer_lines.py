"""The text viewer's line index (goose_tui/tui/widgets/text_viewer.py) gives the same lines as
``str.split("\\n")`` without a copy, and its rows fit the pane: plain functions, no app."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from goose_tui.pieces import Pieces
from goose_tui.tui.widgets import text_viewer
from goose_tui.tui.widgets.text_viewer import MAX_MATCHES, Lines

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


@given(st.text(st.sampled_from(list("ab\né😀")), max_size=60), st.data())
def test_lines_of_pieces_are_the_lines_of_their_join(text: str, data: st.DataObject) -> None:
    # The prompt is shown from its pieces (goose_tui.pieces): a line may span several.
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=8)))
    bounds = [0, *cuts, len(text)]
    pieces = Pieces(text[a:b] for a, b in zip(bounds, bounds[1:], strict=False))
    lines, whole = Lines(pieces), Lines(text)
    assert list(lines) == list(whole)
    assert [lines.length(n) for n in range(len(lines))] == [
        whole.length(n) for n in range(len(whole))
    ]
    assert lines.longest() == whole.longest() and lines.text == text
    for offset in range(len(text)):
        assert lines.number_at(offset) == text.count("\n", 0, offset)


def test_the_pieces_are_not_copied() -> None:
    parts = ["x" * 1000 + "\n", "y" * 10]
    assert all(a is b for a, b in zip(Lines(Pieces(parts)).text.parts, parts, strict=True))


def test_the_search_note_counts_in_words_a_reader_expects() -> None:
    from goose_tui.tui.widgets.prompt_pane import matches_note

    assert matches_note(0) == "no match"
    assert matches_note(1) == "1 match (n / N to move)"
    assert matches_note(1_234) == "1,234 matches (n / N to move)"
    assert matches_note(MAX_MATCHES).startswith(f"the first {MAX_MATCHES:,} matches")


@given(st.text(st.sampled_from(list("ab  c")), max_size=80), st.integers(1, 30))
def test_rows_by_cells_are_rows_by_characters_when_each_is_one_cell(line: str, width: int) -> None:
    assert text_viewer._cell_breaks(line, width, words=True) == text_viewer._word_breaks(
        line, width
    )
    assert text_viewer._cell_breaks(line, width, words=False) == list(
        range(0, max(len(line), 1), width)
    )


WIDE = st.sampled_from(list("ab é日本語🙂\t\u200b\x85\x1b") + ["\u0301"])


@given(st.text(WIDE, max_size=60), st.integers(1, 30), st.booleans())
def test_no_row_is_wider_than_the_pane(line: str, width: int, words: bool) -> None:
    # Rows were cut by characters: a tab (four cells), an invisible character shown as
    # <U+200B> (eight) or a CJK character or emoji (two) pushed the row's end out of view.
    from rich.cells import cell_len

    from goose_tui.inert import inert

    starts = text_viewer._cell_breaks(line, width, words)
    rows = [line[a:b] for a, b in zip(starts, [*starts[1:], len(line)], strict=True)]
    assert "".join(rows) == line
    for row in rows:
        shown = cell_len(inert(row))
        # Over only by what cannot be split: one character wider than the pane, or the
        # space a word wrap ends a row with.
        assert shown <= width or len(row) == 1 or (words and row.endswith(" "))
