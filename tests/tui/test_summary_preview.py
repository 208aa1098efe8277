"""The summary preview: Markdown rendered by Rich into lines, inert (markup and escapes
shown literally, links dead), a source toggle, sections rendered once and cached, and a big
summary rendered in a thread, its first screens shown meanwhile, at the width it is drawn
in, kept as segments rather than Strips."""

from __future__ import annotations

import threading

import pytest
from textual.app import App, ComposeResult

from goose_tui.tui.widgets.summary_preview import MarkdownLines, SummaryPreview
from goose_tui.tui.widgets.text_viewer import TextViewer

from .conftest import settle, wait_until


class PreviewApp(App[None]):
    def compose(self) -> ComposeResult:
        yield SummaryPreview(id="preview")


def _plain(lines: MarkdownLines) -> str:
    return "\n".join(strip.text for strip in lines.lines)


async def test_preview_shows_markup_and_escapes_literally_and_links_are_dead() -> None:
    hostile = (
        "# Title\n\n"
        "* [bold]x[/] and [link=https://evil.example]click[/link]\n"
        "* escape \x1b]0;pwned\x07 and \x1b[2J clear\n"
        "* a [real link](https://example.com/a) in Markdown\n"
    )
    app = PreviewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        preview = app.query_one(SummaryPreview)
        preview.set_markdown(hostile)
        await pilot.pause()
        view = preview.query_one(MarkdownLines)
        text = _plain(view)
        assert "[bold]x[/]" in text and "[link=https://evil.example]click[/link]" in text
        assert "\x1b" not in text and "\x07" not in text
        assert "␛]0;pwned␇" in text and "␛[2J" in text
        # hyperlinks=False: the address is written out, and no segment carries a link.
        assert "https://example.com/a" in text
        styles = [seg.style for strip in view.lines for seg in strip if seg.style]
        assert styles and not any(style.link for style in styles)
        screen_text = "".join(seg.text for strip in view.lines for seg in strip)
        assert "\x1b" not in screen_text


async def test_preview_toggles_to_source_and_rerenders_on_resize() -> None:
    app = PreviewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        preview = app.query_one(SummaryPreview)
        long_line = "word " * 60
        preview.set_markdown(f"# Head\n\n{long_line}\n")
        await pilot.pause()
        view = preview.query_one(MarkdownLines)
        wide = len(view.lines)
        await pilot.resize_terminal(50, 30)
        await pilot.pause()
        assert len(view.lines) > wide  # wrapped again at the narrower width
        assert all(len(strip.text) <= view.scrollable_content_region.width for strip in view.lines)
        preview.action_toggle_source()
        await pilot.pause()
        source = preview.query_one("#preview-source", TextViewer)
        assert source.display and source.text.startswith("# Head")
        assert not view.display


SECTIONED = (
    "# Summary\n\nintro\n\n## Files\n\n### a.py\n\n```python\n# not a heading\nx = 1\n```\n\n"
    "## Quote\n\n> a quote\n\n## Table\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n## Rule\n\n---\n"
    "## Fence\n\n````md\n```\n## not a heading either\n```\n````\n## End\n\n* x\n  * y\n"
)


def test_split_sections_cuts_before_headings_outside_fences() -> None:
    from goose_tui.tui.widgets.summary_preview import split_sections

    sections = split_sections(SECTIONED)
    assert "\n".join(sections) == SECTIONED
    heads = [s.split("\n", 1)[0] for s in sections]
    assert heads == ["# Summary", "## Files", "### a.py", "## Quote", "## Table", "## Rule"] + [
        "## Fence",
        "## End",
    ]


async def test_sectioned_render_matches_rendering_the_whole_text_at_once() -> None:
    from rich.markdown import Markdown

    app = PreviewApp()
    async with app.run_test(size=(70, 40)) as pilot:
        view = app.query_one(MarkdownLines)
        view.set_markdown(SECTIONED)
        await pilot.pause()
        width = view.scrollable_content_region.width
        options = app.console_options.update(width=width, height=None, highlight=False)
        whole = app.console.render_lines(Markdown(SECTIONED, hyperlinks=False), options)

        def text(lines: list[str]) -> list[str]:
            out = [line.rstrip() for line in lines]
            while out and not out[-1]:
                out.pop()
            return out

        expected = text(["".join(seg.text for seg in line) for line in whole])
        assert text([strip.text for strip in view.lines]) == expected
        # An edit of one section re-renders that section only.
        cached = dict(view._cache)
        view.set_markdown(SECTIONED.replace("intro", "intro, edited"))
        new_keys = set(view._cache) - set(cached)
        assert len(new_keys) == 1 and "intro, edited" in next(iter(new_keys))[0]


