"""``compact``'s status line (goose_tui/cli/progress.py): on a terminal's stderr it says
what the command is doing while the model works, and is erased before the command ends; a
pipe gets nothing of it. The command runs in this process on a real pseudo-terminal,
litellm (in its worker process) against a loopback server."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from goose_tui.cli.progress import CompactProgress, StatusLine, cells
from goose_tui.compaction.summarize import Attempt
from tests.cli.test_cli import GOOD_REPLY
from tests.cli.test_terminal_output import cli_on_a_terminal
from tests.conftest import SAMPLES, own_litellm_worker
from tests.loopback import LoopbackServer, Reply

SHORT = SAMPLES / "short.jsonl"


def compact_with_stderr_on_a_terminal(*args: str, columns: int = 120) -> tuple[int, str, str]:
    """(exit code, stdout as a pipe got it, what a terminal ``columns`` wide on stderr
    received)."""
    return cli_on_a_terminal("compact", *args, stdout_too=False, columns=columns)


def lines_shown(terminal: str) -> list[str]:
    """The status line's successive texts (each drawn after a carriage return)."""
    return [part.rstrip() for part in terminal.split("\r") if part.strip()]


def test_compact_shows_its_progress_on_a_terminal_and_erases_it(tmp_path: Path) -> None:
    code, stdout, terminal = compact_with_stderr_on_a_terminal(str(SHORT))
    assert code == 0, terminal
    shown = lines_shown(terminal)
    assert shown[0] == "goose-tui: 0.0 s · loading the session… · offline"
    assert any("building the prompt…" in line for line in shown)
    assert any(" · receiving the reply: " in line for line in shown)
    # Erased: the last write is spaces over the line, and the cursor back at its start.
    assert terminal.endswith("\r") and terminal.rsplit("\r", 2)[1].strip() == ""
    assert "\x1b" not in terminal  # moved with carriage returns and spaces only
    assert stdout.startswith("# Conversation Summary")  # the summary as it always was


@pytest.mark.litellm
def test_compact_with_litellm_shows_the_import_and_the_reply_coming_in() -> None:
    # litellm's import (seconds, in its worker process) was a silent wait before this.
    # A worker of its own, which has not imported litellm yet, as a new command's has not.
    with LoopbackServer([Reply.sse(GOOD_REPLY, chunk_size=16)]) as server, own_litellm_worker():
        code, stdout, terminal = compact_with_stderr_on_a_terminal(
            str(SHORT), "--model", "openai/gpt-4o", "--api-base", server.url
        )
    assert code == 0, terminal
    shown = lines_shown(terminal)
    assert any(line.endswith(" · importing litellm… · openai/gpt-4o") for line in shown)
    # Redrawn when the attempt ends: the whole reply counted.
    assert f"receiving the reply: {len(GOOD_REPLY):,} chars · openai/gpt-4o" in shown[-1]
    assert "done" in stdout


def test_a_pipe_gets_no_status_line(cli) -> None:
    out = cli("compact", str(SHORT))
    assert out.returncode == 0
    assert out.stderr == ""


def test_the_line_fits_the_terminal_on_stderr_when_stdout_is_a_pipe() -> None:
    # It was sized by stdout's terminal: with stdout a pipe that is $COLUMNS or 80, so on a
    # 40-column terminal every redraw wrapped onto a new row, and the erase at the end
    # cleared only the last one (a tmux walk-through: ~30 stacked lines).
    code, _, terminal = compact_with_stderr_on_a_terminal(str(SHORT), columns=40)
    assert code == 0, terminal
    shown = lines_shown(terminal)
    assert shown and all(cells(line) <= 40 - 3 for line in shown)  # room for an echoed ^C
    assert shown[0].startswith("goose-tui: 0.0 s · loading the s") and shown[0].endswith("…")


def test_the_line_is_visible_text_cut_by_the_cells_it_takes(monkeypatch) -> None:
    monkeypatch.setattr(StatusLine, "columns", lambda self: 30)
    stream = io.StringIO()
    line = StatusLine(stream)
    line.show("model\x1b]0;title\x07 " + "x" * 50)
    first = stream.getvalue()
    assert "\x1b" not in first and "\x07" not in first
    assert first.startswith("\rmodel␛]0;title␇ ") and len(first) == 1 + 27
    line.show("short")  # what the longer text left is covered with spaces
    assert stream.getvalue()[len(first) :] == "\rshort" + " " * 22
    line.clear()  # two cells more: a "^C" the terminal echoed after the line goes too
    assert stream.getvalue().endswith("\r" + " " * (5 + 2) + "\r")
    # Wide characters take two cells each: a CJK model name is cut at half the characters.
    wide = io.StringIO()
    StatusLine(wide).show("goose-tui: 1.0 s · " + "模型" * 20)
    assert cells(wide.getvalue().lstrip("\r")) <= 27


def test_a_new_rung_counts_its_reply_from_nothing() -> None:
    progress = CompactProgress(StatusLine(None), "m", clock=lambda: 0.0)
    progress.on_attempt(Attempt(removed_percent=0, removed_messages=0, outcome="running"))
    progress.on_chunk("abc")
    assert "receiving the reply: 3 chars" in progress.text()
    progress.on_attempt(
        Attempt(removed_percent=0, removed_messages=0, outcome="context_length_exceeded")
    )
    progress.on_attempt(Attempt(removed_percent=10, removed_messages=2, outcome="running"))
    assert progress.text() == (
        "goose-tui: 0.0 s · waiting for the reply… · retry with 10% of tool responses removed · m"
    )


def test_an_error_is_printed_on_a_clean_line(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-reply.md"
    code, _, terminal = compact_with_stderr_on_a_terminal(str(SHORT), "--replay", str(missing))
    assert code == 2
    error = terminal.index(f"goose-tui: {missing}: no such reply file")
    assert " · " in terminal[:error]  # the line was shown
    assert terminal[:error].rsplit("\r", 1)[-1] == ""  # and erased before the error
