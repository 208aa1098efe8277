"""API keys never leave the process except in the request to the model: the app's error
modal after a failed compaction, and its logs (tests/cli/test_compact_keys.py: the compact
command; tests/llm/test_litellm_errors.py: the backend's errors)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from tests.conftest import write_two_message_session
from tests.loopback import LoopbackServer
from tests.secret_keys import (
    MODEL,
    REPLIES,
    assert_no_key,
)
from tests.tui.conftest import MODEL_CALL_SECONDS, settle, wait_until


@pytest.fixture
def session(tmp_path: Path) -> Path:
    return write_two_message_session(tmp_path / "session.jsonl")


@pytest.mark.app
async def test_the_app_error_modal_and_logs_never_show_a_key(
    keys: None, session: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from goose_tui.tui.app import GooseTUI
    from goose_tui.tui.screens.error_modal import ErrorModal

    caplog.set_level(logging.DEBUG)
    with LoopbackServer([REPLIES["401"]]) as server:
        app = GooseTUI(session, model=MODEL, api_base=f"{server.url}/v1")
        async with app.run_test(size=(140, 45)) as pilot:
            await settle(pilot)
            await pilot.press("c")
            # Bounded by the app's litellm worker, which may still be importing litellm.
            await wait_until(
                pilot, lambda: isinstance(app.screen, ErrorModal), timeout=MODEL_CALL_SECONDS
            )
            modal = app.screen
            screenshot = app.export_screenshot()
            notes = [str(n.message) for n in app._notifications]
    assert server.requests, "the app never called the model"
    assert "401" in modal.message
    assert_no_key(modal.error_title, modal.message, screenshot, caplog.text, *notes)