async def test_a_late_render_of_an_older_summary_is_dropped() -> None:
    from goose_tui.tui.widgets.summary_preview import SYNC_RENDER_CHARS

    big = "# Old\n\n" + "old words " * (SYNC_RENDER_CHARS // 5)
    app = PreviewApp()
    async with app.run_test(size=(90, 30)) as pilot:
        view = app.query_one(MarkdownLines)
        view.set_markdown(big)  # goes to a thread
        view.set_markdown("# New\n\nsmall")  # rendered at once
        await settle(pilot)
        text = _plain(view)
        assert "New" in text and "old words" not in text and not view.rendering


async def test_a_big_summary_renders_in_a_thread_head_first_settles_and_keeps_segments() -> None:
    # One big summary, rendered once, shows each facet of rendering it in a thread:
    # - The summary of a 53 MB session (1.8 MB of Markdown) held the event loop 4-5 s in
    #   Rich; more than SYNC_RENDER_CHARS of it is rendered in a thread, the pane saying
    #   "rendering the summary…" meanwhile, and the lines are those of rendering it in place.
    # - It said "rendering the summary…" for ~5 s; its first sections are on screen as soon
    #   as they are rendered, the rest follows.
    # - Rendering it in a thread cleared the pane, so its scroll bar went and the width grew
    #   by the bar's; the long result brought the bar back, the width shrank, and it rendered
    #   again: forever, at 100% CPU, the lines drawn clipped (tmux, 53 MB session).
    # - Each Textual Strip carries seven caches: the 58,000 lines of the 53 MB session's
    #   summary held ~400,000 FIFOCache objects (app_big_session.py: +300 MB after the
    #   compaction). The lines are kept as Rich segments and a Strip is made for those drawn.
    from textual.strip import Strip

    from goose_tui.tui.widgets import summary_preview
    from goose_tui.tui.widgets.summary_preview import RENDERING, SECTION_CACHE, SYNC_RENDER_CHARS

    body = "".join(
        f"## Part {n}\n\n- item `{n}` with **bold** words enough to wrap at forty columns\n\n"
        for n in range(SECTION_CACHE * 8)
    )
    last = f"Part {SECTION_CACHE * 8 - 1}"
    assert len(body) > SYNC_RENDER_CHARS
    threads: set[str] = set()
    gate = threading.Event()
    real_render = summary_preview._Renderer.render

    def held(self, section: str, width: int):  # type: ignore[no-untyped-def]
        threads.add(threading.current_thread().name)
        if "Part 300" in section:
            gate.wait(10)  # the thread stops here until the head was seen
        return real_render(self, section, width)

    app = PreviewApp()
    async with app.run_test(size=(50, 20)) as pilot:
        view = app.query_one(MarkdownLines)
        summary_preview._Renderer.render = held  # type: ignore[method-assign]
        try:
            view.set_markdown(body)
            assert view.rendering and view.lines == []
            assert RENDERING in view.render_line(0).text
            await wait_until(pilot, lambda: view.lines_count > 0)
            assert view.rendering  # the rest is still on its way
            assert "Part 0" in view.render_line(0).text + view.render_line(1).text
            assert last not in _plain(view)
        finally:
            gate.set()
        try:
            await wait_until(pilot, lambda: not view.rendering)
        finally:
            summary_preview._Renderer.render = real_render  # type: ignore[method-assign]
        assert threads and threading.main_thread().name not in threads
        assert last in _plain(view)
        # It settles at the width it is drawn in: no render since (a render that sized the
        # pane for another would start another, and settle() would find work still running).
        await settle(pilot)
        settled = view._generation
        await settle(pilot)
        assert view._generation == settled and not view.rendering
        assert view._rendered_width == view._width
        assert all(strip.cell_length == view._width for strip in view.lines[:50])
        # Kept as segments, a Strip made for a line drawn.
        await settle(pilot)
        kept = [*view._rows, *(line for rows, _ in view._cache.values() for line in rows)]
        assert kept and not any(isinstance(row, Strip) for row in kept)
        assert len(view.lines) > 1000 and "Part 299" in _plain(view)
        assert view.render_line(0).cell_length == view._width
        threaded = [strip.text for strip in view.lines]
        # The same text in place, small enough per call: section by section, on the loop.
        view._cache.clear()
        monkey = pytest.MonkeyPatch()
        monkey.setattr(summary_preview, "SYNC_RENDER_CHARS", len(body) + 1)
        try:
            view.set_markdown(body + " ")  # a new text, rendered on the loop
            view.set_markdown(body)
        finally:
            monkey.undo()
        assert not view.rendering
        assert [strip.text for strip in view.lines] == threaded
        # A resize renders it again in a thread; the lines at the last width stay meanwhile.
        before, gate = view._width, threading.Event()

        def held_all(self, section: str, width: int):  # type: ignore[no-untyped-def]
            gate.wait(10)
            return real_render(self, section, width)

        summary_preview._Renderer.render = held_all  # type: ignore[method-assign]
        try:
            await pilot.resize_terminal(64, 20)
            await pilot.pause()
            assert view._width != before and view.rendering and view.lines
            assert "Part 0" in view.render_line(0).text + view.render_line(1).text
        finally:
            gate.set()
            summary_preview._Renderer.render = real_render  # type: ignore[method-assign]
        await wait_until(pilot, lambda: not view.rendering)
        assert view._rendered_width == view._width
