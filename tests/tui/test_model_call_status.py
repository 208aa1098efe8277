"""The status line of a model call: how long it may still take, and what a failed call sent."""

from __future__ import annotations

from pathlib import Path

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.screens.error_modal import ErrorModal
from goose_tui.tui.widgets.compaction_status import CompactionStatus
from tests.loopback import LoopbackServer, Reply, closed_port

from .conftest import MODEL_CALL_SECONDS, settle, wait_until


async def test_a_running_call_shows_the_time_it_has_left(session_file: Path) -> None:
    with LoopbackServer([Reply.hang()]) as server:
        app = GooseTUI(
            session_file, model="openai/test-model", api_base=f"{server.url}/v1", timeout=90
        )
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("c")
            await wait_until(pilot, lambda: bool(server.requests), timeout=MODEL_CALL_SECONDS)
            status = app.main.query_one(CompactionStatus)
            await wait_until(pilot, lambda: "s left of 90s" in str(status.render()))
            await pilot.press("escape")
            await wait_until(pilot, lambda: status.state == "cancelled")
            assert "left of" not in str(status.render())


async def test_a_refused_connection_does_not_say_tokens_were_sent(session_file: Path) -> None:
    app = GooseTUI(
        session_file, model="openai/test-model", api_base=f"http://127.0.0.1:{closed_port()}/v1"
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await wait_until(
            pilot, lambda: isinstance(app.screen, ErrorModal), timeout=MODEL_CALL_SECONDS
        )
        await pilot.press("escape")
        status = app.main.query_one(CompactionStatus)
        assert status.state == "failed"
        line = str(status.render())
        assert "tokens sent" not in line and "tokens in the request" in line
