"""The text viewer in an app: search, wrapped rows and highlighting, big texts in threads."""

from __future__ import annotations

import threading

import pytest
from textual.app import App, ComposeResult

from goose_tui.pieces import Pieces
from goose_tui.tui.widgets import text_viewer
from goose_tui.tui.widgets.text_viewer import MAX_MATCHES, Lines, TextViewer

from .conftest import settle, wait_until


class ViewerApp(App[None]):
    """One viewer alone, as a pane holds it."""

    def __init__(self, viewer: TextViewer) -> None:
        super().__init__()
        self._viewer = viewer

    def compose(self) -> ComposeResult:
        yield self._viewer


async def test_search_finds_what_it_finds_in_the_joined_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Matches across piece boundaries and across search windows, and the line-by-line path
    # (lower() of "İ" is two characters: columns are the lowered line's).
    monkeypatch.setattr(text_viewer, "SEARCH_WINDOW_CHARS", 13)

    text = ("ab cd\nxAB é" + "İ" * 3 + "\nlast ab") * 40
    pieces = Pieces(text[i : i + 7] for i in range(0, len(text), 7))

    app = ViewerApp(TextViewer())
    async with app.run_test() as pilot:
        viewer = app.query_one(TextViewer)
        for needle in ("ab", "B\na", "é", "İ", "xyz"):
            found = {}
            for shown in (text, pieces):
                viewer.set_text(shown)
                viewer.search = needle
                await pilot.pause()
                found[type(shown)] = list(viewer.matches)
            expected = []
            for number, line in enumerate(text.split("\n")):
                column = line.lower().find(needle.lower())
                while column != -1:
                    expected.append((number, column))
                    column = line.lower().find(needle.lower(), column + len(needle.lower()))
            assert expected or needle in ("B\na", "xyz")
            assert found[str] == found[Pieces] == expected[:MAX_MATCHES], needle


