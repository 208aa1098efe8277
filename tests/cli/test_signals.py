"""SIGTERM and SIGHUP stop a command as Ctrl-C does: no temporary file is left behind."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from goose_tui.cli import main
from tests.conftest import SAMPLES


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_while_compact_writes_leaves_no_temporary_file(
    signum: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    real_fsync = os.fsync

    def fsync(fd: int) -> None:  # the moment the temporary file is written, not yet renamed
        os.kill(os.getpid(), signum)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGHUP)}
    code = main(["compact", str(SAMPLES / "short.jsonl"), "-o", str(tmp_path / "out.md")])
    err = capsys.readouterr().err
    assert code == (130 if signum == signal.SIGINT else 128 + signum), err
    assert list(tmp_path.iterdir()) == []
    assert "internal error" not in err
    assert {sig: signal.getsignal(sig) for sig in before} == before  # handed back


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
async def test_the_app_ends_on_sigterm_and_sighup_as_on_q(signum: int, tmp_path: Path) -> None:
    import shutil

    from goose_tui.tui.app import GooseTUI
    from tests.tui.conftest import settle

    session = tmp_path / "short.jsonl"
    shutil.copy(SAMPLES / "short.jsonl", session)
    before = signal.getsignal(signum)
    app = GooseTUI(session)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        os.kill(os.getpid(), signum)
        for _ in range(100):
            await pilot.pause(0.05)
            if not app.is_running:
                break
        assert not app.is_running  # ended by the signal, not by the test
    assert app.return_code == 0
    assert signal.getsignal(signum) == before  # handed back when the app ended
