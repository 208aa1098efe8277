"""How the context grew over a session, message by message, where compaction would trigger,
and the compactions the session already went through.

A compacted Goose session keeps the replaced messages (now agent-invisible, still shown to the
user), then a summary message (agent-visible, not user-visible), usually a continuation message
after it. So the context the agent saw at message i is rebuilt by walking forward: a message
joins the context when it appears (an agent-invisible one too, if a later summary explains
why it is hidden now), and a summary message drops every agent-invisible message before it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from goose_tui.session.models import Message, Session, content_type
from goose_tui.terminal import shorten
from goose_tui.tokens import (
    DEFAULT_THRESHOLD,
    REPLY_PRIMER,
    TokenCounter,
    context_window,
    resolve_threshold,
)

HEADROOM = 13_000  # the "window − 13k" trigger: room left for a reply and tool schemas
HEADROOM_LABEL = "window - 13k"
EventKind = Literal["summary", "continuation", "summarization_requested", "context_exceeded"]

_SUMMARY_HEADING = re.compile(r"^\s*#{1,3}\s*(?:conversation\s+)?summary\b", re.I)
# Goose's continuation note tells the agent that the message before it was a summary.
_CONTINUATION_HINT = re.compile(r"\bsummar", re.I)
_SPARK = "▁▂▃▄▅▆▇█"


class TimelinePoint(BaseModel):
    index: int
    role: str
    tokens: int  # what this message adds: its estimate plus the reply primer, as Goose sums
    cumulative: int  # the context the agent had after this message (TokenCounter.total's sum)
    fraction: float  # cumulative / context window
    in_context: bool  # counted at all (False for messages the agent never saw)


class Trigger(BaseModel):
    label: str  # "threshold 0.8", "0.9", "window - 13k"
    fraction: float
    tokens: float  # fraction × window
    first_index: int | None  # first message whose cumulative fraction is > fraction
    crossings: list[int] = Field(default_factory=list)  # every upward crossing


class CompactionEvent(BaseModel):
    index: int
    kind: EventKind
    tokens_before: int  # context just before this message
    tokens_after: int  # context just after it
    preview: str = ""


class Timeline(BaseModel):
    points: list[TimelinePoint]
    triggers: list[Trigger]
    events: list[CompactionEvent]
    context_limit: int
    limit_source: str
    threshold: float
    peak: int
    # What Goose recorded for the session's last call, which the gauge and `usage` show when
    # there is one (docs/pipeline.md §8); the points here are counted from the messages.
    recorded: int | None = None

    @property
    def chosen(self) -> Trigger | None:
        """The chosen threshold's trigger (the first), or None when that threshold turns
        auto compaction off."""
        first = self.triggers[0] if self.triggers else None
        return first if first is not None and first.label.startswith("threshold ") else None

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def message_texts(message: Message) -> list[str]:
    """The message's text items, in order (tool calls, results and the rest left out)."""
    return [
        item["text"]
        for item in message.content
        if content_type(item) == "text" and isinstance(item.get("text"), str)
    ]


def is_summary_message(message: Message) -> bool:
    """Goose's summary: a user message with text the user does not see (the agent does, or
    did until a later compaction hid it too), or any message whose text opens with a summary
    heading (older sessions, other writers). A turn-context event is hidden from the user
    too, and is no summary."""
    texts = message_texts(message)
    if any(_SUMMARY_HEADING.match(t) for t in texts):
        return True
    metadata = message.metadata
    hidden = not metadata.user_visible and not metadata.turn_context
    return message.role == "user" and hidden and bool(texts)


def _legacy_marker(message: Message) -> EventKind | None:
    kinds = {content_type(item) for item in message.content}
    if "summarizationRequested" in kinds:
        return "summarization_requested"
    if "contextLengthExceeded" in kinds:
        return "context_exceeded"
    return None


def _trigger_fractions(threshold: float, limit: int) -> list[tuple[str, float]]:
    # A threshold outside (0, 1) turns auto compaction off (docs/pipeline.md §8): it triggers
    # nothing.
    wanted = [(f"threshold {threshold:g}", threshold)] if 0 < threshold < 1 else []
    for label, value in (("0.8", 0.8), ("0.9", 0.9)):
        if abs(value - threshold) > 1e-9:
            wanted.append((label, value))
    if limit > HEADROOM:
        wanted.append((HEADROOM_LABEL, (limit - HEADROOM) / limit))
    return wanted


