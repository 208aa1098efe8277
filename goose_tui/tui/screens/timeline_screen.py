"""The timeline: how the context grew message by message (what it shows:
``TimelineScreen.HELP``)."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.screen import Screen
from textual.widgets import DataTable, Static

from goose_tui.analysis.timeline import HEADROOM, HEADROOM_LABEL, Timeline, session_timeline
from goose_tui.inert import inert
from goose_tui.inspector import Inspector
from goose_tui.session.models import Message, Session, content_type
from goose_tui.tokens import limit_source_text
from goose_tui.tui.messages import AuditCompaction, ShowMessage
from goose_tui.tui.screens.analysis import AnalysisScreen, open_session, right
from goose_tui.tui.widgets.goose_footer import GooseFooter
from goose_tui.tui.widgets.timeline_plot import TimelinePlot

PREVIEW = 110


def message_preview(message: Message, width: int = PREVIEW) -> str:
    """The message's text in one line, or what its first item is (a tool call, a result)."""
    texts = [str(i.get("text", "")) for i in message.content if content_type(i) == "text"]
    text = " ".join(" ".join(texts).split())
    if not text:
        kinds = [content_type(i) or "untyped" for i in message.content]
        text = "[" + ", ".join(kinds) + "]" if kinds else "<empty message>"
    return text if len(text) <= width else text[: width - 1] + "…"


