"""The context gauge: how full the model's window is, where the threshold sits, and what the
window would hold after the compaction just run."""

from __future__ import annotations

from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from goose_tui.inert import inert
from goose_tui.tokens import ContextUsage, limit_source_text, not_smaller

# Below this share of the threshold the bar is calm; between it and the threshold it warns.
NEAR_THRESHOLD = 0.9


def _bar(fraction: float, threshold: float, width: int) -> tuple[str, int]:
    """A bar of ``width`` cells filled to ``fraction``, with ``│`` at the threshold."""
    filled = min(round(fraction * width), width)
    cells = ["█"] * filled + ["░"] * (width - filled)
    marker = min(max(round(threshold * width), 0), width - 1) if 0 < threshold < 1 else -1
    if marker >= 0:
        cells[marker] = "┃"
    return "".join(cells), filled


class ContextGauge(Widget):
    DEFAULT_CSS = """
    ContextGauge {
        height: 2; padding: 0 1; background: $panel;
        text-wrap: nowrap; text-overflow: ellipsis;
    }
    ContextGauge.-ok { color: $success; }
    ContextGauge.-near { color: $warning; }
    ContextGauge.-over { color: $error; }
    """

    usage: reactive[ContextUsage | None] = reactive(None)
    # Tokens the window would hold with the summary in place of the history.
    projected: reactive[int | None] = reactive(None)
    # Tokens of the history the summary replaces (same estimate), to flag a summary that is
    # not smaller than it.
    replaced: reactive[int | None] = reactive(None)
    # (messages counted, messages) while a count runs; None when no count is running.
    progress: reactive[tuple[int, int] | None] = reactive(None)
    # What the gauge says before it has a usage.
    waiting: reactive[str] = reactive("counting tokens…")

    class Progress(Message):
        def __init__(self, counted: int, total: int) -> None:
            super().__init__()
            self.counted, self.total = counted, total

    class Clicked(Message):
        """The user asked for the gauge's detail (the context broken down)."""

    def on_click(self) -> None:
        self.post_message(self.Clicked())

    def report_progress(self, counted: int, total: int) -> None:
        """Thread-safe (post_message is): the counting worker calls this as it goes."""
        self.post_message(self.Progress(counted, total))

    def on_context_gauge_progress(self, event: Progress) -> None:
        event.stop()
        self.progress = None if event.counted >= event.total else (event.counted, event.total)

    def watch_usage(self, usage: ContextUsage | None) -> None:
        self.remove_class("-ok", "-near", "-over")
        if usage is None:
            return
        if usage.compaction_due or usage.fraction > 1:
            self.add_class("-over")
        elif usage.auto_compact_enabled and usage.fraction > usage.threshold * NEAR_THRESHOLD:
            self.add_class("-near")
        else:
            self.add_class("-ok")

    def render(self) -> Content:
        usage = self.usage
        counting = ""
        if self.progress is not None:
            counted, total = self.progress
            counting = f"counting tokens… {counted:,} / {total:,} messages ({counted / total:.0%})"
        if usage is None:
            return Content(f"context: {counting or self.waiting}")
        width = max(self.size.width - 2, 10)
        bar_width = max(min(width - 60, 60), 10)
        bar, _ = _bar(usage.fraction, usage.threshold, bar_width)
        state = "COMPACTION DUE" if usage.compaction_due else "under threshold"
        if not usage.auto_compact_enabled:
            state = "auto-compaction off"
        first = Content.assemble(
            ("context ", "bold"),
            bar,
            f" {usage.used:,} / {usage.limit:,} tokens  {usage.fraction:.1%}  ",
            (state, "bold reverse" if usage.compaction_due else "bold"),
        )
        details = f"used: {usage.used_source} · limit {limit_source_text(usage.limit_source)}"
        if usage.auto_compact_enabled:
            details += f" · threshold {usage.threshold:.0%} (┃)"
        else:  # no marker is drawn: 0, 1 or any value outside (0, 1) turns it off
            details += f" · threshold {usage.threshold:g} (off)"
        if self.projected is not None:
            after = self.projected / usage.limit if usage.limit else 0.0
            details += f" · after compaction: {self.projected:,} tokens ({after:.1%})"
            if self.replaced is not None and not_smaller(self.replaced, self.projected):
                details += f" · NOT SMALLER than the {self.replaced:,} tokens it replaces"
        if usage.model:
            # The session's model, whose window this is (the summarizer's is on the status line).
            details += f" · session model {inert(usage.model)}"
        if counting:
            details += f" · re{counting}"
        return Content.assemble(first, "\n", Content(details))
