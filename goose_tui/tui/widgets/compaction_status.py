"""One line about the compaction in progress or just finished: model, ladder rung, elapsed
time, tokens sent and received."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len
from textual.app import App
from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget

from goose_tui.compaction.summarize import LADDER_PERCENTS, Attempt
from goose_tui.inert import inert
from goose_tui.tui.widgets.goose_footer import bound_key

# The main screen's compact key, declared here so the hints that name it (this line, the
# analysis pane, toasts) name the key a keymap may have rebound it to.
COMPACT_BINDING = Binding("c", "compact", "Compact", id="main.compact")
# The app's key that opens a session, for the hints shown when none is open.
OPEN_BINDING = Binding("o", "open_session", "Open session", id="app.open", show=False)
IMPORTING_NOTE = "importing litellm… (its worker process is starting)"


def compact_key(app: App[Any]) -> str:
    """The key that compacts, as the footer shows it."""
    return bound_key(app, COMPACT_BINDING)


def open_key(app: App[Any]) -> str:
    """The key that opens a session, as the footer shows it."""
    return bound_key(app, OPEN_BINDING)


def no_session_hint(app: App[Any]) -> str:
    """What the compact hints say while no session is open (one could not be read)."""
    return f"no session open · press {open_key(app)} to open one"


MODEL_CELLS = 30  # a longer model name is cut to its last this many cells when space is short


class CompactionStatus(Widget):
    DEFAULT_CSS = """
    CompactionStatus {
        height: 1; padding: 0 1; background: $panel; color: $text-muted;
        text-wrap: nowrap; text-overflow: ellipsis;
    }
    CompactionStatus.-running { color: $warning; }
    CompactionStatus.-failed { color: $error; }
    CompactionStatus.-done { color: $success; }
    """

    # The model and Goose format of the compaction the line describes (when idle, those of
    # the next one); ``next_model`` / ``next_profile`` are the next compaction's when they
    # have been switched since (p, the palette), "" when the same.
    model: reactive[str] = reactive("offline")
    profile: reactive[str] = reactive("goose-sdk-wheel")  # profiles.py; p switches
    next_model: reactive[str] = reactive("")
    next_profile: reactive[str] = reactive("")
    # Before a call to a priced model: its estimated input tokens and cost ("" otherwise).
    estimate: reactive[str] = reactive("")
    state: reactive[str] = reactive("idle")  # idle, running, done, failed, cancelled
    attempt: reactive[Attempt | None] = reactive(None)
    elapsed: reactive[float] = reactive(0.0)
    # The running model call's limit and when it started (a ladder rung is a call of its own);
    # None for the built-in models, which are not timed.
    timeout: reactive[float | None] = reactive(None)
    call_started: reactive[float] = reactive(0.0)
    # The model's client is still loading: the request has not left, and its limit has not
    # begun to run.
    waiting: reactive[bool] = reactive(False)
    received_chars: reactive[int] = reactive(0)
    note: reactive[str] = reactive("")
    compact_key: reactive[str] = reactive("c")  # the key the user compacts with (a keymap's)
    no_session: reactive[str] = reactive("")  # said instead of the compact hint, when set
    # Whether the next compaction's request fits its model's own window (RequestFit),
    # "" when no window is known or the request is not counted yet.
    fit: reactive[str] = reactive("")

    class Ticked(Message):
        """Once a tick while a compaction runs: what streamed in since is drawn now, in one
        piece (a model may stream tens of thousands of chunks)."""

    def __init__(self, *, clock: Callable[[], float], id: str | None = None) -> None:
        super().__init__(id=id)
        self.clock = clock  # injectable so snapshots show a fixed elapsed time
        self._started = 0.0
        self._ticker: Timer | None = None
        self._client_ready: Callable[[], bool] = lambda: True

    def watch_state(self, state: str) -> None:
        self.remove_class("-running", "-failed", "-done")
        if state in ("running", "failed", "done"):
            self.add_class(f"-{state}")
        if state != "running":
            self.stop()

    def start(
        self, model: str, profile: str, timeout: float | None, client_ready: Callable[[], bool]
    ) -> None:
        """A compaction starts with ``model``: the elapsed time runs; while its client is
        still being imported (``client_ready`` says when it is not), the request has not left
        and ``timeout`` does not run."""
        self.model, self.profile, self.next_model, self.next_profile = model, profile, "", ""
        self.attempt, self.received_chars = None, 0
        self.timeout, self.call_started = timeout, 0.0
        self.state = "running"
        self._client_ready = client_ready
        self.waiting = not client_ready()
        self.note = IMPORTING_NOTE if self.waiting else ""
        self._started = self.clock()
        self._ticker = self.set_interval(0.1, self._tick)

    def call_starts(self) -> None:
        """A ladder rung's model call starts: its time limit runs from now."""
        self.received_chars = 0
        self.call_started = self.clock() - self._started

    def stop(self) -> None:
        """The compaction ended (or never got its request out): the last tick, then the
        elapsed time stands."""
        if self._ticker is not None:
            self._ticker.stop()
            self._ticker = None
            self._tick()
        if self.waiting:
            self.note, self.waiting = "", False

    def _tick(self) -> None:
        self.elapsed = self.clock() - self._started
        if self.waiting and self._client_ready():
            # The request leaves now: its time limit starts here.
            self.note, self.waiting, self.call_started = "", False, self.elapsed
        self.post_message(self.Ticked())

    def set_next(self, model: str, profile: str) -> None:
        """The model and format the next compaction will use (the user switched them)."""
        if self.state == "idle":
            self.model, self.profile, self.next_model, self.next_profile = model, profile, "", ""
        else:
            self.next_model = model if model != self.model else ""
            self.next_profile = profile if profile != self.profile else ""

    def render(self) -> Content:
        # What is happening and its figures first, the model and the long rung text last: a
        # narrow terminal cuts the line at its end (at 100 columns the figures after the
        # model's name and the rung were never seen). Parts that do not fit are shortened or
        # left out, the least useful first (``_Part.keep``): the figures and verdicts stay.
        parts: list[_Part] = []
        if self.state == "idle":
            if self.no_session:
                parts.append(_Part(self.no_session))
            else:
                # The footer offers the key too; whether the call can succeed before what
                # it costs.
                parts.append(_Part(f"press {self.compact_key} to compact", keep=1))
                if self.fit:
                    parts.append(_Part(self.fit))
                if self.estimate:
                    parts.append(_Part(f"{self.estimate} (litellm prices)", short=self.estimate))
        else:
            parts += [_Part(self.state), _Part(f"{self.elapsed:.1f}s")]
            if self.state == "running" and self.timeout is not None and not self.waiting:
                left = max(self.timeout - (self.elapsed - self.call_started), 0.0)
                parts.append(_Part(f"{left:.0f}s left of {self.timeout:g}s"))
            attempt = self.attempt
            if attempt is not None and attempt.tokens_sent is not None:
                # A failed call may never have reached the model (a refused connection).
                on_its_way = self.state == "done" or (self.state == "running" and not self.waiting)
                sent = "sent" if on_its_way else "in the request"
                parts.append(_Part(f"{attempt.tokens_sent:,} tokens {sent}"))
            if self.received_chars:
                parts.append(_Part(f"{self.received_chars:,} chars received"))
        if self.note:
            parts.append(_Part(inert(self.note)))
        # Beside a switch to another model or format, the one shown is kept for comparison.
        model = inert(self.model)
        # A long name (a reply file's path) keeps its end, which tells one from another.
        short = f"model …{model[-MODEL_CELLS:]}" if len(model) > MODEL_CELLS + 1 else ""
        parts.append(_Part(f"model {model}", 3 if self.next_model else 2, short))
        parts.append(_Part(f"format {self.profile}", 3 if self.next_profile else 2))
        # After a compaction, the fit is the next one's: beside the model it is about.
        fit = f" ({self.fit})" if self.fit else ""
        switched = [f"model {inert(self.next_model)}{fit}"] if self.next_model else []
        switched += [f"format {self.next_profile}"] if self.next_profile else []
        if switched:
            parts.append(_Part("next compaction: " + ", ".join(switched)))
        if self.state != "idle" and self.attempt is not None:
            percent = self.attempt.removed_percent
            rung = LADDER_PERCENTS.index(percent) + 1 if percent in LADDER_PERCENTS else 0
            parts.append(
                _Part(
                    f"rung {rung}/{len(LADDER_PERCENTS)}: {percent}% tool responses removed "
                    f"({self.attempt.removed_messages} messages)",
                    2 if percent else 1,  # the first rung, nothing removed, says least
                )
            )
        return Content(" · ".join(fitted(parts, self.content_region.width)))


@dataclass
class _Part:
    """A piece of the status line: ``keep`` says how late it is cut down to ``short`` (when
    it has one) or left out when the line is too long: 1 first, 3 is never left out."""

    text: str
    keep: int = 3
    short: str = ""


def fitted(parts: list[_Part], width: int) -> list[str]:
    """The texts of ``parts`` joined by " · " within ``width`` cells where they can be: the
    parts of least ``keep`` first, the later of equals first, each level shortened before
    any of it is left out."""
    parts = list(parts)

    def too_long() -> bool:
        return width > 0 and cell_len(" · ".join(p.text for p in parts)) > width

    for level in (1, 2, 3):
        for part in reversed([p for p in parts if p.keep == level and p.short]):
            if too_long():
                part.text = part.short
        for part in reversed([p for p in parts if p.keep == level and level < 3]):
            if too_long():
                parts.remove(part)
    return [p.text for p in parts]
