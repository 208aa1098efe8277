"""Special files for the tests of what goose-tui reads of its own."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def unblocking(fifo: Path, after: float = 10.0) -> Iterator[None]:
    """Opens ``fifo`` for writing every ``after`` seconds, so a reader that blocks on it is
    let go and the test fails on time instead of hanging."""
    done = threading.Event()

    def rescue() -> None:
        while not done.wait(after):
            os.close(os.open(fifo, os.O_RDWR))  # a writer appears and goes: EOF

    thread = threading.Thread(target=rescue, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
