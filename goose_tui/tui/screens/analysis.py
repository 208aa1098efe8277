"""What the analysis screens (context, timeline, what was lost, compare, the template diff)
share: a title line over their tables, escape back to the inspector, and the checks made
before one opens."""

from __future__ import annotations

from rich.text import Text
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from goose_tui.inert import inert
from goose_tui.inspector import Inspector
from goose_tui.session.models import Session
from goose_tui.tui.messages import WorkerErrorsUp
from goose_tui.tui.widgets.compaction_status import compact_key, no_session_hint

# The longest summary the app checks: indexing one (normalizing, its words) holds the GIL in
# long C calls and takes many bytes of memory a character, too much for a summary of tens of MB.
ANALYSIS_CHARS = 4_000_000


class AnalysisScreen(WorkerErrorsUp, Screen[None]):
    """Each screen binds escape to ``back`` under its own binding id (the one a keymap
    names), and says what it shows in ``HELP`` (screens/help.py)."""

    DEFAULT_CSS = """
    AnalysisScreen > .screen-title { height: 1; padding: 0 1; background: $primary-background; }
    """

    def title_line(self, text: str, id: str) -> Static:
        return Static(Content(inert(text)), id=id, classes="screen-title")

    def action_back(self) -> None:
        self.dismiss(None)


def right(text: str, style: str = "") -> Text:
    """A table cell aligned right (a number)."""
    return Text(text, style=style, justify="right")


def open_session(screen: Screen[None], inspector: Inspector) -> Session | None:
    """The inspector's session, or None after saying how to open one."""
    if inspector.session is None:
        screen.notify(no_session_hint(screen.app))
    return inspector.session


def summary_to_analyse(screen: Screen[None], inspector: Inspector, command: str) -> Session | None:
    """The session, when it has a summary short enough to check here; else None after saying
    why (and, for a summary too long, which ``goose-tui`` command checks it)."""
    session = open_session(screen, inspector)
    if session is None:
        return None
    if not inspector.summary.text:
        screen.notify(f"no summary yet: press {compact_key(screen.app)} to compact first")
        return None
    return None if too_big_to_analyse(screen, inspector.summary.text, command) else session


def too_big_text(summary: str, what: str, how: str) -> str | None:
    """Why ``summary`` (``what``: "the summary") is too long to check here and ``how`` to
    check it on the command line, or None when it is not (no screen waits on that)."""
    if len(summary) <= ANALYSIS_CHARS:
        return None
    return (
        f"{what} is {len(summary):,} characters, too big to check in the app (at most "
        f"{ANALYSIS_CHARS:,}): {how}"
    )


def too_big_to_analyse(screen: Screen[None], summary: str, command: str) -> bool:
    """Whether ``summary`` is too long to check here; if so the screen says so, and which
    command checks it."""
    text = too_big_text(summary, "the summary", f"save it (s) and run `goose-tui {command}` on it")
    if text is None:
        return False
    screen.notify(text, title="summary too big", severity="warning", markup=False)
    return True
