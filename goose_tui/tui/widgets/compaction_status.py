"""One line about the compaction in progress or just finished: model, ladder rung, elapsed
time, tokens sent and received."""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from goose_tui.compaction.summarize import LADDER_PERCENTS, Attempt
from goose_tui.inert import inert


class CompactionStatus(Widget):
    DEFAULT_CSS = """
    CompactionStatus { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    CompactionStatus.-running { color: $warning; }
    CompactionStatus.-failed { color: $error; }
    CompactionStatus.-done { color: $success; }
    """

    model: reactive[str] = reactive("offline")
    profile: reactive[str] = reactive("goose-sdk-wheel")  # profiles.py; p switches
    state: reactive[str] = reactive("idle")  # idle, running, done, failed, cancelled
    attempt: reactive[Attempt | None] = reactive(None)
    elapsed: reactive[float] = reactive(0.0)
    received_chars: reactive[int] = reactive(0)
    note: reactive[str] = reactive("")

    def watch_state(self, state: str) -> None:
        self.remove_class("-running", "-failed", "-done")
        if state in ("running", "failed", "done"):
            self.add_class(f"-{state}")

    def render(self) -> Content:
        parts = [f"model {inert(self.model)}", f"format {self.profile}"]
        if self.state == "idle":
            parts.append("press c to compact")
        else:
            parts.append(self.state)
            if self.attempt is not None:
                rung = (
                    LADDER_PERCENTS.index(self.attempt.removed_percent) + 1
                    if (self.attempt.removed_percent in LADDER_PERCENTS)
                    else 0
                )
                parts.append(
                    f"rung {rung}/{len(LADDER_PERCENTS)}: {self.attempt.removed_percent}% tool "
                    f"responses removed ({self.attempt.removed_messages} messages)"
                )
                if self.attempt.tokens_sent is not None:
                    parts.append(f"{self.attempt.tokens_sent:,} tokens sent")
            if self.received_chars:
                parts.append(f"{self.received_chars:,} chars received")
            parts.append(f"{self.elapsed:.1f}s")
        if self.note:
            parts.append(inert(self.note))
        return Content(" · ".join(parts))
