"""A summary not smaller than the history it replaces is flagged in the app (issue 14)."""

from __future__ import annotations

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.widgets.context_gauge import ContextGauge
from tests.conftest import REALDATA, SAMPLES

from .conftest import settle


async def _compacted(path):
    app = GooseTUI(path)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        gauge = app.main.query_one(ContextGauge)
        notes = [n.message for n in app._notifications]
        return gauge.projected, gauge.replaced, str(gauge.render()), notes


async def test_a_summary_bigger_than_its_history_is_flagged() -> None:
    projected, replaced, text, notes = await _compacted(REALDATA / "export-text.json")
    assert projected is not None and replaced is not None and projected >= replaced
    assert f"NOT SMALLER than the {replaced:,} tokens it replaces" in text
    assert any("is not smaller than the history it replaces" in n for n in notes)


async def test_a_smaller_summary_is_not_flagged() -> None:
    projected, replaced, text, notes = await _compacted(SAMPLES / "long_session.jsonl")
    assert projected is not None and replaced is not None and projected < replaced
    assert "NOT SMALLER" not in text
    assert not any("not smaller" in n for n in notes)