@pytest.mark.parametrize("big", [False, True])
async def test_wide_characters_are_all_drawn_in_a_wrapped_pane(
    big: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from goose_tui.inert import inert

    if big:  # the prompt of a big session: indexed in a thread, rows cut without words
        monkeypatch.setattr(text_viewer, "WORD_WRAP_CHARS", 50)
        monkeypatch.setattr(text_viewer, "INDEX_IN_THREAD_CHARS", 50)
    lines = [
        "session return a 日本語のテキスト and more 日本語のテキスト words",
        "plain ascii line " * 4,
        "request module context config {} is the done 🙂 done 🙂 done",
        "\tindented\twith\ttabs and an invisible \u200b here",
    ]

    app = ViewerApp(TextViewer(wrap=True))
    async with app.run_test(size=(30, 40)) as pilot:
        viewer = app.query_one(TextViewer)
        viewer.set_text(Pieces(["\n".join(lines[:2]), "\n", "\n".join(lines[2:])]))
        await wait_until(pilot, lambda: viewer._row_total > len(lines))
        width = viewer.scrollable_content_region.width
        rows = [viewer.render_line(y).text for y in range(viewer._row_total)]
        assert all(len(row.rstrip()) <= width for row in rows)
        drawn = "".join(row.rstrip() for row in rows).replace(" ", "")
        assert drawn == "".join(inert(line) for line in lines).replace(" ", "")


@pytest.mark.parametrize("wrap", [False, True])
async def test_a_match_after_a_tab_is_highlighted_where_it_is_drawn(wrap: bool) -> None:
    # Matches are found in the raw text; a tab before one is drawn as four spaces and an
    # invisible character as <U+200B>, so the highlight landed left of the word.
    app = ViewerApp(TextViewer("\tkey\u200b = value\nvalue", wrap=wrap))
    async with app.run_test(size=(60, 10)) as pilot:
        viewer = app.query_one(TextViewer)
        viewer.search = "value"
        await pilot.pause()
        matched = viewer.get_component_rich_style("text-viewer--current-match", partial=True)
        other = viewer.get_component_rich_style("text-viewer--match", partial=True)
        for y in range(2):
            segments = list(viewer.render_line(y))
            colours = (matched.bgcolor, other.bgcolor)
            marked = [s.text for s in segments if s.style and s.style.bgcolor in colours]
            assert marked == ["value"], (y, [(s.text, s.style) for s in segments])


async def test_a_big_text_is_searched_in_a_thread_and_the_last_search_wins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Each key typed into the search box searched the 53 MB session's prompt on the event
    # loop (0.1-0.2 s a key).
    monkeypatch.setattr(text_viewer, "INDEX_IN_THREAD_CHARS", 100)
    searched_in: set[str] = set()
    real = text_viewer.find_matches

    def recording(lines: Lines, search: str, cancelled=lambda: False):  # noqa: ANN001, ANN202
        if search:
            searched_in.add(threading.current_thread().name)
        return real(lines, search, cancelled)

    monkeypatch.setattr(text_viewer, "find_matches", recording)
    text = "ab cd\nxAB é\n" * 50

    app = ViewerApp(TextViewer())
    async with app.run_test() as pilot:
        viewer = app.query_one(TextViewer)
        viewer.set_text(text)
        await wait_until(pilot, lambda: bool(viewer._lines))
        viewer.search = "a"
        viewer.search = "ab"  # typed on before the first search ended
        assert viewer.searching
        await wait_until(pilot, lambda: not viewer.searching)
        assert viewer.matches == real(Lines(text), "ab") and len(viewer.matches) == 100
        assert searched_in and threading.main_thread().name not in searched_in


async def test_a_search_that_ends_after_the_text_changed_is_dropped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(text_viewer, "INDEX_IN_THREAD_CHARS", 100)
    release, real = threading.Event(), text_viewer.find_matches

    def held(lines: Lines, search: str, cancelled=lambda: False):  # noqa: ANN001, ANN202
        if search and len(lines) > 10:  # the big text's search: still running after it
            release.wait(30)
        return real(lines, search, cancelled)

    monkeypatch.setattr(text_viewer, "find_matches", held)

    app = ViewerApp(TextViewer())
    async with app.run_test() as pilot:
        viewer = app.query_one(TextViewer)
        viewer.set_text("ab\n" * 200)
        await wait_until(pilot, lambda: bool(viewer._lines))
        viewer.search = "ab"
        assert viewer.searching
        viewer.set_text("small ab text")  # searched at once
        assert viewer.matches == [(0, 6)] and not viewer.searching
        release.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert viewer.matches == [(0, 6)]  # the big text's 200 matches did not land


async def test_a_big_text_is_highlighted_in_a_thread_and_shown_meanwhile() -> None:
    from goose_tui.tui.highlight import highlight_lines
    from goose_tui.tui.widgets.text_viewer import SYNC_HIGHLIGHT_CHARS

    class ViewerApp(App[None]):
        def compose(self) -> ComposeResult:
            yield TextViewer(syntax="markdown")

    text = "".join(f"## Heading {n}\n\n*emphasis* and `code`\n\n" for n in range(1000))
    assert len(text) > SYNC_HIGHLIGHT_CHARS
    app = ViewerApp()
    async with app.run_test(size=(90, 30)) as pilot:
        viewer = app.query_one(TextViewer)
        viewer.set_text(text)
        assert viewer._lines[0] == "## Heading 0"  # the text is there at once, plain
        await settle(pilot)
        assert viewer._syntax_spans == highlight_lines(text, "markdown")
        # A newer small text wins over a late result for the big one.
        viewer.set_text(text + "x")
        viewer.set_text("# small")
        await settle(pilot)
        assert viewer._syntax_spans == highlight_lines("# small", "markdown")


async def test_a_big_text_is_split_into_lines_in_a_thread_with_the_same_rows() -> None:
    # Splitting the 47-million-character prompt of a 53 MB session into lines and counting
    # its wrapped rows held the event loop ~0.4 s (app_big_session.py).
    from goose_tui.tui.widgets import text_viewer
    from goose_tui.tui.widgets.text_viewer import INDEX_IN_THREAD_CHARS, Lines

    class ViewerApp(App[None]):
        def compose(self) -> ComposeResult:
            yield TextViewer("before", wrap=True)

    line = "word " * 30
    text = "\n".join(line[: n % 150] for n in range(INDEX_IN_THREAD_CHARS // 70))
    assert len(text) > INDEX_IN_THREAD_CHARS
    threads: set[str] = set()
    real = text_viewer.Lines

    class Recording(Lines):
        def __init__(self, text: str = "") -> None:
            threads.add(threading.current_thread().name)
            super().__init__(text)

    app = ViewerApp()
    async with app.run_test(size=(90, 30)) as pilot:
        viewer = app.query_one(TextViewer)
        text_viewer.Lines = Recording  # type: ignore[misc]
        try:
            viewer.set_text(text)
            assert viewer.text == "before"  # shown until the new lines are ready
            await settle(pilot)
        finally:
            text_viewer.Lines = real  # type: ignore[misc]
        assert threading.main_thread().name not in threads
        assert viewer.text is text and list(viewer._lines) == text.split("\n")
        width = viewer._wrap_width
        assert (viewer._row_starts, viewer._row_total) == text_viewer._rows(Lines(text), width, {})
        assert viewer.virtual_size.height == viewer._row_total
        # A new width (a resize, a scroll bar) counts the rows again, in a thread too.
        counted: set[str] = set()
        real_rows = text_viewer._rows

        def recording_rows(*args):  # type: ignore[no-untyped-def]
            counted.add(threading.current_thread().name)
            return real_rows(*args)

        text_viewer._rows = recording_rows  # type: ignore[assignment]
        try:
            await pilot.resize_terminal(70, 30)
            await settle(pilot)
        finally:
            text_viewer._rows = real_rows  # type: ignore[assignment]
        assert viewer._wrap_width != width and viewer._wrapped_width == viewer._wrap_width
        assert counted and threading.main_thread().name not in counted
        expected = text_viewer._rows(Lines(text), viewer._wrap_width, {})
        assert (viewer._row_starts, viewer._row_total) == expected
        # A newer text set meanwhile wins over a late result; streamed text extends it.
        viewer.set_text(text + "x")
        viewer.set_text("small")
        viewer.append(" and more")
        await settle(pilot)
        assert viewer.text == "small and more"
        viewer.set_text(text)
        viewer.append("!")  # extends the big text, not the one shown before it
        await settle(pilot)
        assert viewer.text == text + "!"


async def test_a_new_width_keeps_the_line_at_the_top_of_the_view() -> None:
    # Re-wrapping at a new width kept the row number, so a resize showed another part of the
    # prompt (tmux: from its end to its middle).
    class ViewerApp(App[None]):
        def compose(self) -> ComposeResult:
            yield TextViewer(wrap=True)

    lines = [f"line {n:03d} " + "word " * 24 for n in range(300)]
    app = ViewerApp()
    async with app.run_test(size=(60, 20)) as pilot:
        viewer = app.query_one(TextViewer)
        viewer.set_text("\n".join(lines))
        await settle(pilot)
        viewer.scroll_to(y=viewer._row_starts[150], animate=False)
        await settle(pilot)
        assert viewer.render_line(0).text.startswith("line 150")
        await pilot.resize_terminal(90, 20)
        await settle(pilot)
        assert viewer.render_line(0).text.startswith("line 150")
        # At the end, it stays at the end.
        viewer.scroll_end(animate=False, immediate=True)
        await settle(pilot)
        await pilot.resize_terminal(50, 20)
        await settle(pilot)
        assert viewer.scroll_y == viewer.max_scroll_y > 0
        last = [viewer.render_line(y).text for y in range(viewer.size.height)]
        assert any("word" in row for row in last[-3:]) and "line 299" in "".join(last)


async def test_a_wrapped_pane_wraps_only_what_a_streamed_chunk_touched() -> None:
    # The analysis pane wraps now (two walk-throughs: a long analysis line needed sideways
    # scrolling). A streamed reply arrives in thousands of chunks: each wraps the lines it
    # touched, and the rows are those of wrapping the whole text at once.
    import random

    from goose_tui.tui.widgets import text_viewer

    class ViewerApp(App[None]):
        def compose(self) -> ComposeResult:
            yield TextViewer("", wrap=True)

    rng = random.Random(12)
    words = ["a", "word", "longer-word", "x" * 70, "\n", "\n\n", " ", "é🙂"]
    text = "".join(rng.choice(words) + rng.choice(["", " "]) for _ in range(3_000))
    app = ViewerApp()
    async with app.run_test(size=(60, 20)) as pilot:
        viewer = app.query_one(TextViewer)
        await settle(pilot)
        wrapped: list[int] = []
        real = text_viewer._word_breaks

        def counting(line: str, width: int) -> list[int]:
            wrapped.append(len(line))
            return real(line, width)

        text_viewer._word_breaks = counting  # type: ignore[assignment]
        try:
            at = 0
            while at < len(text):
                step = rng.randint(1, 120)
                viewer.append(text[at : at + step])
                at += step
        finally:
            text_viewer._word_breaks = real  # type: ignore[assignment]
        assert viewer.text == text
        streamed = (list(viewer._row_starts), viewer._row_total, dict(viewer._breaks))
        # Far less than wrapping every long line again per chunk.
        long_lines = sum(len(line) > viewer._wrap_width for line in text.split("\n"))
        assert sum(wrapped) < 4 * len(text) and len(wrapped) < 40 * long_lines + 2_000
        # What wrapping the whole text at the same width gives.
        width = viewer._wrapped_width
        lines = text_viewer.Lines(text)
        breaks, (starts, total) = text_viewer._wrapped(lines, width, words=True)
        assert streamed == (list(starts), total, breaks)
