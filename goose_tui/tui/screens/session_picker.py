"""Pick one session of a ``sessions.db`` or a folder: a table, filtered as you type. A path
typed instead (``/``, ``~`` or ``.`` first, or a session file's or database's ending) is
opened on enter: a file as a session, a folder or a ``.db`` as a new listing."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import DataTable, Input, Static

from goose_tui.inert import inert
from goose_tui.session.models import SessionInfo
from goose_tui.terminal import one_line
from goose_tui.tui.widgets.goose_footer import GooseFooter


def _name(info: SessionInfo) -> str:
    return one_line(info.name or info.description or info.id)


def _row(
    info: SessionInfo, recent: bool = False, with_type: bool = False, tag: str = ""
) -> tuple[Text, ...]:
    """``tag``: what tells this session from another of the same name, before the name (a
    narrow screen cuts the id and file columns, and the name's end)."""
    updated = info.updated_at.strftime("%Y-%m-%d %H:%M") if info.updated_at else "—"
    if recent and info.updated_at:  # the recent list keeps when it was opened, not updated
        updated = f"opened {updated}"
    tokens = f"{info.total_tokens:,}" if info.total_tokens is not None else "—"
    name = f"{tag} · {_name(info)}" if tag else _name(info)
    # With --all-sessions the type says why a row is not in `goose session list`.
    kind = (Text(one_line(info.session_type or "—")),) if with_type else ()
    return (
        *kind,
        # Before the name: a long name would push it off a narrow screen.
        Text(updated),
        Text(f"recent · {name}" if recent else name),
        # What tells two sessions of one name apart (a session and its compacted copy), as
        # `goose-tui sessions` and --session name them.
        Text(one_line(info.id)),
        Text(str(info.message_count), justify="right"),
        Text(tokens, justify="right"),
        Text(one_line(info.model_name or "—")),
        # Last: a long path would push the figures off a narrow screen.
        Text(one_line(str(info.path)) if recent else ""),
    )


_PATH_ENDINGS = (".jsonl", ".json", ".db")


def _unique_tails(values: Sequence[str]) -> list[str]:
    """The shortest ends (six characters at least) that still tell ``values`` apart."""
    k = next(
        (
            k
            for k in range(6, max(map(len, values)))
            if len({v[-k:] for v in values}) == len(values)
        ),
        None,
    )
    return [v if k is None or len(v) <= k else f"…{v[-k:]}" for v in values]


def name_tags(shown: Sequence[SessionInfo]) -> list[str]:
    """For each session whose name another shown one has: its id's end, or when the ids are
    the same (one file copied to two folders) its folder's; "" for the others."""
    groups: dict[str, list[int]] = {}
    for index, info in enumerate(shown):
        groups.setdefault(_name(info), []).append(index)
    tags = [""] * len(shown)
    for indices in groups.values():
        if len(indices) < 2:
            continue
        for values in (
            [one_line(shown[i].id) for i in indices],
            [one_line(str(shown[i].path.parent)) for i in indices],
        ):
            if len(set(values)) == len(values):
                for i, tail in zip(indices, _unique_tails(values), strict=True):
                    tags[i] = tail
                break
    return tags


def lists_sessions(path: Path) -> bool:
    """Whether opening ``path`` lists sessions to pick from (a folder or a sessions.db)
    rather than loading one."""
    return path.is_dir() or path.suffix == ".db"


def typed_path(query: str) -> Path | None:
    """The path the filter's text names, when it reads as one (not as words to match)."""
    text = query.strip()
    if not text or not (text.startswith(("/", "~", ".")) or text.endswith(_PATH_ENDINGS)):
        return None
    return Path(text).expanduser()


def matches(info: SessionInfo, query: str) -> bool:
    """Every word of ``query`` appears in the session's name, description, id or model."""
    haystack = " ".join(
        part or "" for part in (info.name, info.description, info.id, info.model_name)
    ).lower()
    return all(word in haystack for word in query.lower().split())


class SessionPicker(Screen[SessionInfo | Path | None]):
    """Dismissed with the chosen session, a typed path to open, or None."""

    HELP = (  # what `?` says this screen shows (screens/help.py)
        "Pick a session: the sessions of a sessions.db or a folder, filtered as you type. A "
        "path typed instead (starting with /, ~ or ., or ending like a session file or "
        "database) is opened on enter: a file as a session, a folder or a .db as a new "
        "listing."
    )

    BINDINGS = [
        Binding("escape", "dismiss", "Quit picker", id="picker.cancel"),
        Binding("enter", "choose", "Open session", id="picker.choose", priority=True),
        Binding("down", "cursor(1)", "Next", id="picker.down", show=False, priority=True),
        Binding("up", "cursor(-1)", "Previous", id="picker.up", show=False, priority=True),
    ]

    def __init__(
        self,
        sessions: list[SessionInfo],
        source: str,
        *,
        recent: Sequence[SessionInfo] = (),
        with_type: bool = False,
    ) -> None:
        """``recent`` (sessions opened lately, from any folder) are listed first;
        ``with_type``: a column of each session's type (--all-sessions lists them all)."""
        super().__init__()
        self.with_type = with_type
        self.recent = list(recent)
        self.sessions = self.recent + sessions
        self.source = source
        self.shown: list[SessionInfo] = []

    def compose(self) -> ComposeResult:
        yield Static(
            Content(inert(self._title())),
            id="picker-title",
        )
        yield Input(placeholder="filter", id="picker-filter")
        yield DataTable(id="picker-table", cursor_type="row", zebra_stripes=True)
        yield GooseFooter()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        kind = ("type",) if self.with_type else ()
        table.add_columns(*kind, "updated", "name", "id", "messages", "tokens", "model", "file")
        self._fill("")
        self.query_one(Input).focus()

    def _fill(self, query: str) -> None:
        table = self.query_one(DataTable)
        table.clear()
        self.shown = [info for info in self.sessions if matches(info, query)]
        recent_ids = {id(info) for info in self.recent}
        tags = name_tags(self.shown)
        for index, info in enumerate(self.shown):
            recent = id(info) in recent_ids
            row = _row(info, recent=recent, with_type=self.with_type, tag=tags[index])
            table.add_row(*row, key=str(index))

    def _title(self, query: str = "") -> str:
        path = typed_path(query)
        if path is None and not self.sessions:
            return (
                f"No sessions in {self.source} (no Goose JSONL, export JSON or sessions.db "
                "that could be read) — type a path to open one, esc to leave"
            )
        if path is None and query and not self.shown:
            return f"No session matches {query!r} — type to filter or a path, enter to open"
        if path is None:
            return f"Sessions in {self.source} — type to filter or a path, enter to open"
        if not path.exists():
            return f"{path}: no such file or folder"
        kind = "list the sessions in" if lists_sessions(path) else "open"
        return f"enter: {kind} {path}"

    def on_input_changed(self, event: Input.Changed) -> None:
        self._fill(event.value)
        self.query_one("#picker-title", Static).update(Content(inert(self._title(event.value))))

    def _widgets(self) -> tuple[Input, DataTable[Text]] | None:
        """The filter and the table, while the picker is on screen with them. A key can reach
        the picker before they are composed, or after it was dismissed (enter twice): it
        must neither crash the app nor dismiss the picker again (that popped the screen
        under it)."""
        if not self.is_current:
            return None
        try:
            return self.query_one(Input), self.query_one(DataTable)
        except NoMatches:
            return None

    def action_cursor(self, delta: int) -> None:
        widgets = self._widgets()
        if widgets is None:
            return
        _, table = widgets
        if self.shown:
            table.move_cursor(row=min(max(table.cursor_row + delta, 0), len(self.shown) - 1))

    def action_choose(self) -> None:
        widgets = self._widgets()
        if widgets is None:
            return
        filter_input, table = widgets
        path = typed_path(filter_input.value)
        if path is not None and path.exists():
            self.dismiss(path)
            return
        if path is not None and not self.shown:
            self.notify(f"{path}: no such file or folder", severity="warning", markup=False)
            return
        if self.shown and 0 <= table.cursor_row < len(self.shown):
            self.dismiss(self.shown[table.cursor_row])

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_choose()
