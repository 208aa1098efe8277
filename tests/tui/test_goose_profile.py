"""Switching the Goose version in the app (issue 10, section 4): ``p`` and the command
palette switch the profile, the status bar names it, and the input pane is rendered again
in that version's format."""

from __future__ import annotations

import json
from pathlib import Path

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.widgets.compaction_status import CompactionStatus
from goose_tui.tui.widgets.text_viewer import TextViewer

from .conftest import settle


def _status(app: GooseTUI) -> str:
    return str(app.main.query_one(CompactionStatus).render())


def _prompt(app: GooseTUI) -> str:
    return app.main.query_one("#input-view", TextViewer).text


async def test_p_switches_the_profile_and_rerenders_the_input_pane(session_file: Path) -> None:
    app = GooseTUI(session_file)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        assert "format goose-sdk-wheel" in _status(app)
        assert "[user]: The test test_parse_dates" in _prompt(app)

        await pilot.press("p")
        await settle(pilot)
        assert app.inspector.goose_profile == "goose-main"
        assert "format goose-main" in _status(app)
        prompt = _prompt(app)
        assert "[user]: The test test_parse_dates" not in prompt
        records = [line for line in prompt.splitlines() if line.startswith('{"role":')]
        assert records and json.loads(records[0])["role"] == "user"
        assert "The test test_parse_dates" in json.loads(records[0])["content"][0]

        await pilot.press("p")
        await settle(pilot)
        assert "format goose-sdk-wheel" in _status(app)
        assert "[user]: The test test_parse_dates" in _prompt(app)


async def test_the_profile_from_the_command_line_and_the_palette(session_file: Path) -> None:
    app = GooseTUI(session_file, goose_profile="goose-main")
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        assert "format goose-main" in _status(app)
        assert '{"role":"user","content":[' in _prompt(app)
        app.set_goose_profile("goose-sdk-wheel")  # what the palette entry calls
        await settle(pilot)
        assert "[user]: The test test_parse_dates" in _prompt(app)
        from goose_tui.tui.commands import ModelCommands

        names = [name for name, _, _ in ModelCommands(app.screen)._entries()]
        assert "Goose version: goose-main" in names
