"""A summary template whose output is huge (tens of MB, under the engine's output budget)
froze the app for minutes: Rich rendered all of it in a thread that held the GIL, the
source view made all of it inert on the event loop, and ``q`` waited for the thread. The
panes now show the summary's first ``PREVIEW_CHARS`` and say how big it is; copy and save
take all of it, and the gauge's count can be stopped between parts."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.widgets import Static

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.screens.help import HelpScreen
from goose_tui.tui.widgets.context_gauge import ContextGauge
from goose_tui.tui.widgets.summary_preview import PREVIEW_CHARS, MarkdownLines, SummaryPreview
from goose_tui.tui.widgets.text_viewer import TextViewer
from tests.conftest import SAMPLES

from .conftest import settle

# Five nested loops over the offline summary's fields: ~1.8 MB on one line per entry.
HUGE_TEMPLATE = (
    "{% for x1 in user_intent %}{% for x2 in files %}{% for x3 in technical_concepts %}"
    "{% for a in user_intent %}{% for b in files %}{{ a }}{{ b }}{{ x3 }}\n"
    "{% endfor %}{% endfor %}{% endfor %}{% endfor %}{% endfor %}"
)


async def test_a_huge_summary_shows_its_head_and_size_and_keys_answer(prompts: Path) -> None:
    (prompts / "compaction_summary.md").write_text(HUGE_TEMPLATE, encoding="utf-8")
    app = GooseTUI(SAMPLES / "long_session.jsonl", prompts_dir=prompts)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        await pilot.press("c")
        # Bounded: rendering all of it in Rich took minutes (~20 s for this 1.8 MB).
        await asyncio.wait_for(settle(pilot), timeout=60)
        summary = app.inspector.summary.text
        assert len(summary) > 1_000_000
        preview = app.main.query_one(SummaryPreview)
        assert preview.markdown is summary  # what is copied and saved: all of it
        lines = preview.query_one(MarkdownLines)
        source = preview.query_one(TextViewer)
        assert 0 < len(lines.text) <= PREVIEW_CHARS and summary.startswith(lines.text)
        assert source.text == lines.text
        assert lines.lines_count and not lines.rendering
        note = str(preview.query_one("#preview-note", Static).render())
        assert f"the first {len(lines.text):,} of {len(summary):,} characters" in note
        assert preview.query_one("#preview-note").display
        # The whole summary is counted for the gauge, not the part shown.
        gauge = app.main.query_one(ContextGauge)
        assert gauge.projected is not None and gauge.projected > len(summary) // 10
        await pilot.press("question_mark")
        await asyncio.wait_for(settle(pilot), timeout=10)
        assert isinstance(app.screen, HelpScreen)


async def test_a_summary_under_the_cap_is_shown_whole_without_a_note() -> None:
    app = GooseTUI(SAMPLES / "long_session.jsonl")
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        preview = app.main.query_one(SummaryPreview)
        assert preview.query_one(MarkdownLines).text == app.inspector.summary.text
        assert not preview.query_one("#preview-note").display
