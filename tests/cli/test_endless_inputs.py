"""Inputs that would never end (devices, FIFOs, endless replies) are refused or cut off at
once. Special files are made in tmp_path, never written under /dev."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli.test_output_files import one_line
from tests.conftest import ROOT, SAMPLES
from tests.llm.test_litellm_errors import TOO_LONG
from tests.special_files import unblocking

SHORT = SAMPLES / "short.jsonl"


def test_a_character_device_as_the_session_is_refused_at_once() -> None:
    # Opened read-only by the loader (never written). A process of its own, so that a loader
    # reading /dev/zero forever fails the test at the timeout, not the test worker.
    started = time.monotonic()
    out = subprocess.run(
        [sys.executable, "-m", "goose_tui.cli", "format", "/dev/zero"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=30,
    )
    assert out.returncode == 2
    assert "not a regular file" in one_line(out.stderr)
    assert time.monotonic() - started < 20


@pytest.mark.parametrize("command", ["format", "usage", "sessions"])
def test_a_fifo_as_the_session_is_refused_at_once(cli, tmp_path: Path, command: str) -> None:
    fifo = tmp_path / "session.jsonl"
    os.mkfifo(fifo)
    with unblocking(fifo, after=10) as rescues:
        out = cli(command, str(fifo))
    assert not rescues  # never blocked on open
    assert out.returncode == 2
    assert "FIFO" in one_line(out.stderr)


@pytest.mark.parametrize("command", ["parse", "render"])
def test_a_fifo_as_a_reply_or_summary_file_is_refused_at_once(
    cli, tmp_path: Path, command: str
) -> None:
    fifo = tmp_path / "reply.md"
    os.mkfifo(fifo)
    with unblocking(fifo, after=10) as rescues:
        out = cli(command, str(fifo))
    assert not rescues
    assert out.returncode == 2
    assert "not a regular file" in one_line(out.stderr)


def test_a_fifo_as_the_replay_file_is_refused_at_once(cli, tmp_path: Path) -> None:
    fifo = tmp_path / "reply.md"
    os.mkfifo(fifo)
    with unblocking(fifo, after=10) as rescues:
        out = cli("compact", str(SHORT), "--replay", str(fifo))
    assert not rescues
    assert out.returncode == 2
    assert "not a regular file" in one_line(out.stderr)


@pytest.mark.parametrize("shape", ["plain", "summary after the cap"])
def test_a_replay_file_over_the_cap_fails_the_compaction(cli, tmp_path: Path, shape: str) -> None:
    from goose_tui.llm.base import MAX_REPLY_CHARS

    reply = tmp_path / "huge.md"
    if shape == "plain":
        reply.write_text("z" * (MAX_REPLY_CHARS + 1))
    else:  # a valid summary, past a 5,000,000-character analysis
        block = '```json\n{"user_intent": ["x"], "current_work": "y"}\n```\n'
        reply.write_text("<analysis>" + "x" * 5_000_000 + "</analysis>\n" + block)
    out = cli("compact", str(SHORT), "--replay", str(reply))
    assert (out.returncode, out.stdout) == (1, "")
    assert one_line(out.stderr) == f"goose-tui: {TOO_LONG}"
