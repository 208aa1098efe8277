"""``compact``'s progress on a terminal: one status line on stderr, rewritten in place while
the prompt is built and the model answers, and erased before anything else is written.

A compaction with a real model takes seconds to minutes (litellm's import alone is ~2 s), and
the command printed nothing until the summary. On a terminal the line now says what is
happening, how much of the reply has come and for how long. It is moved with carriage
returns and spaces only (no escape sequence), and its text goes through ``visible``. When
stderr is not a terminal nothing is written: a pipe or a file gets exactly what it got
before."""

from __future__ import annotations

import asyncio
import shutil
import sys
import time
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

from goose_tui.terminal import visible

if TYPE_CHECKING:
    from goose_tui.compaction.summarize import Attempt

T = TypeVar("T")

TICK_SECONDS = 0.1  # how often the elapsed time and the reply's size are redrawn


class StatusLine:
    """One line of a terminal, rewritten in place; does nothing on ``None``."""

    def __init__(self, stream: TextIO | None) -> None:
        self._stream = stream
        self._shown = ""

    @classmethod
    def on_stderr(cls) -> StatusLine:
        """A status line on stderr when it is a terminal, else one that writes nothing."""
        stream = sys.stderr
        try:
            tty = stream is not None and stream.isatty()
        except (AttributeError, ValueError):
            tty = False
        # On a terminal stderr passes what is written through ``visible``, which would show
        # the carriage return as a picture: the line writes to the terminal's own stream and
        # makes its text visible itself.
        return cls(getattr(stream, "unguarded", stream) if tty else None)

    def show(self, text: str) -> None:
        if self._stream is None:
            return
        # Shorter than the terminal is wide: a line that wraps cannot be rewritten in place.
        width = max(shutil.get_terminal_size().columns - 1, 10)
        text = visible(text).replace("\n", " ").replace("\t", " ")
        if len(text) > width:
            text = text[: width - 1] + "…"
        if text == self._shown:
            return
        self._write("\r" + text + " " * max(len(self._shown) - len(text), 0))
        self._shown = text

    def clear(self) -> None:
        if self._stream is None or not self._shown:
            return
        self._write("\r" + " " * len(self._shown) + "\r")
        self._shown = ""

    def _write(self, text: str) -> None:
        assert self._stream is not None
        try:
            self._stream.write(text)
            self._stream.flush()
        except (OSError, ValueError):
            self._stream = None  # a closed terminal: the command goes on without its line


class CompactProgress:
    """What ``compact`` is doing, on a ``StatusLine``: the step, the attempt of the ladder,
    the reply's size as it streams in, and the time since the command started."""

    def __init__(
        self,
        line: StatusLine,
        model: str,
        client_ready: Callable[[], bool] = lambda: True,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.line = line
        self.model = model
        self.client_ready = client_ready
        self.clock = clock
        self.started = clock()
        self.attempt: Attempt | None = None
        self.received = 0

    def on_attempt(self, attempt: Attempt) -> None:
        last = self.attempt
        if attempt.outcome == "running" and (
            last is None or last.removed_percent != attempt.removed_percent
        ):
            self.received = 0  # a new rung: its reply starts from nothing
        self.attempt = attempt
        self.redraw()

    def on_chunk(self, text: str) -> None:
        self.received += len(text)

    def text(self) -> str:
        attempt = self.attempt
        if attempt is None:
            step = "building the prompt…"
        elif not self.client_ready():
            step = "importing litellm…"
        elif self.received:
            step = f"receiving the reply: {self.received:,} chars"
        else:
            step = "waiting for the reply…"
        if attempt is not None and attempt.removed_percent:
            step = f"{attempt.removed_percent}% of tool responses removed, {step}"
        return f"goose-tui: {self.model}: {step} {self.clock() - self.started:.1f} s"

    def redraw(self) -> None:
        self.line.show(self.text())

    async def around(self, work: Coroutine[Any, Any, T]) -> T:
        """``work`` awaited with the line redrawn every tick, and erased when it ends (with
        its result, an error or a cancel)."""

        async def tick() -> None:
            while True:
                self.redraw()
                await asyncio.sleep(TICK_SECONDS)

        self.redraw()  # now: the first request is built before ``work`` first yields
        ticker = asyncio.ensure_future(tick())
        try:
            return await work
        finally:
            ticker.cancel()
            self.line.clear()
