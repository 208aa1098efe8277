"""Token counts from a process of their own, for the app.

Building tiktoken's encoder is one call that holds the GIL (the 200,000-entry rank map
crossing into Rust), long enough to stall the app's screen when its first count comes, and
nothing inside one process can cut a C call short. While the app runs
(``counting_in_worker``), every count goes to a worker process
(``python -m goose_tui.token_worker``) that builds the encoder and counts there with the same
``count_tokens``; the app only encodes the texts to UTF-8, a slice at a time. The CLI and the
Python API count in their own process: no screen waits on them.

The pipes carry, per request: ``<n>\\n`` then n texts, each as frames ``<k>\\n<k bytes of
UTF-8>`` ended by ``0\\n`` (``surrogatepass`` keeps a lone surrogate); back, one JSON line
of n counts. One request at a time. A worker that cannot start or stops answering is left
behind: the counts are then made in the app's process (the stall comes back, never a wrong
or missing count).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from itertools import chain
from typing import IO

from goose_tui import tokens
from goose_tui.pieces import Text, read_frames, write_frames

WORKER_COMMAND = [sys.executable, "-m", "goose_tui.token_worker"]
WORKER_NICENESS = 10


class TokenWorker:
    """One worker process; ``count`` is safe from any thread (one request at a time)."""

    def __init__(self) -> None:
        self._stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            WORKER_COMMAND, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr
        )
        self._lock = threading.Lock()

    def count(self, texts: Sequence[Text]) -> list[int]:
        """Each text's tokens; OSError or ValueError when the worker is gone or garbled."""
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None
        with self._lock:
            stdin.write(b"%d\n" % len(texts))
            for text in texts:
                write_frames(stdin, text)
            stdin.flush()
            line = stdout.readline()
        counts = json.loads(line) if line else None
        if not isinstance(counts, list) or len(counts) != len(texts):
            raise ValueError("the token worker gave no counts")
        return [int(n) for n in counts]

    def close(self) -> None:
        try:
            if self.process.stdin is not None:
                self.process.stdin.close()
            self.process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()


_lock = threading.Lock()
_worker: TokenWorker | None = None
_failed = False
_open = 0  # how many callers (apps) count through the worker now


@contextmanager
def counting_in_worker() -> Iterator[None]:
    """Counts made in this process while open (``goose_tui.tokens``) are made by the token
    worker, started at the first open and kept for the next; it ends with this process."""
    global _open, _worker, _failed
    with _lock:
        _open += 1
        if _worker is None and not _failed:
            try:
                _worker = TokenWorker()
                atexit.register(_worker.close)
            except OSError:
                _failed = True
        tokens.counts_elsewhere = _worker_counts
    try:
        yield
    finally:
        with _lock:
            _open -= 1
            if not _open:
                tokens.counts_elsewhere = None


def _worker_counts(texts: Sequence[Text]) -> list[int] | None:
    """The texts' counts from the worker, or None: count them here."""
    global _worker, _failed
    worker = _worker
    if worker is None:
        return None
    try:
        return worker.count(texts)
    except (OSError, ValueError):  # gone or garbled: count here from now on, as before
        with _lock:
            if _worker is worker:
                _worker, _failed = None, True
        return None


def _read_count(stdin: IO[bytes]) -> int:
    """One text's tokens, read from its frames. A text of more than one frame (the prompt:
    tens of millions of characters) is counted as its frames come, never held whole."""
    frames = read_frames(stdin)
    first = next(frames, "")
    second = next(frames, None)
    if second is None:
        return tokens.count_tokens(first)
    return tokens.count_streamed(chain((first, second), frames))


def main() -> None:
    # The app's screen comes first, as with its litellm worker (WORKER_NICENESS there):
    # encoding a big session is seconds of CPU on every core.
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICENESS)
    tokens.encoder()  # built before the first request comes
    stdin, stdout = sys.stdin.buffer, sys.stdout
    while head := stdin.readline():
        counts = [_read_count(stdin) for _ in range(int(head))]
        stdout.write(json.dumps(counts) + "\n")
        stdout.flush()


if __name__ == "__main__":
    main()
