"""The context after each message as a bar plot, drawn on Textual's line API: one column (or a
few) per message, or one per bucket of messages on a long session, with the compaction
triggers as horizontal lines, Goose's compactions marked underneath, and a cursor."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.message import Message as TextualMessage
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

from goose_tui.analysis.timeline import HEADROOM_LABEL, Timeline

EIGHTHS = " ▁▂▃▄▅▆▇█"
GUTTER = 9  # y-axis labels: "128.0k ┤" and the trigger names
MAX_COLUMN_WIDTH = 3


def short_tokens(value: float) -> str:
    return f"{value / 1000:.1f}k" if value >= 1000 else f"{value:.0f}"


class TimelinePlot(Widget, can_focus=True):
    DEFAULT_CSS = """
    TimelinePlot { height: 18; background: $surface; }
    TimelinePlot > .timeline--bar { color: $primary; }
    TimelinePlot > .timeline--over { color: $error; }
    TimelinePlot > .timeline--hidden { color: $text-muted; }
    TimelinePlot > .timeline--threshold { color: $warning; }
    TimelinePlot > .timeline--trigger { color: $text-muted; }
    TimelinePlot > .timeline--axis { color: $text-muted; }
    TimelinePlot > .timeline--event { color: $success; text-style: bold; }
    TimelinePlot > .timeline--cursor { background: $accent 40%; }
    TimelinePlot:focus > .timeline--cursor { background: $accent; }
    """
    COMPONENT_CLASSES = {
        "timeline--bar",
        "timeline--over",
        "timeline--hidden",
        "timeline--threshold",
        "timeline--trigger",
        "timeline--axis",
        "timeline--event",
        "timeline--cursor",
    }
    BINDINGS = [
        Binding("left", "move(-1)", "Previous message", id="timeline.previous", show=False),
        Binding("right", "move(1)", "Next message", id="timeline.next", show=False),
        Binding("pageup", "move(-10)", "Back 10", id="timeline.back10", show=False),
        Binding("pagedown", "move(10)", "Forward 10", id="timeline.forward10", show=False),
        Binding("home", "move(-1000000000)", "First", id="timeline.first", show=False),
        Binding("end", "move(1000000000)", "Last", id="timeline.last", show=False),
    ]

    cursor: reactive[int] = reactive(0, init=False)
    zoomed: reactive[bool] = reactive(False)

    class CursorMoved(TextualMessage):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.timeline: Timeline | None = None

    def set_timeline(self, timeline: Timeline) -> None:
        self.timeline = timeline
        self.cursor = 0
        self.refresh()

    # -- geometry --------------------------------------------------------------------------

    @property
    def count(self) -> int:
        return len(self.timeline.points) if self.timeline else 0

    @property
    def plot_rows(self) -> int:
        return max(self.size.height - 1, 1)  # the last row holds the event markers

    @property
    def plot_width(self) -> int:
        return max(self.size.width - GUTTER, 1)

    @property
    def top(self) -> float:
        """The value of the plot's top edge: the whole window, or the peak when zoomed."""
        t = self.timeline
        if t is None:
            return 1.0
        top = t.peak if self.zoomed else max(t.context_limit, t.peak)
        return float(max(top, 1))

    def column_span(self, index: int) -> tuple[int, int]:
        """The plot columns (start, end) that message ``index`` is drawn in."""
        n, width = self.count, self.plot_width
        if n == 0:
            return 0, 0
        if n <= width:
            step = max(1, min(MAX_COLUMN_WIDTH, width // n))
            return index * step, index * step + step
        column = index * width // n  # the bucket mapping the CLI's sparkline uses
        return column, column + 1

    def _columns(self) -> list[tuple[float, bool, bool, set[int]]]:
        """Per plot column: (value, over the threshold, agent saw it, message indexes)."""
        t = self.timeline
        assert t is not None
        columns: dict[int, tuple[float, bool, bool, set[int]]] = {}
        for p in t.points:
            start, end = self.column_span(p.index)
            for c in range(start, end):
                value, over, seen, members = columns.get(c, (0.0, False, False, set()))
                members.add(p.index)
                columns[c] = (
                    max(value, p.cumulative),
                    over or p.fraction > t.threshold,
                    seen or p.in_context,
                    members,
                )
        return [columns.get(c, (0.0, False, True, set())) for c in range(self.plot_width)]

    def _trigger_rows(self) -> dict[int, tuple[str, bool]]:
        """Plot row -> (label, is the chosen threshold) for each trigger inside the plot."""
        t = self.timeline
        assert t is not None
        rows: dict[int, tuple[str, bool]] = {}
        for trigger in t.triggers:
            level = trigger.tokens / self.top * self.plot_rows
            if level > self.plot_rows:
                continue
            row = self.plot_rows - 1 - min(self.plot_rows - 1, int(level))
            label = trigger.label.replace("threshold ", "").replace(HEADROOM_LABEL, "w-13k")
            rows.setdefault(row, (label, trigger is t.chosen))
        return rows

    # -- drawing ---------------------------------------------------------------------------

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"timeline--{name}", partial=True)

    def render_line(self, y: int) -> Strip:
        base = self.rich_style
        width = self.size.width
        if self.timeline is None or not self.count:
            return Strip.blank(width, base)
        cursor_start, cursor_end = self.column_span(self.cursor)
        cursor = self._style("cursor")
        cells: list[tuple[str, Style]] = []
        columns = self._columns()
        if y >= self.plot_rows:
            # The summaries, as the CLI marks them: not Goose's continuation messages.
            events = {e.index for e in self.timeline.events if e.kind == "summary"}
            trigger = self.timeline.chosen
            first = trigger.first_index if trigger is not None else None
            cells += [(c, self._style("axis")) for c in f"{'':>{GUTTER - 1}}└"]
            for c, (_, _, _, members) in enumerate(columns):
                mark = "S" if members & events else ("^" if first in members else "─")
                style = self._style("event" if mark != "─" else "axis")
                cells.append((mark, style + cursor if cursor_start <= c < cursor_end else style))
        else:
            triggers = self._trigger_rows()
            label, chosen = triggers.get(y, ("", False))
            line_style = self._style("threshold" if chosen else "trigger")
            if y == 0:
                gutter = f"{short_tokens(self.top):>{GUTTER - 2}} ┤"
            elif label:
                gutter = f"{label:>{GUTTER - 2}} ┤"
            else:
                gutter = f"{'':>{GUTTER - 2}} │"
            cells += [(c, line_style if label else self._style("axis")) for c in gutter]
            level = self.plot_rows - 1 - y
            for c, (value, over, seen, _) in enumerate(columns):
                eighths = value / self.top * self.plot_rows * 8
                fill = int(min(max(round(eighths - level * 8), 0), 8))
                if fill:
                    kind = "over" if over else ("bar" if seen else "hidden")
                    char, style = EIGHTHS[fill], self._style(kind)
                elif label:
                    char, style = "╌", line_style
                else:
                    char, style = " ", Style()
                if cursor_start <= c < cursor_end:
                    style += cursor
                cells.append((char, style))
        segments = [Segment(char, base + style) for char, style in cells]
        return Strip(segments).simplify().crop_extend(0, width, base)

    # -- moving ----------------------------------------------------------------------------

    def watch_cursor(self, index: int) -> None:
        self.refresh()
        self.post_message(self.CursorMoved(index))

    def watch_zoomed(self) -> None:
        self.refresh()

    def action_move(self, delta: int) -> None:
        if self.count:
            self.cursor = min(max(self.cursor + delta, 0), self.count - 1)

    def on_click(self, event: object) -> None:
        x = getattr(event, "x", 0) - GUTTER
        if self.count and x >= 0:
            for index in range(self.count):
                start, end = self.column_span(index)
                if start <= x < end:
                    self.cursor = index
                    return
