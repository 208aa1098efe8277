"""The context gauge counts its session and projects a summary by itself: a gauge and an
Inspector in an app of their own, no main screen."""

from __future__ import annotations

from textual.app import App, ComposeResult

from goose_tui.compaction.summarize import summary_message
from goose_tui.inspector import Inspector
from goose_tui.session.loader import load_session
from goose_tui.tokens import REPLY_PRIMER, TokenCounter
from goose_tui.tui.widgets.context_gauge import ContextGauge

from .conftest import DATA, REPLY, settle


async def test_the_gauge_counts_and_projects_with_its_own_workers() -> None:
    session = load_session(DATA / "small_session.jsonl")
    inspector = Inspector()
    inspector.load(session)
    counted: list[ContextGauge.Counted] = []

    class GaugeApp(App[None]):
        def compose(self) -> ComposeResult:
            yield ContextGauge(inspector)

        def on_context_gauge_counted(self, event: ContextGauge.Counted) -> None:
            counted.append(event)

    app = GaugeApp()
    async with app.run_test() as pilot:
        gauge = app.query_one(ContextGauge)
        gauge.count()
        assert [w.node for w in app.workers] == [gauge]
        await settle(pilot)
        counter = TokenCounter()
        history = counter.total(session.messages)
        assert gauge.usage is not None and gauge.usage.used == history
        assert gauge.progress is None  # the count's progress is over
        [event] = counted  # the rows' figures go up as a message
        assert event.tokens == [counter.count(m) + REPLY_PRIMER for m in session.messages]

        assert await inspector.use_summary(REPLY)
        summary = inspector.summary.text
        gauge.project(summary)
        await settle(pilot)
        assert gauge.projected == counter.total([summary_message(summary)])
        assert gauge.replaced == history
        gauge.project(None)  # nothing would replace the history
        assert gauge.projected is None and gauge.replaced is None

        gauge.reset()  # another session
        assert gauge.usage is None
