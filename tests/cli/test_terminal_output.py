"""Issue 11, "nothing reaches the terminal unasked", for the headless commands: on a terminal
(a real pseudo-terminal, bytes read from the master side) every command shows a session's
control characters, bidi overrides and zero-width characters visibly, on stdout and stderr;
`--raw` keeps the bytes for format/prompt/compact; a pipe keeps them for the data commands
(tests/tui/test_terminal_escapes.py pins that)."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.tui.test_terminal_escapes import CLIPBOARD, FORBIDDEN, HOSTILE, TITLE, hostile_session

BIDI = "A7\u202eevil\u2066B7\u200bC7"


def run_on_a_terminal(*args: str, timeout: float = 120) -> tuple[int, str]:
    """The CLI with stdout and stderr on one pseudo-terminal; what the terminal received."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "goose_tui.cli", *args],
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=slave,
        cwd=ROOT,
        env={**os.environ, "COLUMNS": "200"},
    )
    os.close(slave)
    try:
        received = read_terminal(master, proc, timeout)
        code = proc.wait(timeout=10)
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
    return code, received


def read_terminal(master: int, proc: subprocess.Popen[bytes], timeout: float) -> str:
    """What the pseudo-terminal ``master`` received until ``proc`` closed it or ended."""
    received = bytearray()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            received.extend(chunk)
        elif proc.poll() is not None:
            break
    return received.decode("utf-8")


def assert_visible(output: str) -> None:
    for sequence in FORBIDDEN:
        assert sequence not in output, f"{sequence!r} reached the terminal"
    assert "\x1b" not in output and "\x9b" not in output and "\x07" not in output
    for invisible in ("\u202e", "\u2066", "\u200b"):
        assert invisible not in output


@pytest.fixture
def session(tmp_path: Path) -> Path:
    path = hostile_session(tmp_path)
    # Bidi and zero-width characters in the title too (usage and sessions print it).
    lines = path.read_text(encoding="utf-8").splitlines()
    meta = json.loads(lines[0])
    meta["description"] += BIDI
    path.write_text("\n".join([json.dumps(meta), *lines[1:]]) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "command",
    [("usage",), ("format",), ("prompt",), ("compact",), ("timeline",), ("retention",)],
    ids=lambda c: " ".join(c),
)
def test_commands_on_a_terminal_show_control_characters_visibly(
    session: Path, command: tuple[str, ...]
) -> None:
    code, output = run_on_a_terminal(command[0], str(session), *command[1:])
    assert code == 0, output
    assert_visible(output)
    # Shown, not dropped: the control picture for ESC and BEL stand where they were.
    if command[0] in ("usage", "format", "prompt"):
        assert "␛]0;PWNED-TITLE␇" in output


def test_sessions_on_a_terminal_shows_names_visibly(session: Path) -> None:
    code, output = run_on_a_terminal("sessions", str(session.parent))
    assert code == 0, output
    assert_visible(output)
    assert "<U+202E>" in output and "<U+200B>" in output


def test_error_lines_on_a_terminal_show_control_characters_visibly(tmp_path: Path) -> None:
    missing = tmp_path / f"no-such{TITLE}{BIDI}.jsonl"
    code, output = run_on_a_terminal("format", str(missing))
    assert code == 2
    assert_visible(output)
    assert "no such file" in output and "␛]0;PWNED-TITLE␇" in output


def test_raw_keeps_the_bytes_on_a_terminal(session: Path) -> None:
    code, output = run_on_a_terminal("format", str(session), "--raw")
    assert code == 0
    assert CLIPBOARD in output.replace("\r\n", "\n")


def test_a_pipe_still_gets_the_raw_bytes(session: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "goose_tui.cli", "compact", str(session)],
        capture_output=True,
        cwd=ROOT,
        timeout=120,
    )
    assert out.returncode == 0
    assert HOSTILE.split(" ")[0].encode() in out.stdout  # "A1\x1b[2JB1", unchanged
