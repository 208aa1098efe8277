"""Runs every snapshot and pilot test (tests/tui) many times in a row while other processes
keep every core busy, and reports the failures per test. A test that waits for time or for an
idle CPU instead of a defined state of the app fails here sooner or later.

    python benchmarks/tui_stress.py               # 20 runs, one busy process per core
    python benchmarks/tui_stress.py --runs 5 --busy 0

Exits 1 when any run had a failure. Not part of the pytest run (it takes runs × ~2 min).
"""

from __future__ import annotations

import argparse
import importlib.util
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _burn(stop: multiprocessing.synchronize.Event) -> None:  # type: ignore[name-defined]
    """Keep one core busy until told to stop."""
    x = 0
    while not stop.is_set():
        for _ in range(200_000):
            x = (x * 31 + 7) % 1_000_003


def _one_run(number: int, folder: Path, tests: list[str]) -> tuple[int, list[str], float]:
    report = folder / f"run{number}.xml"
    # One process, in order: the point is each test under load, not the suite's wall time.
    serial = ["-n", "0"] if importlib.util.find_spec("xdist") else []
    started = time.monotonic()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            *serial,
            f"--junitxml={report}",
            *tests,
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    elapsed = time.monotonic() - started
    failed: list[str] = []
    total = 0
    if report.exists():
        for case in ET.parse(report).getroot().iter("testcase"):
            total += 1
            problem = case.find("failure")
            if problem is None:
                problem = case.find("error")
            if problem is not None:
                name = f"{case.get('classname')}::{case.get('name')}"
                failed.append(name)
                # The end of the report: the assertion, and what the test printed about the
                # screen (tests/tui/conftest.py's wait_until shows it as text).
                tail = (problem.text or problem.get("message") or "").splitlines()[-60:]
                print(f"--- run {number}: {name}", *tail, sep="\n", flush=True)
    else:
        failed.append("<pytest produced no report>")
    return total, failed, elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument(
        "--busy",
        type=int,
        default=os.cpu_count() or 2,
        help="processes kept busy meanwhile (default: one per core)",
    )
    parser.add_argument("tests", nargs="*", default=["tests/tui"])
    args = parser.parse_args()

    stop = multiprocessing.Event()
    burners = [
        multiprocessing.Process(target=_burn, args=(stop,), daemon=True) for _ in range(args.busy)
    ]
    for burner in burners:
        burner.start()
    failures: Counter[str] = Counter()
    bad_runs = 0
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for number in range(1, args.runs + 1):
                total, failed, elapsed = _one_run(number, Path(tmp), args.tests)
                failures.update(failed)
                bad_runs += bool(failed)
                print(
                    f"run {number:>2}/{args.runs}: {total} tests, {len(failed)} failed, "
                    f"{elapsed:.0f} s" + (f"  ({', '.join(failed)})" if failed else ""),
                    flush=True,
                )
    finally:
        stop.set()
        for burner in burners:
            burner.join(timeout=5)
    print(f"\n{args.runs} runs with {args.busy} busy processes: {bad_runs} run(s) with failures")
    for name, count in failures.most_common():
        print(f"  {count:>3}/{args.runs}  {name}")
    return 1 if bad_runs else 0


if __name__ == "__main__":
    sys.exit(main())
