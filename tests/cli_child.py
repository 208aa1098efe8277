"""Run goose-tui's command-line entry point (``goose_tui.cli.main``, what the ``goose-tui``
script runs) for many argument lists in one child process.

A fresh interpreter per run spends ~0.4 s starting and importing, and seconds more when a
run imports litellm; tests that check one run each share one child instead. Each run gets
its own argument list and environment overrides, and its own stdout and stderr: text
streams over bytes, UTF-8 and strict (as ``PYTHONIOENCODING=utf-8:strict`` makes a pipe),
so a run that would write what UTF-8 cannot hold fails as it would in a shell. A run that
needs a terminal, signals or its own process (Ctrl-C, a pty) is not for this.
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_DRIVER = r"""
import base64, io, json, os, sys
from goose_tui.cli import main

def stream():
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict", write_through=True)

results = {}
for name, (argv, env) in json.load(sys.stdin).items():
    os.environ.update(env)
    out, err = stream(), stream()
    sys.stdout, sys.stderr = out, err
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    finally:
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
    results[name] = [code] + [
        base64.b64encode(s.buffer.getvalue()).decode("ascii") for s in (out, err)
    ]
sys.__stdout__.write(json.dumps(results))
"""


@dataclass(frozen=True)
class CliRun:
    returncode: int
    stdout: bytes
    stderr: bytes


def run_cli_cases(
    cases: dict[str, tuple[list[str], dict[str, str]]],
    *,
    cwd: Path,
    env: dict[str, str],
    timeout: float = 600,
    preexec: Callable[[], object] | None = None,
) -> dict[str, CliRun]:
    """name -> (argv, environment overrides) in; name -> the run's exit code and bytes out.
    ``preexec``: called in the child before it starts (a limit on its files, say)."""
    child = subprocess.run(
        [sys.executable, "-c", _DRIVER],
        input=json.dumps(cases),
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=preexec,
    )
    assert child.returncode == 0, child.stderr
    raw: dict[str, Any] = json.loads(child.stdout)
    return {
        name: CliRun(code, base64.b64decode(out), base64.b64decode(err))
        for name, (code, out, err) in raw.items()
    }
