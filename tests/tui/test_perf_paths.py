"""The fast paths of the app and what they must keep: the Rich-rendered summary preview
(still inert, links still dead, source toggle), broken template overrides falling back with
a visible warning, and a session that is still being counted staying usable."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest
from textual.app import App, ComposeResult

from goose_tui.tokens import TokenCounter
from goose_tui.tui.app import GooseTUI
from goose_tui.tui.screens.help import HelpScreen
from goose_tui.tui.widgets.context_gauge import ContextGauge
from goose_tui.tui.widgets.conversation_view import ConversationView
from goose_tui.tui.widgets.pane import Pane
from goose_tui.tui.widgets.summary_preview import MarkdownLines, SummaryPreview
from goose_tui.tui.widgets.text_viewer import TextViewer

from .conftest import rewrite, settle, wait_until

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


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


def _broken_override(folder: Path, name: str = "compaction.md") -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text("line one\nline two\n{{ messages }}\n{% for x in %}\n", encoding="utf-8")
    return path


async def test_broken_override_at_start_uses_builtin_and_says_so_in_the_border(
    session_file: Path, tmp_path: Path
) -> None:
    broken = _broken_override(tmp_path / "prompts")
    app = GooseTUI(session_file, prompts_dir=broken.parent)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        assert app.inspector.templates.compaction.source.origin == "built-in"
        border = str(app.main.query_one("#pane-input", Pane).border_subtitle)
        assert border == f"compaction.md: built-in (override broken: {broken}:4)"
        warnings = [n for n in app._notifications if n.severity == "warning"]
        assert any(f"{broken}:4" in n.message for n in warnings)
        prompt = app.main.query_one("#input-view", TextViewer).text
        assert "[user]: The test test_parse_dates" in prompt  # built by the built-in


async def test_an_override_that_is_a_folder_is_reported_as_broken(
    session_file: Path, tmp_path: Path
) -> None:
    # It was passed over in silence: the built-in was used, no toast.
    folder = tmp_path / "prompts" / "compaction.md"
    folder.mkdir(parents=True)
    app = GooseTUI(session_file, prompts_dir=folder.parent)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        assert app.inspector.templates.compaction.source.origin == "built-in"
        border = str(app.main.query_one("#pane-input", Pane).border_subtitle)
        assert border == f"compaction.md: built-in (override broken: {folder})"
        toasts = [n for n in app._notifications if n.title == "template override broken"]
        assert [n.message for n in toasts] == [
            f"{folder}: is a folder, not a file (override skipped); using the next template in line"
        ]


async def test_override_that_appears_broken_falls_back_then_is_used_once_fixed(
    session_file: Path, tmp_path: Path
) -> None:
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    app = GooseTUI(session_file, prompts_dir=prompts)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        pane = app.main.query_one("#pane-input", Pane)
        broken = _broken_override(prompts)
        rewrite(broken, broken.read_text())
        await wait_until(pilot, lambda: "override broken" in str(pane.border_subtitle))
        assert app.inspector.templates.compaction.source.origin == "built-in"
        # A toast is a message the app handles after the subtitle was set: wait for it too.
        await wait_until(pilot, lambda: any(f"{broken}:4" in n.message for n in app._notifications))
        rewrite(broken, "FIXED\n{{ messages }}")
        viewer = app.main.query_one("#input-view", TextViewer)
        await wait_until(pilot, lambda: viewer.text.startswith("FIXED\n[user]:"))
        assert str(pane.border_subtitle) == f"compaction.md: override {broken} (prompts-dir)"


@pytest.fixture
def generated_session(tmp_path: Path) -> Path:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import gen_session
    finally:
        sys.path.remove(str(BENCHMARKS))
    path = tmp_path / "generated.jsonl"
    return gen_session.write_big_jsonl(path, target_bytes=600_000, messages=800)


async def test_keys_work_while_tokens_are_counted_and_progress_is_shown(
    generated_session: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Hold the counting worker at message 100 so the test sees it mid-way, whatever the
    # machine's speed; the counting itself is the real one.
    release, reached = threading.Event(), threading.Event()
    real_count_all = TokenCounter.count_all
    seen = {"n": 0}

    def count_all(self: TokenCounter, messages):  # noqa: ANN001
        seen["n"] += len(messages)
        if seen["n"] >= 100 and not reached.is_set():
            reached.set()
            release.wait(timeout=30)
        return real_count_all(self, messages)

    monkeypatch.setattr(TokenCounter, "count_all", count_all)
    app = GooseTUI(generated_session)
    async with app.run_test(size=(200, 50)) as pilot:
        gauge = app.main.query_one(ContextGauge)
        await wait_until(pilot, reached.is_set)
        await wait_until(pilot, lambda: gauge.progress is not None)
        first_line = str(gauge.render()).split("\n")[0]
        total = len(app.inspector.session.messages)
        assert first_line.startswith("context: counting tokens… ")
        assert f"/ {total:,} messages" in first_line
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)  # handled while the count is held
        assert gauge.usage is None
        await pilot.press("escape")
        release.set()
        await settle(pilot)
        assert gauge.usage is not None and gauge.progress is None
        assert "counting" not in str(gauge.render())


async def test_model_switch_recounts_nothing_and_opening_builds_few_rows(
    generated_session: Path,
) -> None:
    app = GooseTUI(generated_session)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        main = app.main
        view = main.query_one(ConversationView)
        messages = app.inspector.session.messages
        # Rows of only the messages drawn so far were built; the count is still exact.
        assert len(view._row_cache) < 60 < len(messages)
        assert view.row_count == sum(1 + max(len(m.content), 1) for m in messages)
        last = view.row_text(view.row_count - 1)
        assert last.startswith("  ")  # the last message's last item row, built on demand
        counter = main.query_one(ContextGauge).token_counter
        counted = counter.recounted
        assert counted == len(messages)
        app.set_model("openai/gpt-4o")
        await settle(pilot)
        assert counter.recounted == counted  # served from the shared cache
        viewer = main.query_one("#input-view", TextViewer)
        lines = viewer._lines
        viewer.set_text(viewer.text[:-1] + viewer.text[-1:])  # equal, not the same object
        assert viewer._lines is lines  # not split again


async def test_the_input_pane_shows_the_prompt_from_its_pieces(
    generated_session: Path, reply_file: Path
) -> None:
    # The prompt is never joined into one string on the app's side: joined, it was a second
    # copy of the session (188 MB for the 53 MB one) and a 0.1 s hold of the GIL.
    app = GooseTUI(generated_session, model=f"replay:{reply_file}")
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        request = app.main.prompt_pane.request
        assert request is not None
        viewer = app.main.query_one("#input-view", TextViewer)
        assert viewer._text is request.prompt and len(request.prompt.parts) > 3
        await pilot.press("c")
        await wait_until(pilot, lambda: app.inspector.result is not None)
        await settle(pilot)
        assert app.inspector.result.request is request  # the one shown is the one sent
        assert viewer._text is request.prompt
        assert "system_prompt" not in vars(request)  # its joined text was never made
        assert viewer.text == request.system_prompt  # the copy key's text, joined then


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


async def test_a_big_summary_is_rendered_in_a_thread_with_the_same_lines() -> None:
    # The summary of a 53 MB session (1.8 MB of Markdown) held the event loop 4-5 s in
    # Rich; more than SYNC_RENDER_CHARS of it is now rendered in a thread, the pane saying
    # "rendering the summary…" meanwhile, and the lines are those of rendering it in place.
    import threading

    from goose_tui.tui.widgets import summary_preview
    from goose_tui.tui.widgets.summary_preview import RENDERING, SYNC_RENDER_CHARS

    body = "".join(f"## Part {n}\n\n- item `{n}` with **bold** text\n\n" for n in range(800))
    assert len(body) > SYNC_RENDER_CHARS
    app = PreviewApp()
    async with app.run_test(size=(90, 30)) as pilot:
        view = app.query_one(MarkdownLines)
        threads: set[str] = set()
        real_render = summary_preview._Renderer.render

        def render(self, section: str, width: int):  # type: ignore[no-untyped-def]
            threads.add(threading.current_thread().name)
            return real_render(self, section, width)

        summary_preview._Renderer.render = render  # type: ignore[method-assign]
        try:
            view.set_markdown(body)
            assert view.rendering and view.lines == []
            assert RENDERING in view.render_line(0).text
            await wait_until(pilot, lambda: not view.rendering)
        finally:
            summary_preview._Renderer.render = real_render  # type: ignore[method-assign]
        assert threading.main_thread().name not in threads
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
        assert "Part 799" in "".join(threaded)


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


async def test_the_loaded_session_is_kept_out_of_full_collections() -> None:
    import gc

    app = GooseTUI(Path(__file__).parent / "data" / "small_session.jsonl")
    try:
        async with app.run_test() as pilot:
            await settle(pilot)
            assert app.inspector.session is not None
            message = app.inspector.session.messages[0]
            assert not any(obj is message for obj in gc.get_objects())
            assert gc.get_freeze_count()
        # Gone with the app: kept out, the apps of a test run (many in one process) piled up
        # and the next app's first load walked them all in a full collection (27 % of the
        # app tests' CPU under py-spy).
        assert gc.get_freeze_count() == 0
    finally:
        gc.unfreeze()


async def test_tokens_are_never_summed_on_the_event_loop(session_file: Path) -> None:
    # After a compaction the gauge's projection summed the history's 20,000 cached counts of
    # a 53 MB session on the event loop (80 ms); it is a worker now, like the first count.
    threads: list[str] = []
    real_total = TokenCounter.total

    def recording(self, messages, *counts, **stop):  # type: ignore[no-untyped-def]
        threads.append(threading.current_thread().name)
        return real_total(self, messages, *counts, **stop)

    app = GooseTUI(session_file)
    async with app.run_test(size=(200, 50)) as pilot:
        TokenCounter.total = recording  # type: ignore[method-assign]
        try:
            await settle(pilot)
            await pilot.press("c")
            await settle(pilot)
        finally:
            TokenCounter.total = real_total  # type: ignore[method-assign]
        gauge = app.main.query_one(ContextGauge)
        assert gauge.projected is not None and gauge.replaced is not None
        assert gauge.replaced == gauge.token_counter.total(app.main.inspector.session.messages)
        assert threads and threading.main_thread().name not in threads


async def test_the_gauge_looks_each_message_up_once(generated_session: Path) -> None:
    # The count summed the history again through the cache (each lookup builds and hashes
    # the message's texts), and again for the projection: three passes for one figure.
    looked_up: list[int] = []
    real_count, real_count_all = TokenCounter.count, TokenCounter.count_all

    def recording(self, message):  # type: ignore[no-untyped-def]
        looked_up.append(id(message))
        return real_count(self, message)

    def recording_all(self, messages):  # type: ignore[no-untyped-def]
        looked_up.extend(map(id, messages))
        return real_count_all(self, messages)

    app = GooseTUI(generated_session)
    # Patched before the app starts: patched inside, a count that began first was missed.
    TokenCounter.count, TokenCounter.count_all = recording, recording_all  # type: ignore[method-assign]
    try:
        async with app.run_test(size=(200, 50)) as pilot:
            await settle(pilot)
            TokenCounter.count, TokenCounter.count_all = real_count, real_count_all  # type: ignore[method-assign]
            messages = app.inspector.session.messages
            assert sorted(looked_up) == sorted(map(id, messages))
            gauge = app.main.query_one(ContextGauge)
            assert gauge.usage is not None
            assert gauge.usage.used == gauge.token_counter.total(messages)
    finally:
        TokenCounter.count, TokenCounter.count_all = real_count, real_count_all  # type: ignore[method-assign]


async def test_the_projection_reuses_the_gauges_count_of_the_history(session_file: Path) -> None:
    # Summing the history's cached counts again for the projection (~0.1 s of the GIL for
    # 20,000 messages) held back the frames that draw the summary.
    summed: list[int] = []
    real_total = TokenCounter.total

    def recording(self, messages, *counts, **stop):  # type: ignore[no-untyped-def]
        summed.append(len(messages))
        return real_total(self, messages, *counts, **stop)

    app = GooseTUI(session_file)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        TokenCounter.total = recording  # type: ignore[method-assign]
        try:
            await pilot.press("c")
            await settle(pilot)
        finally:
            TokenCounter.total = real_total  # type: ignore[method-assign]
        gauge = app.main.query_one(ContextGauge)
        assert gauge.replaced == real_total(
            gauge.token_counter, app.main.inspector.session.messages
        )
        assert summed == [1]  # the summary message alone


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


async def test_a_big_summary_settles_at_the_width_it_is_drawn_in() -> None:
    # Rendering a big summary in a thread cleared the pane, so its scroll bar went and the
    # width grew by the bar's; the long result brought the bar back, the width shrank, and
    # it rendered again: forever, at 100% CPU, the lines drawn clipped (tmux, 53 MB session).
    from goose_tui.tui.widgets.summary_preview import SECTION_CACHE, SYNC_RENDER_CHARS

    body = "".join(
        f"## Part {n}\n\n- item `{n}` with words enough to wrap at forty columns\n\n"
        for n in range(SECTION_CACHE * 8)
    )
    assert len(body) > SYNC_RENDER_CHARS
    app = PreviewApp()
    async with app.run_test(size=(50, 20)) as pilot:
        view = app.query_one(MarkdownLines)
        view.set_markdown(body)
        await wait_until(pilot, lambda: not view.rendering)
        await pilot.pause(0.3)
        settled = view._generation
        await pilot.pause(1.0)
        assert view._generation == settled and not view.rendering  # no render since
        assert view._rendered_width == view._width
        assert all(strip.cell_length == view._width for strip in view.lines[:50])
        # A resize renders it again in a thread; the lines at the last width stay meanwhile.
        from goose_tui.tui.widgets import summary_preview

        before, gate = view._width, threading.Event()
        real_render = summary_preview._Renderer.render

        def held(self, section: str, width: int):  # type: ignore[no-untyped-def]
            gate.wait(10)
            return real_render(self, section, width)

        summary_preview._Renderer.render = held  # type: ignore[method-assign]
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


async def test_the_rendered_summary_is_kept_as_segments_not_strips() -> None:
    # Each Textual Strip carries seven caches: the 58,000 lines of the 53 MB session's summary
    # held ~400,000 FIFOCache objects (app_big_session.py: +300 MB after the compaction). The
    # lines are kept as Rich segments and a Strip is made for the lines drawn.
    from textual.strip import Strip

    body = "".join(f"## Part {n}\n\n- item `{n}` with **bold** text\n\n" for n in range(300))
    app = PreviewApp()
    async with app.run_test(size=(90, 30)) as pilot:
        view = app.query_one(MarkdownLines)
        view.set_markdown(body)
        await wait_until(pilot, lambda: not view.rendering)
        await settle(pilot)
        kept = [*view._rows, *(line for rows, _ in view._cache.values() for line in rows)]
        assert kept and not any(isinstance(row, Strip) for row in kept)
        assert len(view.lines) > 1000 and "Part 299" in _plain(view)
        assert view.render_line(0).cell_length == view._width


async def test_a_big_summarys_first_screens_are_shown_while_the_rest_renders() -> None:
    # The 1.8 MB summary of a 53 MB session said "rendering the summary…" for ~5 s; its first
    # sections are on screen as soon as they are rendered, the rest follows.
    from goose_tui.tui.widgets import summary_preview
    from goose_tui.tui.widgets.summary_preview import SYNC_RENDER_CHARS

    body = "".join(f"## Part {n}\n\n- item `{n}` with **bold** text\n\n" for n in range(900))
    assert len(body) > SYNC_RENDER_CHARS
    gate = threading.Event()
    real_render = summary_preview._Renderer.render

    def held(self, section: str, width: int):  # type: ignore[no-untyped-def]
        if "Part 300" in section:
            gate.wait(10)  # the thread stops here until the head was seen
        return real_render(self, section, width)

    app = PreviewApp()
    async with app.run_test(size=(90, 30)) as pilot:
        view = app.query_one(MarkdownLines)
        summary_preview._Renderer.render = held  # type: ignore[method-assign]
        try:
            view.set_markdown(body)
            await wait_until(pilot, lambda: view.lines_count > 0)
            assert view.rendering  # the rest is still on its way
            assert "Part 0" in view.render_line(0).text + view.render_line(1).text
            assert "Part 899" not in _plain(view)
        finally:
            gate.set()
            summary_preview._Renderer.render = real_render  # type: ignore[method-assign]
        await wait_until(pilot, lambda: not view.rendering)
        assert "Part 899" in _plain(view)


def record_frames_showing(app: GooseTUI, text: str, painted: list[bool]) -> None:
    """From now on, note in ``painted`` each frame whose terminal bytes show ``text``."""
    display = app._display

    def recording_display(screen, renderable) -> None:  # type: ignore[no-untyped-def]
        display(screen, renderable)
        render = getattr(renderable, "render_segments", None)
        if render is not None and text in render(app.console):
            painted.append(True)

    app._display = recording_display  # type: ignore[method-assign]


async def test_c_paints_running_before_the_compactions_threads_start(
    session_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 12, key to screen: started at once, building, counting and sending the request
    # (threads, on 2 cores) held back the frame saying "running" for 0.14-0.22 s on the 53 MB
    # session (app_big_session.py --litellm). The frame goes out first now.
    from goose_tui.inspector import Inspector

    app = GooseTUI(session_file)
    painted: list[bool] = []
    seen_at_start: list[bool] = []
    real_compact = Inspector.compact

    async def recording(self, **kwargs):  # type: ignore[no-untyped-def]
        seen_at_start.append(bool(painted))
        return await real_compact(self, **kwargs)

    monkeypatch.setattr(Inspector, "compact", recording)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        record_frames_showing(app, "running", painted)
        await pilot.press("c")
        await settle(pilot)
    assert seen_at_start == [True]


async def test_what_the_first_summary_needs_is_prepared_in_a_thread_after_the_counts(
    session_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Importing Rich's Markdown and markdown-it and compiling their patterns on the first
    # summary held the loop at the end of the first compaction (app_big_session.py --why).
    from goose_tui.tui.widgets import summary_preview

    calls: list[tuple[str, bool]] = []
    real = summary_preview.warm_up

    def recording() -> None:
        gauge = app.main.query_one(ContextGauge)
        calls.append((threading.current_thread().name, gauge.usage is not None))
        real()

    monkeypatch.setattr(summary_preview, "warm_up", recording)
    app = GooseTUI(session_file)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        app.set_model("offline")  # another count: prepared once only
        await settle(pilot)
    assert len(calls) == 1
    thread, counted = calls[0]
    assert thread != threading.main_thread().name and counted


async def test_a_compactions_summary_panes_are_drawn_after_the_frame_saying_done(
    session_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Drawing a long reply's whole result in one callback (status, prompt, analysis, tree,
    # editors, preview) held the loop ~0.3 s for the offline model's 1.9 MB reply on the
    # 53 MB session. "done" is painted first; the panes follow a step at a time.
    from goose_tui.tui.widgets.fields_tree import FieldsTree

    app = GooseTUI(session_file)
    painted: list[bool] = []
    at_tree: list[bool] = []
    real_show = FieldsTree.show_summary

    def recording(self, summary):  # type: ignore[no-untyped-def]
        if summary is not None:  # the compaction's (a new session shows none)
            at_tree.append(bool(painted))
        return real_show(self, summary)

    monkeypatch.setattr(FieldsTree, "show_summary", recording)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        record_frames_showing(app, "done", painted)
        await pilot.press("c")
        await settle(pilot)
        assert app.main.query_one(SummaryPreview).markdown == app.inspector.summary.text
    assert at_tree == [True]


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


async def test_a_big_summarys_tree_is_built_expanded_without_a_message_per_node() -> None:
    # The fields tree of the offline model's summary of the 53 MB session has ~1,000 nodes.
    # Expanding them all afterwards posted one NodeExpanded message per node, and Textual's
    # Tree copied each label to take its first line: the frame after the tree was filled
    # held the loop 70-120 ms (benchmarks/app_big_session.py --why). The nodes are now added
    # expanded, and a label (one line already) is used as it is.
    from rich.text import Text
    from textual.widgets import Tree

    from goose_tui.compaction.structured import FileEntry, StructuredSummary
    from goose_tui.tui.widgets.fields_tree import ITEMS_SHOWN, FieldsTree

    class TreeApp(App[None]):
        def compose(self) -> ComposeResult:
            yield FieldsTree()

    code = "\n".join(f"def f{n}():\n    return {n}" for n in range(30))
    summary = StructuredSummary(
        user_intent=[f"intent {n}\nsecond line" for n in range(300)],
        files=[
            FileEntry(path=f"src/m{n}.py", summary=f"module {n}", key_code=code) for n in range(250)
        ],
        current_work="working",
        extras={"notes": {"a": [1, 2]}},
    )
    expanded: list[object] = []
    app = TreeApp()
    async with app.run_test(size=(120, 40)) as pilot:
        tree = app.query_one(FieldsTree)
        real_post = tree.post_message

        def post(message):  # type: ignore[no-untyped-def]
            if isinstance(message, Tree.NodeExpanded):
                expanded.append(message)
            return real_post(message)

        tree.post_message = post  # type: ignore[method-assign]
        tree.show_summary(summary)
        await settle(pilot)
        assert expanded == []
        nodes = [n for n in tree._tree_nodes.values() if n.parent is not None]  # not the root
        assert all(n.is_expanded for n in nodes if n.allow_expand)
        assert len(tree._tree_lines) == len(nodes)  # every node is shown
        labels = [line.node.label for line in tree._tree_lines]
        assert all(isinstance(label, Text) and "\n" not in label.plain for label in labels)
        assert "intent 0 ⏎ second line" in [label.plain for label in labels]
        files = next(n for n in tree.root.children if str(n.label).startswith("files"))
        assert len(files.children) == ITEMS_SHOWN + 1  # and "… 50 more"
        first_file = files.children[0]
        key_code = first_file.children[1]
        assert [str(c.label) for c in key_code.children[:2]] == ["def f0():", "    return 0"]


async def test_the_app_never_builds_the_encoder(
    session_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every count of the app is made in its token worker (goose_tui/token_worker.py):
    # building the encoder here held the GIL 0.1-0.4 s, a frozen screen.
    from goose_tui import tokens
    from goose_tui.session.loader import load_session
    from tests.core.test_token_worker import no_encoder_here

    from .conftest import compacted

    session = load_session(session_file)
    expected = TokenCounter().total(session.messages)
    no_encoder_here(monkeypatch)
    app = GooseTUI(session_file)
    async with app.run_test(size=(200, 50)) as pilot:
        await compacted(pilot)  # the prompt's and the summary's counts too
        usage = app.main.query_one(ContextGauge).usage
        assert usage is not None and usage.used == expected
        assert app.main.query_one(ContextGauge).projected
    assert tokens.counts_elsewhere is None
