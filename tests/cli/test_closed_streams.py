"""Standard streams that are closed: a clear message and an exit code, never "internal
error"."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from goose_tui.cli import main
from tests.conftest import ROOT


@pytest.mark.parametrize(("command", "what"), [("parse", "reply"), ("render", "summary JSON")])
def test_reading_a_closed_stdin_says_so(
    command: str, what: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", None)  # what Python sets when fd 0 is closed
    assert main([command, "-"]) == 2
    assert capsys.readouterr().err == (
        f"goose-tui: -: cannot read the {what}: standard input is closed\n"
    )


def test_parse_with_stdin_really_closed() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "goose_tui.cli", "parse", "-"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        preexec_fn=lambda: os.close(0),
    )
    assert done.returncode == 2, done.stderr
    assert "standard input is closed" in done.stderr and "internal error" not in done.stderr
