"""The app's saves leave out the API keys the process knows, as the CLI's do
(files.atomic_write_text), and a toast names the file and says so."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from goose_tui.redact import KEY_REMOVED
from goose_tui.tui.app import GooseTUI

from .conftest import DATA, compacted, settle

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
    async with app.run_test(size=(200, 50)) as pilot:
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
