"""Snapshots of the analysis screens at 160×45. Deterministic: relative paths, replayed or
offline summaries, a frozen clock."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from goose_tui.tui.app import GooseTUI

from .conftest import settle, wait_until

ROOT = Path(__file__).resolve().parents[2]
SESSION = Path("tests/tui/data/small_session.jsonl")
REPLY = Path("tests/tui/data/reply.md")
SAMPLE = Path("sample_sessions/long_session.jsonl")
SIZE = (160, 45)


@pytest.fixture(autouse=True)
def _at_repo_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def _app(session: Path, model: str) -> GooseTUI:
    return GooseTUI(session, model=model, clock=lambda: 0.0)


async def _compact_then(pilot: Pilot, *keys: str) -> None:
    await settle(pilot)
    await pilot.press("c")
    await settle(pilot)
    await pilot.press(*keys)
    await settle(pilot)


def test_retention_screen(snap_compare) -> None:
    async def run(pilot: Pilot) -> None:
        await _compact_then(pilot, "l")

    assert snap_compare(_app(SESSION, f"replay:{REPLY}"), terminal_size=SIZE, run_before=run)


def test_compare_screen(snap_compare) -> None:
    async def run(pilot: Pilot) -> None:
        await _compact_then(pilot, "v")
        pilot.app.screen.query_one("#compare-spec").value = f"replay:{REPLY}"
        await pilot.press("enter", "enter")  # to the empty folder field, then compare
        await settle(pilot)

    assert snap_compare(_app(SESSION, "offline"), terminal_size=SIZE, run_before=run)


def test_timeline_screen(snap_compare) -> None:
    async def run(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press("g")
        await settle(pilot)
        await pilot.press("right")  # the key moves the cursor; then straight to message 37
        from goose_tui.tui.widgets.timeline_plot import TimelinePlot

        plot = pilot.app.screen.query_one(TimelinePlot)
        assert plot.cursor == 1
        plot.cursor = 36  # as 35 more presses of right (each waits for an idle process)
        await settle(pilot)

    assert snap_compare(_app(SAMPLE, "offline"), terminal_size=SIZE, run_before=run)


def test_probes_tab(snap_compare) -> None:
    """The Probes tab of `l` on the bundled sample, compacted offline."""

    async def run(pilot: Pilot) -> None:
        from goose_tui.tui.widgets.probes_panel import ProbesPanel

        await _compact_then(pilot, "l")
        await pilot.press("p")
        # The tab starts the probes when its activation has bubbled up to the screen, which
        # can come after settle's last look (a full run drew the table without its rows,
        # once): wait for their report, then for what it draws.
        panel = pilot.app.screen.query_one(ProbesPanel)
        await wait_until(pilot, lambda: panel.report is not None, timeout=60)
        await settle(pilot)

    assert snap_compare(_app(SAMPLE, "offline"), terminal_size=SIZE, run_before=run)
