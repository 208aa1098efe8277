"""The Probes tab of the "what was lost" screen: can the agent still act from the summary?
Questions it must answer to go on (the open problem and next step, the decisions and their
reasons, the files changed, the facts the user gave), answered from the summary alone.

Per probe kind on top: its score and how many probes were found, partial and missing; every
probe below with its expected answer and what the summary answered; enter on a probe goes
to its source message. With the offline model the probes come from the session's
structure; with a real model it writes, answers and judges them (each call's tokens and
cost are summed in the hint line). Nothing runs until the tab is first shown: a model run
costs money.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import DataTable, Static
from textual.worker import Worker, WorkerState

from goose_tui.analysis.probes import (
    PROBE_KINDS,
    PROBE_LABELS,
    SCORE_NAME,
    ProbeReport,
)
from goose_tui.analysis.retention import format_score
from goose_tui.inert import inert
from goose_tui.llm.spec import ModelSpec
from goose_tui.session.models import Message
from goose_tui.terminal import shorten
from goose_tui.tui.messages import ShowMessage, WorkerErrorsUp
from goose_tui.tui.widgets.row_detail import RowDetail

CELL = 40


BAR_WIDTH = 20


def score_bar(score: float | None, width: int = BAR_WIDTH) -> str:
    """A score as a bar of ``width`` cells (the retention, probes and context tables)."""
    if score is None:
        return ""
    filled = round(score * width)
    return "█" * filled + "·" * (width - filled)


def _score_style(score: float | None) -> str:
    if score is None:
        return "dim"
    return "green" if score >= 1 else ("yellow" if score > 0 else "bold red")


class ProbesPanel(WorkerErrorsUp, Vertical):
    DEFAULT_CSS = """
    ProbesPanel { height: 1fr; }
    ProbesPanel #probe-hint { height: auto; padding: 0 1; color: $text-muted; }
    ProbesPanel #probe-kinds { height: auto; max-height: 7; margin: 1 0 0 0; }
    ProbesPanel #probe-items { height: 1fr; }
    """

    def __init__(
        self,
        messages: Sequence[Message],
        summary: str,
        model: str = "offline",
        api_base: str | None = None,
        working_dir: str | None = None,
        *,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.messages = messages
        self.summary = summary
        self.model = model
        self.api_base = api_base
        self.working_dir = working_dir
        self.report: ProbeReport | None = None
        self.started = False

    def compose(self) -> ComposeResult:
        yield Static(Content("probes run when this tab is shown"), id="probe-hint")
        yield DataTable(id="probe-kinds", cursor_type="none", zebra_stripes=True)
        yield DataTable(id="probe-items", cursor_type="row", zebra_stripes=True)
        yield RowDetail(id="probe-detail")

    def on_mount(self) -> None:
        kinds = self.query_one("#probe-kinds", DataTable)
        # The columns whose header is narrower than their rows get their rows' width at once:
        # sized from the rows, the header can be drawn before them and stay narrow.
        kinds.add_column("kind", width=max(map(len, [*PROBE_LABELS.values(), SCORE_NAME])))
        kinds.add_columns("probes", "score", "found", "partial", "missing")
        kinds.add_column("", width=BAR_WIDTH)
        kinds.can_focus = False  # nothing to select there; focus goes to the probes
        self.query_one("#probe-items", DataTable).add_columns(
            "score", "message", "kind", "question", "expected", "answered"
        )

    def start(self) -> None:
        """Run the probes once (the tab calls this whenever it is shown)."""
        self.focus_probes()
        if self.started:
            return
        self.started = True
        from goose_tui.analysis.probe_model import uses_a_model

        real = uses_a_model(ModelSpec.parse(self.model))
        who = f"{self.model} writes, answers and judges" if real else "offline"
        self.query_one("#probe-hint", Static).update(Content(inert(f"probing ({who})…")))
        self.run_probes()

    @work(exclusive=True, group="probes", exit_on_error=False)
    async def run_probes(self) -> None:
        from goose_tui.analysis.probe_model import ProbeCache, run_probes, uses_a_model
        from goose_tui.analysis.probes import offline_report

        spec = ModelSpec.parse(self.model, api_base=self.api_base, in_worker_process=True)
        if uses_a_model(spec):
            report = await run_probes(
                self.messages,
                self.summary,
                spec,
                cache=ProbeCache(),
                working_dir=self.working_dir,
            )
        else:
            report = await asyncio.to_thread(
                offline_report, self.messages, self.summary, self.working_dir
            )
        self._show(report)

    def _show(self, report: ProbeReport) -> None:
        self.report = report
        kinds = self.query_one("#probe-kinds", DataTable)
        kinds.clear()
        for k in report.kinds:
            counts = (k.found, k.partial, k.missing)
            kinds.add_row(
                PROBE_LABELS[k.kind],
                Text(str(k.probes), justify="right"),
                Text(format_score(k.score), justify="right"),
                *(Text(str(n), justify="right") for n in counts),
                score_bar(k.score),
            )
        kinds.add_row(
            Text(SCORE_NAME, style="bold"),
            Text(str(len(report.results)), justify="right"),
            Text(format_score(report.overall), style="bold", justify="right"),
            *(
                Text(str(sum(getattr(k, n) for k in report.kinds)), justify="right")
                for n in ("found", "partial", "missing")
            ),
            score_bar(report.overall),
        )
        self._fill_items()
        self.query_one("#probe-hint", Static).update(Content(inert(self._hint(report))))
        self.focus_probes()

    def _text_width(self) -> int:
        """Each of the three text columns' share of the panel, so the answer, last, is on
        screen: what is left of the width after the other columns and every column's
        padding, up to CELL."""
        scores = [format_score(r.score) for r in self.report.results] if self.report else []
        fixed = max(map(len, ["score", *scores])) + len("message") + max(map(len, PROBE_KINDS))
        left = self.size.width - fixed - 2 * 6 - 2  # cell padding, scrollbar
        return max(min(left // 3, CELL), 12)

    def _fill_items(self) -> None:
        if self.report is None:
            return
        width = self._text_width()
        items = self.query_one("#probe-items", DataTable)
        row = items.cursor_row
        items.clear()
        for r in self.report.results:
            source = "" if r.probe.message_index is None else f"#{r.probe.message_index + 1}"
            items.add_row(
                Text(format_score(r.score), style=_score_style(r.score), justify="right"),
                Text(source, justify="right"),
                r.probe.kind,
                Text(inert(shorten(r.probe.question, width))),
                Text(inert(shorten(r.probe.expected, width))),
                Text(inert(shorten(r.answer or "(not in the summary)", width))),
            )
        if items.row_count:
            items.move_cursor(row=min(row, items.row_count - 1))
        self._show_detail(items.cursor_row)

    @on(DataTable.RowHighlighted, "#probe-items")
    def _probe_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._show_detail(event.cursor_row)

    def _show_detail(self, row: int) -> None:
        detail = self.query_one("#probe-detail", RowDetail)
        if self.report is None or not 0 <= row < len(self.report.results):
            detail.hide()
            return
        result, width = self.report.results[row], self._text_width()
        fields = [
            ("question", result.probe.question),
            ("expected", result.probe.expected),
            ("answered", result.answer or "(not in the summary)"),
        ]
        detail.show(fields, cut=any(shorten(text, width) != text for _, text in fields))

    def on_resize(self) -> None:
        self._fill_items()

    def focus_probes(self) -> None:
        """Focus the probe list once it is shown (a pane being switched in is not yet), with
        rows or not: the focus left on a table of the hidden retention tab switched the tabs
        straight back."""
        self.call_after_refresh(self.query_one("#probe-items", DataTable).focus)

    def _hint(self, report: ProbeReport) -> str:
        if report.mode == "offline":
            head = "offline probes from the session's structure"
        else:
            head = (
                f"probes by {report.writer}, answered by {report.answerer}, "
                f"judged by {report.judge}"
            )
            made = sum(1 for c in report.calls if not c.cached)
            from goose_tui.analysis.compare import format_cost

            head += (
                f" · {len(report.calls)} calls ({made} made, {len(report.calls) - made} cached)"
                f" · {report.tokens:,} tokens · cost {format_cost(report.cost_usd)}"
            )
        return f"{head} · enter: go to the source message"

    @on(DataTable.RowSelected, "#probe-items")
    def _probe_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if self.report is None or not 0 <= event.cursor_row < len(self.report.results):
            return
        index = self.report.results[event.cursor_row].probe.message_index
        if index is not None:
            self.post_message(ShowMessage(index))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "probes" and event.state == WorkerState.ERROR:
            error = event.worker.error
            # The error itself reaches the app's error modal (WorkerErrorsUp).
            self.query_one("#probe-hint", Static).update(Content(inert(f"probes failed: {error}")))
