"""What was lost (``RetentionScreen.HELP``): the retention report of the current summary
against the history it replaces, and the probes in a tab. The items of a history are pulled
out once per session; each opening only re-checks them against the current summary, so the
report always follows the latest hand edit."""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen
from textual.widgets import DataTable, Static, TabbedContent, TabPane

from goose_tui.analysis.probes import SCORE_NAME
from goose_tui.analysis.retention import (
    CATEGORY_LABELS,
    EVIDENCE_NAME,
    RetentionItem,
    RetentionReport,
    check_items,
    extract_items,
    format_score,
)
from goose_tui.inert import inert
from goose_tui.inspector import Inspector
from goose_tui.session.models import Message
from goose_tui.terminal import shorten
from goose_tui.tui.messages import ShowMessage
from goose_tui.tui.screens.analysis import AnalysisScreen, right, summary_to_analyse
from goose_tui.tui.widgets.goose_footer import GooseFooter
from goose_tui.tui.widgets.probes_panel import ProbesPanel, score_bar
from goose_tui.tui.widgets.row_detail import RowDetail

TEXT_WIDTH = 200  # an item is one table row; the whole text is one enter away
STATUS_STYLE = {"missing": "bold red", "normalized": "yellow", "exact": "green"}

# (the message list it came from, its items): a session's items do not change, summaries do.
_items_cache: tuple[Sequence[Message], list[RetentionItem]] | None = None


def history_items(messages: Sequence[Message]) -> list[RetentionItem]:
    global _items_cache
    if _items_cache is None or _items_cache[0] is not messages:
        _items_cache = (messages, extract_items(messages))
    return _items_cache[1]


