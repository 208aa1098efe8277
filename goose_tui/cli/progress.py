"""``compact``'s progress on a terminal: one status line on stderr, rewritten in place while
the session loads, the prompt is built and the model answers, and erased before anything
else is written.

A compaction with a real model takes seconds to minutes (litellm's import alone takes
seconds), and the summary is printed only at the end. On a terminal the line says what is
happening, how much of the reply has come and for how long. It is moved with carriage
returns and spaces only (no escape sequence), and its text goes through ``visible``. When
stderr is not a terminal nothing is written: a pipe or a file gets only the command's own
messages."""

from __future__ import annotations

import asyncio
import os
import sys
import time
import unicodedata
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

from goose_tui.terminal import visible

if TYPE_CHECKING:
    from goose_tui.compaction.summarize import Attempt

T = TypeVar("T")

TICK_SECONDS = 0.1  # how often the elapsed time and the reply's size are redrawn
ECHO_CELLS = 2  # "^C" echoed by the terminal after the line: room kept, and erased with it


def cells(text: str) -> int:
    """The terminal cells ``text`` takes: two for a wide character (CJK, most emoji), none
    for a combining mark, one for the rest (control characters are made visible first)."""
    return sum(_char_cells(c) for c in text) if not text.isascii() else len(text)


def _char_cells(character: str) -> int:
    if unicodedata.combining(character):
        return 0
    return 2 if unicodedata.east_asian_width(character) in ("W", "F") else 1


def _fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` cells, with "…" where it was cut."""
    if cells(text) <= width:
        return text
    kept, used = [], 0
    for character in text:
        used += _char_cells(character)
        if used > width - 1:
            break
        kept.append(character)
    return "".join(kept) + "…"


class StatusLine:
    """One line of a terminal, rewritten in place; does nothing on ``None``."""

    def __init__(self, stream: TextIO | None) -> None:
        self._stream = stream
        self._shown = ""
        self._shown_cells = 0

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

    def columns(self) -> int:
        """The width of the terminal the line is on (stderr's own: stdout may be a pipe),
        else ``$COLUMNS``, else 80."""
        try:
            assert self._stream is not None
            size = os.get_terminal_size(self._stream.fileno()).columns
        except (AssertionError, AttributeError, OSError, ValueError):
            size = 0
        if size > 0:
            return size
        env = os.environ.get("COLUMNS", "")
        return int(env) if env.isdigit() and int(env) > 0 else 80

    def show(self, text: str) -> None:
        if self._stream is None:
            return
        # Narrower than the terminal, with room for an echoed "^C": a line that wraps cannot
        # be rewritten or erased in place.
        text = visible(text).replace("\n", " ").replace("\t", " ")
        text = _fit(text, max(self.columns() - 1 - ECHO_CELLS, 10))
        if text == self._shown:
            return
        used = cells(text)
        self._write("\r" + text + " " * max(self._shown_cells - used, 0))
        self._shown, self._shown_cells = text, used

    def clear(self) -> None:
        if self._stream is None or not self._shown:
            return
        self._write("\r" + " " * (self._shown_cells + ECHO_CELLS) + "\r")
        self._shown, self._shown_cells = "", 0

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
        self.loading = False  # set while the session loads (before any compaction)

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
        """What is happening, most telling first (a narrow terminal cuts the end): the
        seconds so far, the step, the ladder's rung, the model."""
        attempt = self.attempt
        if self.loading:
            step = "loading the session…"
        elif attempt is None:
            step = "building the prompt…"
        elif not self.client_ready():
            step = "importing litellm…"
        elif self.received:
            step = f"receiving the reply: {self.received:,} chars"
        else:
            step = "waiting for the reply…"
        parts = [f"goose-tui: {self.clock() - self.started:.1f} s", step]
        if attempt is not None and attempt.removed_percent:
            parts.append(f"retry with {attempt.removed_percent}% of tool responses removed")
        return " · ".join([*parts, self.model])

    def redraw(self) -> None:
        self.line.show(self.text())

    @contextmanager
    def shown(self) -> Iterator[CompactProgress]:
        """The line erased however the block ends (an error, Ctrl-C): what is printed next
        starts on a clean line."""
        try:
            yield self
        finally:
            self.line.clear()

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
