"""goose-tui's own files (settings, the recent list) as special files: refused at once,
reported, and the command or the app goes on without them."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from goose_tui.cli import main
from goose_tui.recent import load_recent, recent_file, remember
from goose_tui.settings import config_path
from tests.conftest import SAMPLES
from tests.special_files import unblocking

SHORT = SAMPLES / "short.jsonl"


def _special(path: Path, kind: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")  # never ends
    return path


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_usage_ignores_a_settings_file_that_is_not_a_regular_file(
    kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _special(config_path(), kind)
    with unblocking(config) as rescues:
        code = main(["usage", str(SHORT)])
    assert not rescues  # nothing waited on the FIFO
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "not a regular file" in captured.err and str(config) in captured.err
    assert "threshold" in captured.out


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_recent_list_that_is_not_a_regular_file_is_empty_and_kept(kind: str) -> None:
    recent = _special(recent_file(), kind)
    with unblocking(recent) as rescues:
        assert load_recent() == []
        remember(SHORT, None, "short", 2, None)
    assert not rescues  # nothing waited on the FIFO
    assert recent.is_symlink() or recent.is_fifo()  # not replaced


async def test_the_app_opens_and_quits_with_a_fifo_as_the_recent_list(tmp_path: Path) -> None:
    from goose_tui.tui.app import GooseTUI
    from tests.tui.conftest import settle

    session = tmp_path / "short.jsonl"
    shutil.copy(SHORT, session)
    recent = _special(recent_file(), "fifo")
    app = GooseTUI(session)
    with unblocking(recent) as rescues:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            assert app.inspector.session is not None
            await pilot.press("q")
            await pilot.pause()
    assert not rescues  # nothing waited on the FIFO
    assert app.return_code == 0
