"""Snapshots of the template editor with its preview: beside the editor at 120 columns, below
it at 80. Deterministic as test_snapshots is: relative paths, a frozen clock."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from goose_tui.tui.app import GooseTUI

from .conftest import settle

ROOT = Path(__file__).resolve().parents[2]
SESSION = Path("tests/tui/data/small_session.jsonl")
REPLY = Path("tests/tui/data/reply.md")
PROMPTS = Path("tests/tui/data/no-overrides")  # none there: the built-in templates in use


@pytest.fixture(autouse=True)
def _at_repo_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # paths on screen are the relative ones given


async def _edit_summary_template(pilot: Pilot) -> None:
    await settle(pilot)
    await pilot.press("c")
    await settle(pilot)
    await pilot.press("t")
    await settle(pilot)


@pytest.mark.parametrize("size", [(120, 36), (80, 24)], ids=["120x36", "80x24"])
def test_template_editor(snap_compare, size: tuple[int, int]) -> None:
    app = GooseTUI(SESSION, model=f"replay:{REPLY}", prompts_dir=PROMPTS, clock=lambda: 0.0)
    assert snap_compare(app, terminal_size=size, run_before=_edit_summary_template)