class TimelineScreen(AnalysisScreen):
    HELP = (  # what `?` says this screen shows (screens/help.py)
        "The timeline: how the context grew message by message, where compaction would "
        "trigger (the chosen threshold, 0.8, 0.9, the window less 13k) and the compactions "
        "already in the session.\n\n"
        "left and right move along the plot; the line under it shows the message at the "
        "cursor; enter goes back to the conversation with that message selected. Selecting a "
        "trigger or a compaction in the tables below puts the cursor on its message."
    )

    DEFAULT_CSS = """
    TimelineScreen #timeline-summary { height: auto; padding: 0 1; }
    TimelineScreen #timeline-plot { height: 1fr; min-height: 8; margin: 1 0 0 0; }
    TimelineScreen #timeline-point { height: 2; padding: 0 1; background: $boost; }
    TimelineScreen #timeline-tables { height: auto; max-height: 10; margin: 1 0 0 0; }
    TimelineScreen #timeline-triggers { width: 62; height: auto; max-height: 10; }
    TimelineScreen #timeline-events { width: 1fr; height: auto; max-height: 10; }
    """
    BINDINGS = [
        Binding("escape", "back", "Back", id="timeline.back"),
        Binding("enter", "open_message", "Go to message", id="timeline.open"),
        Binding("z", "zoom", "Zoom to peak", id="timeline.zoom"),
        Binding("a", "audit", "Audit compaction", id="timeline.audit"),
    ]

    def __init__(
        self,
        session: Session,
        *,
        threshold: float | None = None,
        context_limit: int | None = None,
    ) -> None:
        super().__init__()
        self.session = session
        self.threshold, self.context_limit = threshold, context_limit
        self.timeline: Timeline | None = None
        self._summary = Static(Content("counting tokens…"), id="timeline-summary")
        self._plot = TimelinePlot(id="timeline-plot")
        self._point = Static(Content(""), id="timeline-point")
        self._triggers = DataTable[object](id="timeline-triggers", cursor_type="row")
        self._events = DataTable[object](id="timeline-events", cursor_type="row")

    def compose(self) -> ComposeResult:
        title = f"timeline · {self.session.title} · {len(self.session.messages):,} messages"
        yield self.title_line(title, "timeline-title")
        yield self._summary
        yield self._plot
        yield self._point
        with Horizontal(id="timeline-tables"):
            yield self._triggers
            yield self._events
        yield GooseFooter()

    def on_mount(self) -> None:
        triggers = self._triggers
        triggers.add_columns("trigger", "fraction", "tokens", "first over", "crossings")
        triggers.border_title = "where compaction would trigger"
        events = self._events
        events.add_columns("message", "kind", "before", "after", "text")
        events.border_title = "compactions in the session"
        self._plot.focus()
        self.build()

    @work(thread=True, exclusive=True, group="timeline", exit_on_error=False)
    def build(self) -> None:
        timeline = session_timeline(
            self.session,
            threshold=self.threshold,
            context_limit=self.context_limit,
        )
        self.app.call_from_thread(self._show, timeline)

    def _show(self, t: Timeline) -> None:
        self.timeline = t
        share = t.peak / t.context_limit if t.context_limit else 0.0
        # A compaction's summary, not the continuation message Goose puts after it.
        compactions = sum(e.kind != "continuation" for e in t.events)
        summary = (
            f"window {t.context_limit:,} tokens ({limit_source_text(t.limit_source)}) · threshold "
            f"{t.threshold:g} · peak {t.peak:,} tokens ({share:.1%} of the window) · "
            f"{compactions} compaction{'' if compactions == 1 else 's'}"
        )
        if t.recorded is not None:  # the gauge's number, which is not counted here
            summary += f" · Goose recorded {t.recorded:,} for the last call (the gauge's)"
        if any(trigger.label == HEADROOM_LABEL for trigger in t.triggers):  # the plot's w-13k
            summary += (
                f"\nw-13k on the plot: the window less {HEADROOM:,} tokens, room for the reply"
            )
        self._summary.update(Content(inert(summary)))
        triggers = self._triggers
        for trigger in t.triggers:
            first = "never" if trigger.first_index is None else f"#{trigger.first_index + 1}"
            triggers.add_row(
                trigger.label,
                right(f"{trigger.fraction:.3f}"),
                right(f"{trigger.tokens:,.0f}"),
                first,
                right(str(len(trigger.crossings))),
            )
        events = self._events
        for e in t.events:
            events.add_row(
                right(f"#{e.index + 1}"),
                e.kind.replace("_", " "),
                right(f"{e.tokens_before:,}"),
                right(f"{e.tokens_after:,}"),
                Text(inert(e.preview)),
            )
        if not t.events:
            events.add_row("", Text("none: this session was never compacted"), "", "", "")
        self._plot.set_timeline(t)
        self._show_point(0)

    @on(TimelinePlot.CursorMoved)
    def _cursor_moved(self, event: TimelinePlot.CursorMoved) -> None:
        self._show_point(event.index)

    def _show_point(self, index: int) -> None:
        t = self.timeline
        if t is None or not 0 <= index < len(t.points):
            return
        p = t.points[index]
        seen = "" if p.in_context else " · not in the agent's context"
        crossed = [tr.label for tr in t.triggers if index in tr.crossings]
        over = f" · crosses {', '.join(crossed)}" if crossed else ""
        head = (
            f"#{index + 1} {inert(p.role)} · +{p.tokens:,} tokens · context {p.cumulative:,} "
            f"({p.fraction:.1%}){seen}{over}"
        )
        text = head + "\n" + inert(message_preview(self.session.messages[index]))
        self._point.update(Content(text))

    @on(DataTable.RowSelected, "#timeline-triggers")
    def _trigger_selected(self, event: DataTable.RowSelected) -> None:
        if self.timeline is None:
            return
        first = self.timeline.triggers[event.cursor_row].first_index
        if first is None:
            self.notify("the context never goes over this trigger")
            return
        self._focus_plot_at(first)

    @on(DataTable.RowSelected, "#timeline-events")
    def _event_selected(self, event: DataTable.RowSelected) -> None:
        if self.timeline is not None and event.cursor_row < len(self.timeline.events):
            self._focus_plot_at(self.timeline.events[event.cursor_row].index)

    def _focus_plot_at(self, index: int) -> None:
        self._plot.cursor = index
        self._plot.focus()

    def action_open_message(self) -> None:
        if self.timeline is not None:
            self.post_message(ShowMessage(self._plot.cursor))

    def action_audit(self) -> None:
        """The compaction Goose made at or before the cursor, loaded in the inspector: its
        history, and Goose's summary as the current one (c then compacts the same history
        with your template and model, v compares the two)."""
        from goose_tui.analysis.audit import past_compactions

        cursor = self._plot.cursor
        found = [c for c in past_compactions(self.session.messages) if c.summary_index <= cursor]
        if not found:
            self.notify(f"no compaction by Goose at or before #{cursor + 1}", markup=False)
            return
        self.post_message(AuditCompaction(found[-1].number))
        self.dismiss(None)

    def action_zoom(self) -> None:
        plot = self._plot
        plot.zoomed = not plot.zoomed
        binding_text = "peak" if plot.zoomed else "window"
        self.notify(f"plot scaled to the {binding_text}")


def open_timeline(screen: Screen[None], inspector: Inspector) -> None:
    if (session := open_session(screen, inspector)) is None:
        return
    screen.app.push_screen(
        TimelineScreen(
            session,
            threshold=inspector.threshold,
            context_limit=inspector.context_limit,
        )
    )
