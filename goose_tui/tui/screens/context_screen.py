"""The gauge's detail (what it shows: ``ContextScreen.HELP``)."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen
from textual.widgets import DataTable, Static

from goose_tui.analysis.breakdown import (
    CATEGORY_LABELS,
    ContextBreakdown,
    context_breakdown,
    share_text,
)
from goose_tui.inert import inert
from goose_tui.inspector import Inspector
from goose_tui.session.models import Session
from goose_tui.tui.messages import ShowMessage
from goose_tui.tui.screens.analysis import AnalysisScreen, open_session, right
from goose_tui.tui.widgets.goose_footer import GooseFooter
from goose_tui.tui.widgets.probes_panel import score_bar


class ContextScreen(AnalysisScreen):
    HELP = (  # what `?` says this screen shows (screens/help.py)
        "The gauge's detail: what fills the context, by kind of content, and the heaviest "
        "messages.\n\n"
        "enter on a category goes back to the conversation with that category's messages "
        "highlighted (n and N move between them there); enter on a message selects it."
    )

    DEFAULT_CSS = """
    ContextScreen #context-categories { height: auto; max-height: 12; margin: 1 0 0 0; }
    ContextScreen #context-hint { height: auto; padding: 0 1; color: $text-muted; }
    ContextScreen #context-heaviest { height: 1fr; }
    """
    BINDINGS = [Binding("escape", "back", "Back", id="context.back")]

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.breakdown: ContextBreakdown | None = None

    def compose(self) -> ComposeResult:
        title = f"context · {self.session.title} · {len(self.session.messages):,} messages"
        yield self.title_line(title, "context-title")
        yield DataTable(id="context-categories", cursor_type="row", zebra_stripes=True)
        yield Static(Content("counting tokens…"), id="context-hint")
        yield DataTable(id="context-heaviest", cursor_type="row", zebra_stripes=True)
        yield GooseFooter()

    def on_mount(self) -> None:
        table = self.query_one("#context-categories", DataTable)
        table.add_columns("category", "tokens", "share", "", "messages")
        heavy = self.query_one("#context-heaviest", DataTable)
        heavy.add_columns("message", "role", "tokens", "share", "mostly", "text")
        self.count()

    @work(thread=True, exclusive=True, group="context", exit_on_error=False)
    def count(self) -> None:
        breakdown = context_breakdown(self.session)
        self.app.call_from_thread(self._show, breakdown)

    def _show(self, breakdown: ContextBreakdown) -> None:
        self.breakdown = breakdown
        table = self.query_one("#context-categories", DataTable)
        table.clear()
        for c in breakdown.categories:
            if not c.recorded:
                table.add_row(c.label, right("—"), "", "", "not recorded by this session")
                continue
            count = "" if c.category == "framing" else f"{len(c.messages):,}"
            table.add_row(
                c.label,
                right(f"{c.tokens:,}"),
                right(share_text(c.share)),
                "" if c.share is None else score_bar(min(c.share, 1.0)),
                right(count),
            )
        table.add_row(
            Text("total in context", style="bold"),
            right(f"{breakdown.total:,}", "bold"),
            "",
            "",
            "",
        )
        hint = "enter on a category: highlight its messages · enter on a message: go to it"
        if breakdown.reported_total is not None and breakdown.unaccounted is not None:
            hint = (
                f"the session reports {breakdown.reported_total:,} tokens: "
                f"{breakdown.unaccounted:+,} are not in the stored messages (the system prompt "
                f"and tool schemas Goose sent, the reply, the estimate's error)\n{hint}"
            )
        self.query_one("#context-hint", Static).update(Content(hint))
        heavy = self.query_one("#context-heaviest", DataTable)
        heavy.clear()
        for h in breakdown.heaviest:
            heavy.add_row(
                right(f"#{h.index + 1}"),
                Text(inert(h.role)),
                right(f"{h.tokens:,}"),
                right(share_text(h.share)),
                CATEGORY_LABELS[h.category] + (" (hidden)" if h.hidden else ""),
                Text(inert(h.preview)),
            )
        table.focus()

    @on(DataTable.RowSelected, "#context-categories")
    def _category_selected(self, event: DataTable.RowSelected) -> None:
        breakdown = self.breakdown
        if breakdown is None or not 0 <= event.cursor_row < len(breakdown.categories):
            return
        category = breakdown.categories[event.cursor_row]
        if not category.messages:
            self.notify(f"no message has {category.label}", markup=False)
            return
        self.post_message(ShowMessage(category.messages[0], category.messages))
        self.notify(
            f"{category.label}: {len(category.messages):,} messages highlighted · "
            "n / N: next / previous",
            markup=False,
        )

    @on(DataTable.RowSelected, "#context-heaviest")
    def _message_selected(self, event: DataTable.RowSelected) -> None:
        breakdown = self.breakdown
        if breakdown is not None and 0 <= event.cursor_row < len(breakdown.heaviest):
            self.post_message(ShowMessage(breakdown.heaviest[event.cursor_row].index))


def open_context(screen: Screen[None], inspector: Inspector) -> None:
    if (session := open_session(screen, inspector)) is not None:
        screen.app.push_screen(ContextScreen(session))
