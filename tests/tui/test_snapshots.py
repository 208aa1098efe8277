"""Snapshots of the main screens. Deterministic: relative paths, UTC times, a frozen clock."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from textual.app import App
from textual.pilot import Pilot

from goose_tui.session.models import SessionInfo
from goose_tui.tui.app import GooseTUI
from goose_tui.tui.screens.session_picker import SessionPicker

from .conftest import settle

ROOT = Path(__file__).resolve().parents[2]
SESSION = Path("tests/tui/data/small_session.jsonl")
REPLY = Path("tests/tui/data/reply.md")


@pytest.fixture(autouse=True)
def _at_repo_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # paths on screen are the relative ones given


def _compacted_app() -> GooseTUI:
    return GooseTUI(SESSION, model=f"replay:{REPLY}", clock=lambda: 0.0)


async def _compact(pilot: Pilot) -> None:
    await settle(pilot)
    await pilot.press("c")
    await settle(pilot)


def test_main_screen_wide(snap_compare) -> None:
    assert snap_compare(_compacted_app(), terminal_size=(200, 50), run_before=_compact)


def test_main_screen_narrow(snap_compare) -> None:
    assert snap_compare(_compacted_app(), terminal_size=(100, 40), run_before=_compact)


def test_error_modal(snap_compare) -> None:
    app = GooseTUI(SESSION, model="replay:missing-reply.md", clock=lambda: 0.0)
    assert snap_compare(app, terminal_size=(120, 40), run_before=_compact)


class PickerApp(App[None]):
    CSS_PATH = str(ROOT / "goose_tui" / "tui" / "app.tcss")

    def on_mount(self) -> None:
        when = datetime(2025, 3, 1, 9, 30, tzinfo=UTC)
        sessions = [
            SessionInfo(
                id="20250301_1",
                name="Fix date parsing test",
                updated_at=when,
                message_count=9,
                total_tokens=1834,
                model_name="gpt-4o",
                path=Path("sessions.db"),
            ),
            SessionInfo(
                id="20250228_4",
                name="Refactor the CLI [bold]x[/bold]",
                updated_at=when.replace(day=28, month=2),
                message_count=120,
                total_tokens=None,
                model_name="claude-sonnet-4",
                path=Path("sessions.db"),
            ),
        ]
        self.push_screen(SessionPicker(sessions, "sessions.db"))


def test_session_picker(snap_compare) -> None:
    async def type_filter(pilot: Pilot) -> None:
        await pilot.pause()
        await pilot.press(*"cli")
        await pilot.pause()

    assert snap_compare(PickerApp(), terminal_size=(120, 30), run_before=type_filter)
