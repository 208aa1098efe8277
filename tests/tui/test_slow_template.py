"""A slow summary template freezes nothing: it renders in a thread, while the event loop
keeps answering keys, whether the override changes on disk, a compaction ends or the summary
is edited by hand. No timing is measured: a held render proves where it runs."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from goose_tui.pieces import Pieces
from goose_tui.tui.app import GooseTUI
from goose_tui.tui.screens.help import HelpScreen
from goose_tui.tui.widgets.summary_preview import SummaryPreview

from .conftest import compacted, settle, wait_until

RE_RENDERED = "edited by hand: read leniently and re-rendered"


def _banner(app: GooseTUI) -> str:
    return str(app.main.query_one("#fields-banner").render())


# Slow within every budget of the sandbox: 200 loop steps (few engine instructions, no
# output) that each copy 10 MB, about a second on a quiet machine. A template that loops many
# times is stopped by the instruction budget after a few tenths of a second, too short to tell
# a held loop from a loaded machine.
SLOW_TEMPLATE = (
    "{% set big = 'x' * 10000000 %}{% for a in 'x' * 100 %}{% set t = big ~ a %}{% endfor %}"
    "# Slow {{ next_step }}"
)
SLOW_RENDER = "# Slow Write the changelog entry"


class HeldRender:
    """Holds every render of the slow template, in the thread that runs it, until the test
    releases it: while it is held, a key the app handles proves the event loop is not the
    thread rendering. A render on the loop would hold the loop too, and the key would only
    be handled after the release. No timing is measured (a loaded machine cannot fail it)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from goose_tui.compaction.engine import Compiled

        self.release, self.holding = threading.Event(), threading.Event()
        self.threads: list[threading.Thread] = []
        real = Compiled.render_pieces

        def render(compiled: Compiled, context: dict) -> Pieces:
            out = real(compiled, context)
            if str(out).startswith("# Slow"):
                self.threads.append(threading.current_thread())
                self.holding.set()
                self.release.wait(60)
                self.holding.clear()
            return out

        monkeypatch.setattr(Compiled, "render_pieces", render)

    async def assert_loop_answers(self, pilot) -> None:
        """Once the slow render is held: ``?`` opens help while it is still held."""
        await wait_until(pilot, self.holding.is_set, timeout=120)
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, HelpScreen), timeout=60)
        assert self.holding.is_set(), "the key was handled only after the render ended"
        await pilot.press("escape")
        self.release.set()

    def assert_off_the_loop(self) -> None:
        assert self.threads and threading.main_thread() not in self.threads


async def test_a_slow_template_freezes_neither_a_reload_nor_the_compaction_nor_hand_edits(
    session_file: Path, reply_file: Path, prompts: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The override changes on disk; while the summary renders with it (a thread worker),
    the event loop keeps answering keys. So it does while a compaction and a hand edit
    render with it."""
    app = GooseTUI(session_file, model=f"replay:{reply_file}", prompts_dir=prompts)
    held = HeldRender(monkeypatch)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await compacted(pilot)
            first = app.inspector.result
            preview = app.main.query_one(SummaryPreview)
            (prompts / "compaction_summary.md").write_text(SLOW_TEMPLATE, encoding="utf-8")
            await held.assert_loop_answers(pilot)
            await wait_until(pilot, lambda: preview.markdown == SLOW_RENDER, timeout=120)
            assert app.inspector.templates.summary.source.path == prompts / "compaction_summary.md"
            await settle(pilot)

            held.release.clear()
            await pilot.press("c")
            await held.assert_loop_answers(pilot)
            # The summary's panes are drawn from the frame after the result is in.
            await wait_until(pilot, lambda: app.inspector.result is not first, timeout=120)
            await wait_until(pilot, lambda: preview.markdown == SLOW_RENDER, timeout=120)
            assert app.inspector.result is not None

            held.release.clear()
            await pilot.press("e", "end", "enter", "space", "escape")
            await held.assert_loop_answers(pilot)
            await wait_until(pilot, lambda: _banner(app) == RE_RENDERED, timeout=120)
            assert preview.markdown == SLOW_RENDER
    finally:
        held.release.set()
    held.assert_off_the_loop()
