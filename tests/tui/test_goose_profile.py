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


async def test_the_profile_from_the_command_line_and_the_palette(session_file: Path) -> None:
    app = GooseTUI(session_file, goose_profile="goose-pr-11845")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "format goose-pr-11845" in _status(app)
        assert '{"role":"user","content":[' in _prompt(app)
        app.set_goose_profile("goose-sdk-wheel")  # what the palette entry calls
        await settle(pilot)
        assert "[user]: The test test_parse_dates" in _prompt(app)
        from goose_tui.tui.commands import Commands

        names = [name for name, _, _ in Commands(app.screen).models()]
        assert "Goose version: goose-pr-11845" in names


async def test_p_switches_the_profile_and_the_status_line_keeps_the_shown_compactions(
    session_file: Path, reply_file: Path
) -> None:
    # A walk-through: after `p`, the status line of a finished compaction named the new
    # format ("done · … format goose-pr-11845") though the summary shown was made in the other.
    app = GooseTUI(session_file)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        # p switches the profile and the input pane is rendered again, and back.
        assert "format goose-sdk-wheel" in _status(app)
        assert "[user]: The test test_parse_dates" in _prompt(app)

        await pilot.press("p")
        await settle(pilot)
        assert app.inspector.goose_profile == "goose-pr-11845"
        assert "format goose-pr-11845" in _status(app)
        prompt = _prompt(app)
        assert "[user]: The test test_parse_dates" not in prompt
        records = [line for line in prompt.splitlines() if line.startswith('{"role":')]
        assert records and json.loads(records[0])["role"] == "user"
        assert "The test test_parse_dates" in json.loads(records[0])["content"][0]

        await pilot.press("p")
        await settle(pilot)
        assert "format goose-sdk-wheel" in _status(app)
        assert "[user]: The test test_parse_dates" in _prompt(app)
        await pilot.press("c")
        await settle(pilot)
        assert "format goose-sdk-wheel" in _status(app) and "next" not in _status(app)
        await pilot.press("p")
        await settle(pilot)
        status = _status(app)
        assert status.startswith("done") and "format goose-sdk-wheel" in status, status
        assert "next compaction: format goose-pr-11845" in status, status
        app.set_model(f"replay:{reply_file}")  # what choosing a model in the palette calls
        await settle(pilot)
        status = _status(app)
        assert "model offline" in status, status
        expected = f"next compaction: model replay:{reply_file}, format goose-pr-11845"
        assert expected in status, status
        await pilot.press("c")
        await settle(pilot)
        status = _status(app)
        assert "format goose-pr-11845" in status and "next" not in status, status
        # (A long path is cut to its end where the line has no room for all of it.)
        assert "model " in status and f"/{reply_file.name} · format" in status, status
