"""The compaction status line runs its own ticker: the elapsed time, and the wait while the
model's client is still being imported (the request has not left, its time limit not run)."""

from __future__ import annotations

from textual.app import App, ComposeResult

from goose_tui.tui.widgets.compaction_status import IMPORTING_NOTE, CompactionStatus

from .conftest import wait_until


class StatusApp(App[None]):
    def __init__(self, clock: list[float]) -> None:
        super().__init__()
        self.clock = clock
        self.ticks = 0

    def compose(self) -> ComposeResult:
        yield CompactionStatus(clock=lambda: self.clock[0])

    def on_compaction_status_ticked(self, event: CompactionStatus.Ticked) -> None:
        self.ticks += 1


async def test_the_status_line_ticks_and_starts_the_time_limit_when_the_request_leaves() -> None:
    clock, ready = [100.0], [False]
    app = StatusApp(clock)
    async with app.run_test() as pilot:
        status = app.query_one(CompactionStatus)
        status.start("openai/gpt-4o", "goose-sdk-wheel", 60.0, lambda: ready[0])
        assert status.state == "running" and status.waiting and status.note == IMPORTING_NOTE
        clock[0] = 102.5
        await wait_until(pilot, lambda: status.elapsed == 2.5 and app.ticks > 0)
        assert status.waiting and "left of" not in str(status.render())
        ready[0], clock[0] = True, 103.0
        await wait_until(pilot, lambda: not status.waiting)
        assert status.call_started == 3.0 and status.note == ""
        assert "60s left of 60s" in str(status.render())
        clock[0] = 110.0
        status.stop()  # the compaction ended: the last tick
        assert status.elapsed == 10.0
        status.state = "done"
        assert "done · 10.0s" in str(status.render())


async def test_a_compaction_ended_before_its_request_left_drops_the_importing_note() -> None:
    clock = [0.0]
    app = StatusApp(clock)
    async with app.run_test():
        status = app.query_one(CompactionStatus)
        status.start("openai/gpt-4o", "goose-sdk-wheel", 60.0, lambda: False)
        assert status.waiting and status.note == IMPORTING_NOTE
        clock[0] = 1.5
        status.state = "cancelled"  # the ticker stops with the state
        assert not status.waiting and status.note == "" and status.elapsed == 1.5
