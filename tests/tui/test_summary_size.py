"""A summary not smaller than the history it replaces is flagged in the app (issue 14)."""

from __future__ import annotations

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.widgets.context_gauge import ContextGauge
from tests.conftest import REALDATA, SAMPLES

from .conftest import paste, settle


async def _compacted(path):
    app = GooseTUI(path)
    async with app.run_test(size=(120, 40)) as pilot:
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


async def test_a_smaller_summary_is_not_flagged_and_after_compaction_follows_a_hand_edit() -> None:
    # "after compaction: 208 tokens" stayed after a hand edit added ~300 tokens to the
    # summary (compare's "previous" said 502); the figure is the message that would replace
    # the history, which is the summary as it is now.
    from textual.widgets import TextArea

    from goose_tui.compaction.summarize import summary_message
    from goose_tui.tokens import TokenCounter

    app = GooseTUI(SAMPLES / "long_session.jsonl")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        gauge = app.main.query_one(ContextGauge)
        first, replaced = gauge.projected, gauge.replaced
        assert first is not None and replaced is not None and first < replaced
        assert "NOT SMALLER" not in str(gauge.render())
        assert not any("not smaller" in str(n.message) for n in app._notifications)
        assert first == TokenCounter().total([summary_message(app.inspector.summary.text)])
        editor = app.main.query_one("#json-editor", TextArea)
        text = editor.text
        at = text.index('"pending_tasks": [') + len('"pending_tasks": [')
        await pilot.press("e")
        editor.move_cursor((text.count("\n", 0, at), at - (text.rfind("\n", 0, at) + 1)))
        await paste(pilot, '"' + "keep the VAT rounding rule " * 40 + '", ')
        await settle(pilot)
        assert app.inspector.json_state == "edited", (editor.text[:300], app.inspector.notice)
        edited = TokenCounter().total([summary_message(app.inspector.summary.text)])
        assert first is not None and edited > first + 200
        assert gauge.projected == edited
        assert f"after compaction: {edited:,} tokens" in str(gauge.render())


async def test_the_gauge_draws_no_threshold_marker_it_names_when_auto_compaction_is_off() -> None:
    # A walk-through: with GOOSE_AUTO_COMPACT_THRESHOLD=0 the details read "threshold 0% (┃)"
    # while no ┃ was drawn (there is none to draw when auto compaction is off).
    for threshold, shown in ((0.0, "threshold 0 (off)"), (0.5, "threshold 50% (┃)")):
        app = GooseTUI(SAMPLES / "short.jsonl", threshold=threshold)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            text = str(app.main.query_one(ContextGauge).render())
            assert shown in text, text
            assert ("┃" in text.split("\n")[0]) is (threshold == 0.5)
