"""Issue 11, "nothing reaches the terminal unasked", for the headless commands: on a terminal
(a real pseudo-terminal, bytes read from the master side) every command shows a session's
control characters, bidi overrides and zero-width characters visibly, on stdout and stderr;
`--raw` keeps the bytes for format/prompt/compact; a pipe keeps them for the data commands
(tests/tui/test_terminal_escapes.py pins that)."""

from __future__ import annotations

import fcntl
import io
import json
import os
import pty
import struct
import sys
import termios
import threading
from pathlib import Path

import pytest

from tests.tui.test_terminal_escapes import CLIPBOARD, FORBIDDEN, HOSTILE, TITLE, hostile_session

BIDI = "A7\u202eevil\u2066B7\u200bC7"


def cli_on_a_terminal(
    *argv: str, stdout_too: bool = True, columns: int = 200, columns_env: str | None = None
) -> tuple[int, str, str]:
    """goose-tui's entry point in this process with stderr, and stdout if ``stdout_too``
    (else a pipe's stand-in), on a real pseudo-terminal ``columns`` wide, with $COLUMNS
    ``columns_env`` (unset if None) and no $LINES: the exit code, what the stand-in got, and
    the bytes the terminal's master side received. Python opens a terminal's stream as this
    does: UTF-8, line-buffered."""
    from goose_tui.cli import main

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    received = bytearray()

    def read() -> None:  # on a thread of its own: a full terminal would block the writer
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # every slave side is closed
                return
            if not chunk:
                return
            received.extend(chunk)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    terminal = io.TextIOWrapper(
        io.FileIO(slave, "w", closefd=False), encoding="utf-8", line_buffering=True
    )
    pipe = io.StringIO()
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.delenv("LINES", raising=False)
            if columns_env is None:
                patch.delenv("COLUMNS", raising=False)
            else:
                patch.setenv("COLUMNS", columns_env)
            patch.setattr(sys, "stdin", io.StringIO())
            patch.setattr(sys, "stderr", terminal)
            patch.setattr(sys, "stdout", terminal if stdout_too else pipe)
            try:
                code = main(list(argv))
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
            terminal.flush()
    finally:
        os.close(slave)
        reader.join(timeout=30)
        os.close(master)
    return code, pipe.getvalue(), received.decode("utf-8")


def run_on_a_terminal(*args: str) -> tuple[int, str]:
    """The CLI with stdout and stderr on one pseudo-terminal; what the terminal received."""
    code, _, received = cli_on_a_terminal(*args, columns_env="200")
    return code, received


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


def test_a_pipe_still_gets_the_raw_bytes(cli, session: Path) -> None:
    out = cli("compact", str(session))
    assert out.returncode == 0
    assert HOSTILE.split(" ")[0] in out.stdout  # "A1\x1b[2JB1", unchanged
