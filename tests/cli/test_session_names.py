"""Session files whose names hold a newline, a tab or a carriage return: one row each in
`goose-tui sessions` and in the app's picker, the character shown."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from goose_tui.cli import main
from tests.conftest import SAMPLES

NAMES = ["new\nline", "tab\tbed", "carriage\rreturn"]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for name in NAMES:
        shutil.copy(SAMPLES / "short.jsonl", tmp_path / f"{name}.jsonl")
    return tmp_path


def test_sessions_prints_one_line_a_session(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sessions", str(folder)]) == 0
    lines = capsys.readouterr().out.split("\n")
    assert lines[-1] == "" and len(lines) == 1 + len(NAMES) + 1  # the heading, then a row each
    ids = sorted(line.split("  ")[0].strip() for line in lines[1:-1])
    assert ids == sorted(["new\u2424line", "tab\u2409bed", "carriage\u240dreturn"])


async def test_the_picker_shows_one_row_a_session(folder: Path) -> None:
    from textual.widgets import DataTable

    from goose_tui.tui.app import GooseTUI
    from goose_tui.tui.screens.session_picker import SessionPicker
    from tests.tui.conftest import settle

    app = GooseTUI(folder)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, SessionPicker)
        table = app.screen.query_one(DataTable)
        assert table.row_count == len(NAMES)
        ids = sorted(str(table.get_row_at(r)[2]) for r in range(table.row_count))
        assert ids == sorted(["new\u2424line", "tab\u2409bed", "carriage\u240dreturn"])
