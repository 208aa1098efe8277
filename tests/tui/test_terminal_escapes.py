"""Escape sequences and markup in untrusted text never reach the terminal (issue 5, "Terminal").

A session (and a model reply) full of terminal control sequences: clear screen, set title,
OSC 52 clipboard write, OSC 8 hyperlinks, DCS, a C1 CSI, plus Rich/Textual markup. Two
captures of what the app writes:

- the real app (``python -m goose_tui.cli``) in a pseudo-terminal, bytes read from the master
  side exactly as a terminal emulator would receive them;
- the app under ``App.run_test`` with the headless driver's ``write`` recording every frame.

The markers around each sequence (``A1``..``B1``) let the test tell the session's bytes from
Textual's own control output (Textual itself clears the screen and sets modes at start-up).

The CLI's ``format``/``parse`` output is data for pipes and files, so it is written byte for
byte like ``cat`` would (see docs/reliability.md); a test pins that choice. File names,
paths, toasts, inputs, titles and modals show such characters inert too.
"""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest
from textual.widgets import Input, TextArea

from goose_tui.inert import inert
from goose_tui.tui.app import GooseTUI
from goose_tui.tui.screens.confirm import ConfirmScreen
from goose_tui.tui.screens.error_modal import ErrorModal
from goose_tui.tui.screens.save_dialog import SaveDialog

from .conftest import compacted, settle

ROOT = Path(__file__).resolve().parents[2]

CLEAR = "A1\x1b[2JB1"
TITLE = "A2\x1b]0;PWNED-TITLE\x07B2"
CLIPBOARD = "A3\x1b]52;c;SEFDS0VEQ0xJUA==\x07B3"  # base64 of "HACKEDCLIP"
HYPERLINK = "A4\x1b]8;;http://127.0.0.1:9/phish\x1b\\click-me\x1b]8;;\x1b\\B4"
DCS = "A5\x1bP+q544e\x1b\\B5"
C1_CSI = "A6\x9b2JB6"
MARKUP = "[bold]markup-kept[/] [link=http://127.0.0.1:9/x]lnk[/link] [@click=app.quit]q[/]"
HOSTILE = " ".join([CLEAR, TITLE, CLIPBOARD, HYPERLINK, DCS, C1_CSI, MARKUP])

# What must never appear in the app's output: each session sequence still attached to its
# marker, and the payloads' distinctive starts even if the marker were split off.
FORBIDDEN = [
    "A1\x1b[2J",
    "\x1b]0;PWNED",
    "\x1b]52;c;SEFDS0VE",
    "\x1b]8;;http://127.0.0.1:9/phish",
    "\x1bP+q544e",
    "\x9b2J",
    "A6\x9b",
]


def hostile_session(folder: Path) -> Path:
    meta = {"description": "title " + TITLE, "message_count": 4, "working_dir": "/w" + CLEAR}
    messages = [
        {"role": "user", "created": 1, "content": [{"type": "text", "text": HOSTILE}]},
        {
            "role": "assistant",
            "created": 2,
            "content": [
                {"type": "thinking", "thinking": HOSTILE, "signature": "s"},
                {
                    "type": "toolRequest",
                    "id": "call_1" + TITLE,
                    "toolCall": {
                        "status": "success",
                        "value": {"name": "shell" + CLIPBOARD, "arguments": {"cmd": HOSTILE}},
                    },
                },
            ],
        },
        {
            "role": "user",
            "created": 3,
            "content": [
                {
                    "type": "toolResponse",
                    "id": "call_1",
                    "toolResult": {
                        "status": "success",
                        "value": {"content": [{"type": "text", "text": HOSTILE}], "isError": False},
                    },
                }
            ],
        },
        {"role": "assistant", "created": 4, "content": [{"type": "text", "text": HOSTILE}]},
    ]
    path = folder / "hostile.jsonl"
    lines = [json.dumps(meta)] + [json.dumps(m, ensure_ascii=False) for m in messages]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def hostile_reply(folder: Path) -> Path:
    summary = {
        "user_intent": [HOSTILE],
        "files": [{"path": "x.py" + TITLE, "summary": HYPERLINK, "key_code": CLIPBOARD}],
        "current_work": f"SUMMARY-SHOWN {HOSTILE} [a link](http://127.0.0.1:9/md-link)",
        "next_step": MARKUP,
    }
    reply = f"<analysis>{HOSTILE}</analysis>\n```json\n{json.dumps(summary)}\n```\n"
    path = folder / "reply.txt"
    path.write_text(reply, encoding="utf-8")
    return path