class RetentionScreen(AnalysisScreen):
    """``summary`` is checked against ``messages``; ``label`` says where the summary came
    from (a model, or a hand edit)."""

    HELP = (  # what `?` says this screen shows (screens/help.py)
        "What was lost, measured two ways. Retention, evidence found: which of the history's "
        "user messages, paths, errors, commands and identifiers the summary still writes "
        "out; a string kept is evidence, not proof that the agent can use it. Probes, can "
        "the agent act: questions the agent must answer from the summary alone to go on "
        "(the open problem and next step, decisions and their reasons, files changed, the "
        "user's facts), found, partial or missing per kind.\n\n"
        "Scores per category on top, the items below, missing first; enter on an item goes "
        "back to the conversation with its source message selected."
    )

    DEFAULT_CSS = """
    RetentionScreen #retention-scores { height: auto; max-height: 9; margin: 1 0 0 0; }
    RetentionScreen #retention-hint { height: auto; max-height: 3; padding: 0 1;
                                      color: $text-muted; }
    RetentionScreen #retention-items { height: 1fr; }
    RetentionScreen #retention-tabs { height: 1fr; }
    RetentionScreen TabPane { padding: 0; }
    """
    BINDINGS = [
        Binding("escape", "back", "Back", id="retention.back"),
        Binding("a", "toggle_found", "Found items", id="retention.toggle_found"),
        Binding("y", "copy_missing", "Copy missing", id="retention.copy"),
        Binding("p", "switch_tab", "Probes/Retention", id="retention.probes"),
    ]

    def __init__(
        self,
        messages: Sequence[Message],
        summary: str,
        label: str,
        *,
        model: str = "offline",
        api_base: str | None = None,
        working_dir: str | None = None,
    ) -> None:
        super().__init__()
        self.messages = messages
        self.summary = summary
        self.label = label
        self.model = model
        self.api_base = api_base
        self.working_dir = working_dir
        self.report: RetentionReport | None = None
        self.show_found = False
        self._rows: list[RetentionItem] = []  # the items in table order
        self._scores = DataTable[object](
            id="retention-scores", cursor_type="none", zebra_stripes=True
        )
        self._hint = Static(Content("checking the summary…"), id="retention-hint")
        self._items = DataTable[object](id="retention-items", cursor_type="row", zebra_stripes=True)
        self._detail = RowDetail(id="retention-detail")
        self._tabs = TabbedContent(id="retention-tabs", initial="tab-retention")
        self._probes = ProbesPanel(
            messages, summary, model, api_base, working_dir, id="probes-panel"
        )

    def compose(self) -> ComposeResult:
        yield self.title_line(f"what was lost · {self.label}", "retention-title")
        with self._tabs:
            with TabPane(f"Retention: {EVIDENCE_NAME}", id="tab-retention"):
                yield self._scores
                yield self._hint
                yield self._items
                yield self._detail
            with TabPane(f"Probes: {SCORE_NAME}", id="tab-probes"):
                yield self._probes
        yield GooseFooter()

    def on_mount(self) -> None:
        self._scores.add_columns("category", "found", "total", "score", "")
        self._items.add_columns("message", "category", "status", "its words", "text")
        self.check()

    @work(thread=True, exclusive=True, group="retention", exit_on_error=False)
    def check(self) -> None:
        report = check_items(history_items(self.messages), self.summary)
        self.app.call_from_thread(self._show, report)

    def _show(self, report: RetentionReport) -> None:
        self.report = report
        scores = self._scores
        scores.clear()
        for c in report.categories:
            scores.add_row(
                CATEGORY_LABELS[c.category],
                right(str(c.found)),
                right(str(c.total)),
                right(format_score(c.score)),
                score_bar(c.score),
            )
        scores.add_row(
            Text(EVIDENCE_NAME, style="bold"),
            right(str(report.found)),
            right(str(report.total)),
            right(format_score(report.overall), "bold"),
            score_bar(report.overall),
        )
        self._fill_items()

    def _fill_items(self) -> None:
        report = self.report
        if report is None:
            return
        missing = report.missing()
        self._rows = missing + ([i for i in report.items if i.found] if self.show_found else [])
        table = self._items
        table.clear()
        for item in self._rows:
            overlap = "" if item.word_overlap is None else f"{item.word_overlap:.0%}"
            table.add_row(
                right(f"#{item.message_index + 1}"),
                CATEGORY_LABELS[item.category],
                Text(item.status, style=STATUS_STYLE[item.status]),
                overlap,
                Text(inert(shorten(item.text, TEXT_WIDTH))),
            )
        hint = (
            f"{len(missing)} of {report.total} items missing (not found as a whole; its words: "
            "the share the summary has) · enter: go to the message · a: "
            + ("missing items only" if self.show_found else "show found items too")
            if report.total
            else "the history has no checkable items"
        )
        self._hint.update(Content(hint))
        self._show_detail(table.cursor_row)
        if self._rows:
            table.focus()

    def on_resize(self) -> None:
        self._show_detail(self._items.cursor_row)

    @on(DataTable.RowHighlighted, "#retention-items")
    def _item_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail(event.cursor_row)

    def _show_detail(self, row: int) -> None:
        if not 0 <= row < len(self._rows):
            self._detail.hide()
            return
        text, table = self._rows[row].text, self._items
        # The text is the last column: cut by TEXT_WIDTH, or by the screen's edge.
        before = sum(c.get_render_width(table) for c in table.ordered_columns[:-1])
        room = table.scrollable_content_region.width - before - 2 * table.cell_padding
        cut = shorten(text, TEXT_WIDTH) != text or cell_len(inert(text)) > room
        self._detail.show([("text", text)], cut=cut)

    @on(DataTable.RowSelected, "#retention-items")
    def _item_selected(self, event: DataTable.RowSelected) -> None:
        if 0 <= event.cursor_row < len(self._rows):
            self.post_message(ShowMessage(self._rows[event.cursor_row].message_index))

    def action_toggle_found(self) -> None:
        self.show_found = not self.show_found
        self._fill_items()

    def action_copy_missing(self) -> None:
        if self.report is None:
            return
        lines = [
            f"#{i.message_index + 1}\t{CATEGORY_LABELS[i.category]}\t{i.text}"
            for i in self.report.missing()
        ]
        from goose_tui.tui.clipboard import copy_text

        copy_text(self.app, "\n".join(lines), f"{len(lines)} missing items")

    def action_switch_tab(self) -> None:
        tabs = self._tabs
        tabs.active = "tab-retention" if tabs.active == "tab-probes" else "tab-probes"

    @on(TabbedContent.TabActivated, "#retention-tabs")
    def _tab_shown(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id == "tab-probes":
            self._probes.start()


def open_retention(screen: Screen[None], inspector: Inspector) -> None:
    """Open the report for the inspector's current summary (the last good render)."""
    session = summary_to_analyse(screen, inspector, "retention --summary FILE")
    if session is None:
        return
    screen.app.push_screen(
        RetentionScreen(
            session.messages,
            inspector.summary.text,
            inspector.summary_label(),
            model=inspector.model.name,
            api_base=inspector.model.api_base,
            working_dir=session.working_dir,
        )
    )
