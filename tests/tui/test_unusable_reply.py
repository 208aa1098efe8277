"""Issue 11: a reply that is no summary (empty, blank, an HTML error page) is not a successful
compaction in the app either: the one error modal says so, and the session stays as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.screens.error_modal import ErrorModal
from goose_tui.tui.widgets.compaction_status import CompactionStatus
from tests.loopback import LoopbackServer, Reply

from .conftest import MODEL_CALL_SECONDS, settle, wait_until


async def test_a_reply_that_is_no_summary_opens_the_error_modal(
    session_file: Path, tmp_path: Path
) -> None:
    reply_file = tmp_path / "reply.txt"
    reply_file.write_text("", encoding="utf-8")
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        # Empty, blank, an HTML error page: each read by the next compaction.
        for reply in (
            "",
            "  \n\n ",
            "<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>",
        ):
            reply_file.write_text(reply, encoding="utf-8")
            await pilot.press("c")
            await wait_until(pilot, lambda: isinstance(app.screen, ErrorModal), timeout=30)
            assert app.screen.error_title == "Compaction failed", reply
            assert "not compacted" in app.screen.message
            await pilot.press("escape")
            assert app.main.query_one(CompactionStatus).state == "failed"
            assert app.inspector.result is None
            await settle(pilot)


async def test_an_empty_reply_over_http_opens_the_error_modal(
    session_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key-123")
    with LoopbackServer([Reply.ok("")]) as server:
        app = GooseTUI(session_file, model="openai/test-model", api_base=f"{server.url}/v1")
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("c")
            await wait_until(
                pilot, lambda: isinstance(app.screen, ErrorModal), timeout=MODEL_CALL_SECONDS
            )
            assert "empty reply" in app.screen.message
