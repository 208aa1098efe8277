"""Auditing one of Goose's own past compactions from the timeline (a): the inspector then
holds the history Goose summarized and Goose's summary, and c compacts that same history.
The fixture session is described in tests/analysis/test_audit.py."""

from __future__ import annotations

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.widgets.timeline_plot import TimelinePlot
from tests.conftest import ROOT

from .conftest import settle

DB = ROOT / "tests" / "fixtures" / "goose" / "sessions-v13.db"


async def test_a_in_the_timeline_audits_gooses_compaction_then_c_compacts_it_again() -> None:
    app = GooseTUI(DB, session_id="20251009_1")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert len(app.inspector.session.messages) == 10
        await pilot.press("g")
        await settle(pilot)
        app.screen.query_one(TimelinePlot).cursor = 5  # after the summary at #3
        await pilot.press("a")
        await settle(pilot)
        inspector = app.inspector
        assert len(inspector.session.messages) == 2  # the history #1-#2 Goose summarized
        assert all(m.metadata.agent_visible for m in inspector.session.messages)
        assert inspector.summary.text.startswith("Summary of the earlier")
        gooses = inspector.summary.text
        await pilot.press("c")
        await settle(pilot)
        assert inspector.result is not None and inspector.result.model == "offline"
        # The compare key sets Goose's summary beside the new one.
        assert inspector.previous is not None
        assert inspector.previous.text == gooses