def assert_nothing_escaped(output: str) -> None:
    for sequence in FORBIDDEN:
        assert sequence not in output, f"{sequence!r} reached the terminal"
    # Markup was shown as typed, so it was not parsed (a parsed [bold] would vanish).
    assert "markup-kept" in output


# --- the real app in a pseudo-terminal ---------------------------------------------------------


def read_until(fd: int, buffer: bytearray, needle: bytes, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the child closed the terminal
                return needle in buffer
            if not chunk:
                return needle in buffer
            buffer.extend(chunk)
            if needle in buffer:
                return True
    return needle in buffer


def test_real_app_in_a_pty_sends_no_session_escape_sequences(tmp_path: Path) -> None:
    session, reply = hostile_session(tmp_path), hostile_reply(tmp_path)
    # Not COLUMNS/LINES: pytest-xdist's workers set them to 80x24, and Textual takes them
    # over the terminal's own size (180x50 below), which hid the summary's pane.
    inherited = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env = {
        **inherited,
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
        "TEXTUAL_ANIMATIONS": "none",
    }
    # pytest-xdist workers run with COLUMNS=80 and LINES=24, and the terminal size read from
    # them wins over the pty's: the app then lays out for 80 columns, shows the panes as tabs
    # and never paints the summary. The pty's own size (set below) must decide.
    env.pop("COLUMNS", None)
    env.pop("LINES", None)
    argv = [sys.executable, "-m", "goose_tui.cli", str(session), "--model", f"replay:{reply}"]
    pid, fd = pty.fork()
    if pid == 0:  # the child: size the terminal, then become the app
        try:
            import fcntl
            import termios

            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 180, 0, 0))
            os.chdir(ROOT)
            os.execve(argv[0], argv, env)
        finally:
            os._exit(127)
    output = bytearray()
    try:
        # The stand-in for ESC shows once the conversation is on screen.
        # Generous bounds: each wait ends as soon as its text shows, and a loaded machine
        # (the suite runs on every core) can take tens of seconds to start the app.
        assert read_until(fd, output, b"PWNED-TITLE", 120), output[-2000:]
        # Compact with the replayed hostile reply. A key sent while the app is still starting
        # can be lost, so send it again until the summary shows (a second `c` while one runs
        # only says so).
        deadline = time.monotonic() + 120
        shown = False
        while not shown and time.monotonic() < deadline:
            os.write(fd, b"c")
            shown = read_until(fd, output, b"SUMMARY-SHOWN", 15)
        assert shown, output[-2000:]
        time.sleep(0.5)
        read_until(fd, output, b"\x00never", 1.0)
        os.write(fd, b"q")
        read_until(fd, output, b"\x00never", 3.0)
    finally:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done == 0:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(fd)
    text = output.decode("utf-8", errors="replace")
    assert_nothing_escaped(text)
    # The sequences are shown, as visible symbols, rather than dropped.
    assert "␛" in text and "PWNED-TITLE" in text


# --- the app under run_test, recording every frame the driver is given -------------------------


