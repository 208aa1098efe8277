"""SIGTERM and SIGHUP stop a command as Ctrl-C does: no temporary file is left behind; the
app ends on them as on q; Ctrl-C during a model call exits 130 and leaves no worker."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

from goose_tui.cli import main
from tests.conftest import SAMPLES
from tests.loopback import LoopbackServer, Reply

SHORT = SAMPLES / "short.jsonl"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_while_compact_writes_leaves_no_temporary_file(
    signum: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    real_fsync = os.fsync
    sent: list[str] = []  # what the handler was when the signal went: in a failure's message

    def fsync(fd: int) -> None:  # the moment the temporary file is written, not yet renamed
        # Only the command's own write: the patch is process-wide, and a thread another test
        # left in this worker may save a file of its own meanwhile.
        mine = os.readlink(f"/proc/self/fd/{fd}").startswith(str(tmp_path))
        if mine and threading.current_thread() is threading.main_thread() and not sent:
            sent.append(repr(signal.getsignal(signum)))
            os.kill(os.getpid(), signum)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGHUP)}
    # Ctrl-C as a terminal's foreground job gets it: a shell that starts the tests as a
    # background job has them ignore SIGINT, and Python then keeps ignoring it.
    interrupt = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        code = main(["compact", str(SAMPLES / "short.jsonl"), "-o", str(tmp_path / "out.md")])
    finally:
        signal.signal(signal.SIGINT, interrupt)
    err = capsys.readouterr().err
    assert sent, "the command's write never reached fsync"
    assert code == (130 if signum == signal.SIGINT else 128 + signum), (err, sent)
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


def test_ctrl_c_during_a_model_call_exits_130_and_leaves_no_worker() -> None:
    # Ctrl-C is "cancelled" with exit 130 during the model call as before it, and the CLI's
    # litellm worker process ends with the CLI: a process of its own, signalled as a
    # terminal signals it.
    import subprocess
    import sys

    from tests.conftest import ROOT

    script = (
        "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
        "from goose_tui.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    with LoopbackServer([Reply.hang()]) as server:
        child = subprocess.Popen(
            [sys.executable, "-c", script, "compact", str(SHORT), "--model", "openai/gpt-4o-mini"]
            + ["--api-base", f"{server.url}/v1"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            deadline = time.monotonic() + 60
            while not server.requests:  # the request is out: the call is under way
                assert child.poll() is None and time.monotonic() < deadline
                time.sleep(0.05)
            workers = subprocess.run(
                ["pgrep", "-P", str(child.pid)], capture_output=True, text=True
            ).stdout.split()
            assert workers, "the CLI called litellm from no worker process"
            child.send_signal(signal.SIGINT)
            _, stderr = child.communicate(timeout=30)
        finally:
            child.kill()
        assert child.returncode == 130, stderr
        assert stderr.strip().splitlines()[-1] == "goose-tui: cancelled"
        deadline = time.monotonic() + 10
        while any(Path(f"/proc/{pid}").exists() for pid in workers):
            assert time.monotonic() < deadline, "the worker outlived the CLI"
            time.sleep(0.05)
