"""The app's saves leave out the API keys the process knows, as the CLI's do
(files.atomic_write_text), and a toast names the file and says so; a model server that
echoes a key in its error text gets it shown nowhere: not in the error modal, a toast, the
screen or any log record."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest

from goose_tui.redact import KEY_REMOVED
from goose_tui.tui.app import GooseTUI
from goose_tui.tui.screens.error_modal import ErrorModal
from tests.conftest import write_two_message_session
from tests.loopback import LoopbackServer
from tests.secret_keys import ANTHROPIC_KEY, MODEL, OPENAI_KEY, REPLIES, assert_no_key

from .conftest import DATA, MODEL_CALL_SECONDS, compacted, settle, wait_until

KEY = "sk-proj-APPECHOFAKE-4c3b2a190817"


async def test_a_save_leaves_the_key_out_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    session = tmp_path / "session" / "small_session.jsonl"
    session.parent.mkdir()
    shutil.copy(DATA / "small_session.jsonl", session)
    # A reply as a server that echoes the request's headers gives it.
    reply = tmp_path / "reply.md"
    reply.write_text(
        '```json\n{"user_intent": ["ship it", "authorization: Bearer ' + KEY + '"]}\n```\n'
    )
    app = GooseTUI(session, model=f"replay:{reply}")
    async with app.run_test(size=(120, 40)) as pilot:
        await compacted(pilot)
        await pilot.press("s")
        await pilot.press("enter")  # default: the summary JSON beside the session
        await settle(pilot)
        notes = [str(n.message) for n in app._notifications]
    saved = session.with_name("small_session.summary.json")
    text = saved.read_text()
    assert KEY not in text and "APPECHOFAKE" not in text
    assert f"Bearer {KEY_REMOVED}" in text and "ship it" in text
    assert any(note.startswith(f"{saved}: an API key this process uses") for note in notes), notes


async def test_the_app_error_modal_and_logs_never_show_a_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    session = write_two_message_session(tmp_path / "session.jsonl")
    caplog.set_level(logging.DEBUG)  # whatever litellm or we log, at any level
    with LoopbackServer([REPLIES["401"]]) as server:  # its error text echoes the key
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
