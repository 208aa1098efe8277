"""The session's own model in the app: `--model session` takes each opened session's
recorded provider and model, the palette offers it first, and a session that records none
keeps the current model and says why."""

from __future__ import annotations

import shutil
from pathlib import Path

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.commands import Commands
from goose_tui.tui.messages import ModelChoiceRequested
from tests.conftest import SAMPLES

from .conftest import settle


async def test_model_session_takes_the_recorded_model(tmp_path: Path) -> None:
    session = tmp_path / "long_session.jsonl"
    shutil.copy(SAMPLES / "long_session.jsonl", session)
    app = GooseTUI(session, model="session")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.inspector.model.name == "ollama/qwen2.5-coder:14b"
        assert app.inspector.model.in_worker_process


async def test_the_palette_offers_it_first_and_a_session_without_one_says_so(
    session_file: Path,
) -> None:
    app = GooseTUI(session_file, model="offline")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert Commands(app.screen).models()[0][0] == "Model: the session's own"
        assert app.inspector.session.model_name is None  # this one records none
        app.post_message(ModelChoiceRequested("session"))
        await settle(pilot)
        assert app.inspector.model.name == "offline"
        assert [n.message for n in app._notifications][-1] == (
            "the session records no model; name one, as in ollama/qwen2.5-coder:14b "
            "(the model stays offline)"
        )
