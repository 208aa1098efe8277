"""Time and peak memory of `goose-tui usage` on hostile sessions (issue 45):

- a 50 MB tool-call argument with no space (base64), one message;
- an export of 1,000,000 messages without a role (one load warning each).

    python benchmarks/hostile_inputs.py                 # this tree
    python benchmarks/hostile_inputs.py --tree OTHER    # another checkout, same inputs

Each case runs as `python -m goose_tui usage FILE` in a process of its own, started in the
tree measured; its wall time, peak RSS (``wait4``) and the bytes it wrote to stderr are
printed. Inputs are generated into a temporary folder and deleted afterwards.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def base64_argument(folder: Path, megabytes: int) -> Path:
    data = base64.b64encode(random.Random(45).randbytes(megabytes * 750_000)).decode()
    request = {
        "type": "toolRequest",
        "id": "call_1",
        "toolCall": {
            "status": "success",
            "value": {"name": "developer__text_editor", "arguments": {"file_text": data}},
        },
    }
    lines = [
        {"id": "b64", "working_dir": "/w", "description": "one huge argument"},
        {"role": "user", "created": 1, "content": [{"type": "text", "text": "write it"}]},
        {"role": "assistant", "created": 2, "content": [request]},
    ]
    path = folder / "base64.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def empty_messages(folder: Path, count: int) -> Path:
    good = {"role": "user", "created": 1, "content": [{"type": "text", "text": "hello"}]}
    path = folder / "flood.json"
    with path.open("w") as handle:
        handle.write('{"id": "flood", "working_dir": "/w", "conversation": [')
        handle.write(json.dumps(good))
        handle.write(", {}" * count)
        handle.write("]}")
    return path


def measure(tree: Path, session: Path) -> tuple[float, float, int, int]:
    """Seconds, peak RSS in MB, stderr bytes and exit status of `usage` on ``session``."""
    with tempfile.TemporaryFile() as err:
        started = time.monotonic()
        child = subprocess.Popen(
            [sys.executable, "-m", "goose_tui", "usage", str(session)],
            cwd=tree,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.monotonic() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0, os.SEEK_END)
        return seconds, usage.ru_maxrss / 1024, err.tell(), child.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout to measure")
    parser.add_argument("--megabytes", type=int, default=50, help="size of the argument")
    parser.add_argument("--messages", type=int, default=1_000_000, help="empty messages")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="goose-tui-bench-") as name:
        folder = Path(name)
        cases = [
            (f"{args.megabytes} MB base64 argument", base64_argument(folder, args.megabytes)),
            (f"{args.messages:,} messages without a role", empty_messages(folder, args.messages)),
        ]
        print(f"tree: {args.tree}")
        print("| case | time | peak RSS | stderr | exit |")
        print("|---|---|---|---|---|")
        for label, session in cases:
            seconds, peak, err_bytes, code = measure(args.tree, session)
            print(f"| {label} | {seconds:.1f} s | {peak:.0f} MB | {err_bytes:,} B | {code} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
