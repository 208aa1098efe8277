"""The status line of a model call: how long it may still take, and what a failed call sent."""

from __future__ import annotations

from pathlib import Path

import pytest

from goose_tui.llm import litellm_worker
from goose_tui.tui.app import GooseTUI
from goose_tui.tui.screens.error_modal import ErrorModal
from goose_tui.tui.widgets.compaction_status import CompactionStatus
from tests.conftest import LITELLM_GROUP
from tests.loopback import LoopbackServer, Reply, closed_port

from .conftest import MODEL_CALL_SECONDS, settle, wait_until

# On the litellm group's test worker: its apps share that process's one litellm worker with
# the group's other tests, rather than each importing litellm in a worker of its own.
pytestmark = pytest.mark.xdist_group(LITELLM_GROUP)


@pytest.fixture(autouse=True)
def _cli_priority_after(monkeypatch: pytest.MonkeyPatch) -> None:
    """The app lowers the priority of every litellm worker the process starts later; the
    group's other tests start theirs at the priority the CLI leaves."""
    monkeypatch.setattr(litellm_worker, "niceness", litellm_worker.niceness)


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