async def test_headless_frames_carry_no_session_escape_sequences(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from textual.drivers.headless_driver import HeadlessDriver

    from goose_tui.tui.app import GooseTUI

    frames: list[str] = []
    monkeypatch.setattr(HeadlessDriver, "write", lambda self, data: frames.append(data))
    # Textual skips painting under a headless driver; claiming otherwise makes it paint every
    # frame into the recorder exactly as it would into a terminal.
    monkeypatch.setattr(HeadlessDriver, "is_headless", property(lambda self: False))
    session, reply = hostile_session(tmp_path), hostile_reply(tmp_path)
    app = GooseTUI(session, model=f"replay:{reply}")

    async def painted(marker: str, pilot) -> None:
        deadline = time.monotonic() + 20
        while marker not in "".join(frames) and time.monotonic() < deadline:
            await pilot.pause(0.1)

    async with app.run_test(size=(180, 50)) as pilot:
        await painted("PWNED-TITLE", pilot)
        await pilot.press("c")
        await painted("SUMMARY-SHOWN", pilot)
        await pilot.press("tab", "tab", "tab")  # move focus over the other panes
        await settle(pilot)
    output = "".join(frames)
    assert "SUMMARY-SHOWN" in output and "PWNED-TITLE" in output
    assert_nothing_escaped(output)


# --- the CLI: data out, byte for byte ----------------------------------------------------------


def test_cli_format_writes_the_session_bytes_unchanged_to_a_pipe(tmp_path: Path) -> None:
    """`goose-tui format` is a data command: like `cat`, it does not rewrite the content it
    prints, so a pipe (diff, grep, a file) gets exactly what the summarizer would get."""
    from goose_tui.compaction.format import format_messages
    from goose_tui.session.loader import load_session

    session = hostile_session(tmp_path)
    out = subprocess.run(
        [sys.executable, "-m", "goose_tui.cli", "format", str(session)],
        capture_output=True,
        cwd=ROOT,
        check=True,
    ).stdout
    assert out.decode("utf-8") == format_messages(load_session(session).messages) + "\n"
    assert CLIPBOARD.encode() in out


# -- paths, toasts, inputs, titles and modals ----------------------------------------------

PATH_ESCAPES = {
    "folder": "F\x1b]0;FOLDER-TITLE\x07\u2066",
    "name": "N\x1b[2J\u202eLSNOJ\u200b",
    "prompts": "P\x1b]52;c;SEFDS0VE\x07\u2067",
}
PATH_FORBIDDEN = [
    "\x1b]0;FOLDER",
    "N\x1b[2J",
    "\x1b]52;c;SEFDS0VE",
    "\u202e",
    "\u2066",
    "\u2067",
    "\u2068",
    "\u2069",
    "\u200b",
]


async def test_paths_toasts_inputs_titles_and_modals_are_inert(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, session_file: Path, reply_file: Path
) -> None:
    from textual.drivers.headless_driver import HeadlessDriver

    folder = tmp_path / PATH_ESCAPES["folder"]
    folder.mkdir()
    session = folder / f"{PATH_ESCAPES['name']}.jsonl"
    text = session_file.read_text().replace("Can you fix it?", "Can you fix it? \u202eevil\u2069")
    session.write_text(text)
    prompts = tmp_path / PATH_ESCAPES["prompts"]
    prompts.mkdir()
    (prompts / "compaction.md").write_text("{% for x in %}\n")  # broken: a toast names it
    reply = folder / "reply.md"
    reply.write_text(reply_file.read_text().replace("Add a changelog", "Add a\u2068 changelog"))

    frames: list[str] = []
    monkeypatch.setattr(HeadlessDriver, "write", lambda self, data: frames.append(data))
    monkeypatch.setattr(HeadlessDriver, "is_headless", property(lambda self: False))
    app = GooseTUI(session, model=f"replay:{reply}", prompts_dir=prompts)
    app.NOTIFICATION_TIMEOUT = 3600  # every toast is still there to look at in the end
    async with app.run_test(size=(200, 50)) as pilot:
        await compacted(pilot)
        await pilot.press("e", "escape")  # the JSON editor shown, with the reply's U+2068
        await settle(pilot)
        assert "Add a\\u2068 changelog" in app.main.query_one("#json-editor", TextArea).text
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, SaveDialog)
        value = app.screen.query_one("#save-path", Input).value
        assert "<U+202E>" in value and "\u202e" not in value and "\x1b" not in value
        await pilot.press("enter")  # saved: a toast names the file
        await settle(pilot)
        saved = folder / f"{PATH_ESCAPES['name']}.summary.json"
        assert saved.is_file()  # the real name, not the one shown
        await pilot.press("s")
        await settle(pilot)
        await pilot.press("enter")  # it exists now: the question names it
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        app.screen.query_one("#save-path", Input).value = inert(str(session))
        await pilot.press("enter")  # the input itself: the error modal names it
        await settle(pilot)
        assert isinstance(app.screen, ErrorModal)
        await pilot.press("escape")
        await settle(pilot)
        # The toasts still up, as handed to Textual ("saved …", the broken override).
        toasts = [(n.title, n.message, n.markup) for n in app._notifications]
    output = "".join(frames)
    assert "<U+202E>" in output and "FOLDER-TITLE" in output and "Replace it?" in output
    assert any(message.startswith("saved ") for _, message, _ in toasts)
    for title, message, markup in toasts:
        assert not markup and inert(title) == title and inert(message) == message
        assert "<U+202E>LSNOJ" in message or "<U+2067>" in message
    for sequence in PATH_FORBIDDEN:
        assert sequence not in output, repr(sequence)
