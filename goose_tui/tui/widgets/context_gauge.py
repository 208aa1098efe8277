"""The context gauge: how full the model's window is, where the threshold sits, and what the
window would hold after the compaction just run. It counts the session's tokens itself, off
the event loop."""

from __future__ import annotations

from textual import work
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.worker import get_current_worker

from goose_tui.compaction.summarize import summary_message
from goose_tui.inert import inert
from goose_tui.inspector import Inspector
from goose_tui.session.models import Session
from goose_tui.tokens import (
    REPLY_PRIMER,
    ContextUsage,
    CountStopped,
    TokenCounter,
    limit_source_text,
    not_smaller,
)
from goose_tui.tui.messages import WorkerErrorsUp

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


class ContextGauge(WorkerErrorsUp, Widget):
    """``count`` the inspector's session; ``project`` a summary in place of its history."""

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

    class Counted(Message):
        """The session is counted: each message's tokens as the conversation list shows
        them, and all it holds in context."""

        def __init__(self, tokens: list[int], in_context: int) -> None:
            super().__init__()
            self.tokens, self.in_context = tokens, in_context

    class Clicked(Message):
        """The user asked for the gauge's detail (the context broken down)."""

    def __init__(self, inspector: Inspector, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.inspector = inspector
        # One cache for the count, the rows and the projection: a recount after a model
        # switch re-encodes nothing.
        self.token_counter = TokenCounter()
        # The history's estimated tokens, as last counted: (session, tokens).
        self._history: tuple[Session, int] | None = None

    def on_click(self) -> None:
        self.post_message(self.Clicked())

    def on_context_gauge_progress(self, event: Progress) -> None:
        event.stop()
        self.progress = None if event.counted >= event.total else (event.counted, event.total)

    def reset(self) -> None:
        """Another session: nothing counted or projected yet."""
        self.workers.cancel_node(self)
        self.usage = self.projected = self.replaced = None

    @work(thread=True, exclusive=True, group="tokens", exit_on_error=False)
    def count(self) -> None:
        from goose_tui.analysis.breakdown import recorded_tokens
        from goose_tui.tokens import context_usage

        inspector = self.inspector
        session = inspector.session
        assert session is not None
        counter, worker = self.token_counter, get_current_worker()
        limit, threshold = inspector.context_limit, inspector.threshold
        if session.usage.total_tokens is not None:
            # A count Goose reported needs no tokenizer: show it before the estimates.
            reported = context_usage(session, context_limit=limit, threshold=threshold)
            self.app.call_from_thread(setattr, self, "usage", reported)
        total = len(session.messages)
        step = max(total // 200, 50)  # ~200 progress updates however long the session
        counts: list[int] = []
        for number in range(0, total, step):
            if worker.is_cancelled:  # a newer count (model switch) replaced this one
                return
            self.post_message(self.Progress(number, total))
            counts.extend(counter.count_all(session.messages[number : number + step]))
        self.post_message(self.Progress(total, total))
        # Summed from the counts just made, for the gauge and for the projection after a
        # compaction, which then sums nothing again.
        history = counter.total(session.messages, counts)
        usage = context_usage(session, context_limit=limit, threshold=threshold, estimated=history)
        if worker.is_cancelled:  # another session since
            return
        self._history = (session, history)
        # The list shows each message as the breakdown (u) and the timeline do.
        shown = [count + REPLY_PRIMER for count in counts]
        in_context = history + sum(filter(None, recorded_tokens(session).values()))
        self.app.call_from_thread(setattr, self, "usage", usage)
        self.post_message(self.Counted(shown, in_context))

    def project(self, summary: str | None) -> None:
        """What the window would hold with ``summary`` in place of the history (None: no
        summary would replace it)."""
        if summary is not None:
            self._project(summary)
            return
        self.workers.cancel_group(self, "projection")
        self.projected = self.replaced = None

    @work(thread=True, exclusive=True, group="projection", exit_on_error=False)
    def _project(self, summary: str) -> None:
        """Off the event loop: a big session's history is many cached counts to sum."""
        session = self.inspector.session
        assert session is not None
        worker = get_current_worker()
        try:
            # A template can write tens of MB: counted a part at a time, so a newer summary
            # or quitting stops it (a thread's work is waited for before the app exits).
            projected = self.token_counter.total(
                [summary_message(summary)], stop=lambda: worker.is_cancelled
            )
        except CountStopped:
            return
        known = self._history
        if known is not None and known[0] is session:
            replaced = known[1]
        else:  # not counted yet (a compaction started before the count ended)
            replaced = self.token_counter.total(session.messages)
        self.app.call_from_thread(self._projected, summary, projected, replaced)

    def _projected(self, summary: str, projected: int, replaced: int) -> None:
        if self.inspector.summary.text is not summary:  # another summary or session since
            return
        was_flagged = self.projected is not None and not_smaller(self.replaced or 0, self.projected)
        self.projected, self.replaced = projected, replaced
        if not_smaller(replaced, projected) and not was_flagged:  # said once, not per edit
            self.notify(
                f"the summary ({projected:,} tokens) is not smaller than the history it "
                f"replaces ({replaced:,} tokens): compacting frees no context",
                title="summary not smaller",
                severity="warning",
                timeout=10,
            )

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
        details = ""
        if self.projected is not None:
            # First: what a compaction leaves is the news, and a narrow terminal cuts the end.
            after = self.projected / usage.limit if usage.limit else 0.0
            details = f"after compaction: {self.projected:,} tokens ({after:.1%}) · "
            if self.replaced is not None and not_smaller(self.replaced, self.projected):
                details += f"NOT SMALLER than the {self.replaced:,} tokens it replaces · "
        details += f"used: {usage.used_source} · limit {limit_source_text(usage.limit_source)}"
        if usage.auto_compact_enabled:
            details += f" · threshold {usage.threshold:.0%} (┃)"
        else:  # no marker is drawn: 0, 1 or any value outside (0, 1) turns it off
            details += f" · threshold {usage.threshold:g} (off)"
        if usage.model:
            # The session's model, whose window this is (the summarizer's is on the status line).
            details += f" · session model {inert(usage.model)}"
        if counting:
            details += f" · re{counting}"
        return Content.assemble(first, "\n", Content(details))
