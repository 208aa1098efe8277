"""What the screen shows while ``c`` runs: the frame saying "running" goes out before the
compaction's threads start, the summary panes are drawn after the frame saying "done", and
what the first summary needs is prepared in a thread once the counts are in."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.widgets.context_gauge import ContextGauge
from goose_tui.tui.widgets.summary_preview import SummaryPreview

from .conftest import settle


def record_frames_showing(app: GooseTUI, text: str, painted: list[bool]) -> None:
    """From now on, note in ``painted`` each frame whose terminal bytes show ``text``."""
    display = app._display

    def recording_display(screen, renderable) -> None:  # type: ignore[no-untyped-def]
        display(screen, renderable)
        render = getattr(renderable, "render_segments", None)
        if render is not None and text in render(app.console):
            painted.append(True)

    app._display = recording_display  # type: ignore[method-assign]


async def test_c_paints_running_first_then_done_then_the_summary_panes(
    session_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Started at once, building, counting and sending the request (threads, on 2 cores) held
    # back the frame saying "running" on a big session; drawing a long reply's whole result
    # in one callback (status, prompt, analysis, tree, editors, preview) held the loop. The
    # frame goes out first; "done" is painted next, the panes follow a step at a time.
    # Importing Rich's Markdown and markdown-it and compiling their patterns on the first
    # summary held the loop at the end of the first compaction: it is prepared in a thread.
    from goose_tui.inspector import Inspector
    from goose_tui.tui.widgets import summary_preview
    from goose_tui.tui.widgets.fields_tree import FieldsTree

    app = GooseTUI(session_file)
    warmed: list[tuple[str, bool]] = []
    real_warm_up = summary_preview.warm_up

    def recording_warm_up() -> None:
        gauge = app.main.query_one(ContextGauge)
        warmed.append((threading.current_thread().name, gauge.usage is not None))
        real_warm_up()

    running: list[bool] = []
    done: list[bool] = []
    seen_at_start: list[bool] = []
    at_tree: list[bool] = []
    real_compact = Inspector.compact
    real_show = FieldsTree.show_summary

    async def recording_compact(self, **kwargs):  # type: ignore[no-untyped-def]
        seen_at_start.append(bool(running))
        return await real_compact(self, **kwargs)

    def recording_show(self, summary):  # type: ignore[no-untyped-def]
        if summary is not None:  # the compaction's (a new session shows none)
            at_tree.append(bool(done))
        return real_show(self, summary)

    monkeypatch.setattr(summary_preview, "warm_up", recording_warm_up)
    monkeypatch.setattr(Inspector, "compact", recording_compact)
    monkeypatch.setattr(FieldsTree, "show_summary", recording_show)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.set_model("offline")  # another count: prepared once only
        await settle(pilot)
        assert len(warmed) == 1
        thread, counted = warmed[0]
        assert thread != threading.main_thread().name and counted
        record_frames_showing(app, "running", running)
        record_frames_showing(app, "done", done)
        await pilot.press("c")
        await settle(pilot)
        assert app.main.query_one(SummaryPreview).markdown == app.inspector.summary.text
    assert seen_at_start == [True]
    assert at_tree == [True]
