"""Performance defects of issue 12 that have a behavioural test: work the pipeline must not do."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import ROOT

# A child process, so the main thread has Python's default SIGINT handler (what a terminal
# run has; pytest-xdist workers and background shells may not), which is the case in which
# asyncio.Runner (Python 3.11) formats repr(task), and with it repr(result).
_REPR_PROBE = """
import json, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)
from goose_tui.cli import run_compaction

calls = []

class Result:
    def __repr__(self):
        calls.append(1)
        return "Result()"

async def compaction():
    return Result()

result = run_compaction(compaction())
print(json.dumps({"type": type(result).__name__, "repr_calls": len(calls)}))
"""


def test_run_compaction_returns_the_result_without_formatting_it() -> None:
    # The CompactionResult of a 20k-message session has an 81M-character repr: building it
    # (twice) was half of a terminal `compact` run.
    out = subprocess.run(
        [sys.executable, "-c", _REPR_PROBE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert json.loads(out.stdout) == {"type": "Result", "repr_calls": 0}