def build_timeline(
    messages: Sequence[Message],
    context_limit: int,
    *,
    limit_source: str = "cli",
    threshold: float = DEFAULT_THRESHOLD,
    counter: TokenCounter | None = None,
) -> Timeline:
    counter = counter or TokenCounter()
    summary_at = [i for i, m in enumerate(messages) if is_summary_message(m)]
    last_summary = summary_at[-1] if summary_at else -1
    live: dict[int, int] = {}  # index -> tokens, the context right now
    points: list[TimelinePoint] = []
    events: list[CompactionEvent] = []
    previous_summary: int | None = None

    def total() -> int:
        return sum(live.values())

    for i, message in enumerate(messages):
        tokens = counter.count(message) + REPLY_PRIMER
        before = total()
        visible = message.metadata.agent_visible
        kind: EventKind | None = None
        if i in summary_at:
            kind = "summary"
            # The summary replaces whatever the agent no longer sees.
            for j in [j for j in live if not messages[j].metadata.agent_visible]:
                del live[j]
            live[i] = tokens
            previous_summary = i
        elif (
            previous_summary == i - 1
            and not message.metadata.user_visible
            and any(_CONTINUATION_HINT.search(t) for t in message_texts(message))
        ):
            kind = "continuation"
            live[i] = tokens
        elif visible or i < last_summary:
            live[i] = tokens
        kind = kind or _legacy_marker(message)
        in_context = i in live
        cumulative = total()
        if kind is not None:
            events.append(
                CompactionEvent(
                    index=i,
                    kind=kind,
                    tokens_before=before,
                    tokens_after=cumulative,
                    preview=shorten(" ".join(message_texts(message)), 70),
                )
            )
        points.append(
            TimelinePoint(
                index=i,
                role=message.role,
                tokens=tokens,
                cumulative=cumulative,
                fraction=cumulative / context_limit if context_limit else 0.0,
                in_context=in_context,
            )
        )
    triggers = []
    for label, fraction in _trigger_fractions(threshold, context_limit):
        crossings = []
        above = False
        for p in points:
            # Strictly above, as the threshold rule (docs/pipeline.md §8).
            now_above = p.fraction > fraction
            if now_above and not above:
                crossings.append(p.index)
            above = now_above
        triggers.append(
            Trigger(
                label=label,
                fraction=fraction,
                tokens=fraction * context_limit,
                first_index=crossings[0] if crossings else None,
                crossings=crossings,
            )
        )
    return Timeline(
        points=points,
        triggers=triggers,
        events=events,
        context_limit=context_limit,
        limit_source=limit_source,
        threshold=threshold,
        peak=max((p.cumulative for p in points), default=0),
    )


def session_timeline(
    session: Session,
    *,
    threshold: float | None = None,
    context_limit: int | None = None,
    counter: TokenCounter | None = None,
) -> Timeline:
    """The session against its own window (``context_window``), as Goose measures it."""
    limit, source = context_window(session, context_limit=context_limit)
    timeline = build_timeline(
        session.messages,
        limit,
        limit_source=source,
        threshold=resolve_threshold(threshold),
        counter=counter,
    )
    timeline.recorded = session.usage.total_tokens
    return timeline


def sparkline(values: Sequence[float], width: int | None = None, top: float | None = None) -> str:
    """One block character per value (or per bucket of values, each bucket showing its
    maximum, when there are more values than ``width``), scaled to ``top`` (default: the
    largest value)."""
    if not values:
        return ""
    if width is not None and width > 0 and len(values) > width:
        # Value p goes to column p * width // n, the same mapping marker_line uses.
        buckets: list[list[float]] = [[] for _ in range(width)]
        for position, value in enumerate(values):
            buckets[position * width // len(values)].append(value)
        values = [max(bucket) for bucket in buckets]
    top = top if top is not None else max(values)
    if top <= 0:
        return _SPARK[0] * len(values)
    levels = len(_SPARK)
    # Level k covers (k/8, (k+1)/8] of the top, so the top value always gets the full block.
    return "".join(_SPARK[min(levels - 1, max(0, math.ceil(v / top * levels) - 1))] for v in values)


def marker_line(marks: dict[int, str], count: int, length: int) -> str:
    """A line to print under a sparkline of ``count`` values drawn in ``length`` columns:
    ``marks`` maps a value's position to the character shown under it (first one wins)."""
    cells = [" "] * length
    for position, char in sorted(marks.items()):
        column = min(length - 1, position * length // count) if count > length else position
        if 0 <= column < length and cells[column] == " ":
            cells[column] = char
    return "".join(cells).rstrip()
