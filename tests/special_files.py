"""Special files for the tests of what goose-tui reads of its own."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def unblocking(fifo: Path, after: float = 60.0) -> Iterator[list[float]]:
    """Opens ``fifo`` for writing every ``after`` seconds, so a reader that blocks on it is
    let go and the test fails instead of hanging; yields the list of those rescues, which a
    reader that never blocks leaves empty (no test's own steps take a minute)."""
    done = threading.Event()
    rescues: list[float] = []

    def rescue() -> None:
        while not done.wait(after):
            rescues.append(after)
            os.close(os.open(fifo, os.O_RDWR))  # a writer appears and goes: EOF

    thread = threading.Thread(target=rescue, daemon=True)
    thread.start()
    try:
        yield rescues
    finally:
        done.set()
        thread.join()
