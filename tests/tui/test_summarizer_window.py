"""The gauge measures the session against its own window; the summarizer's window is a
question of whether the compaction request fits it, said on the status line before ``c``."""

from __future__ import annotations

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.widgets.compaction_status import CompactionStatus
from goose_tui.tui.widgets.context_gauge import ContextGauge
from tests.tui.conftest import settle


async def test_the_sessions_window_rules_gauge_and_timeline_the_summarizers_the_fit() -> None:
    # The bundled sample ran on qwen2.5-coder:14b with a 16,384-token window: compaction is
    # due whichever model would write the summary.
    app = GooseTUI(None, model="openai/gpt-4o-mini")
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        first = app.main.query_one(ContextGauge).render_line(0).text
        details = app.main.query_one(ContextGauge).render_line(1).text
        status = app.main.query_one(CompactionStatus).render_line(0).text
        assert "14,032 / 16,384 tokens" in first and "COMPACTION DUE" in first, first
        assert "session model qwen2.5-coder:14b" in details, details
        assert "gpt-4o-mini" not in details, details
        # The summarizer's window where it matters: whether the request fits it.
        assert "model openai/gpt-4o-mini" in status, status
        assert "press c to compact · request fits its 128,000-token window" in status, status
        await pilot.press("g")
        await settle(pilot)
        summary = str(app.screen.query_one("#timeline-summary").render())
        assert "window 16,384 tokens (from the session)" in summary, summary
        await pilot.press("escape")
        await settle(pilot)
        # A model whose window litellm's map knows to be smaller than the request.
        app.set_model("gpt-4")
        await settle(pilot)
        first = app.main.query_one(ContextGauge).render_line(0).text
        status = app.main.query_one(CompactionStatus).render_line(0).text
    assert "14,032 / 16,384 tokens" in first, first
    assert "OVER its 8,192-token window" in status, status
