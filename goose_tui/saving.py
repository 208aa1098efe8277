"""What the save key writes: the summary JSON, the Markdown, or the compacted session in a
shape Goose opens (``goose_tui.session.writer``: Goose's legacy JSONL or its export JSON), or
adds to Goose's own ``sessions.db`` as a new session (``goose_tui.session.goose_db``)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Literal, get_args

from goose_tui.compaction.structured import StructuredSummary
from goose_tui.files import OverwriteRefused
from goose_tui.samples import samples_dir
from goose_tui.session.models import Session
from goose_tui.session.writer import SaveFormat, refuse_goose_targets

SaveKind = Literal["json", "markdown", "session", "export", "report", "goose-db"]
SAVE_KINDS: tuple[SaveKind, ...] = get_args(SaveKind)
# Not a file of its own: a new session added to Goose's database (its path is the database).
GOOSE_DB: SaveKind = "goose-db"
SUFFIXES: dict[SaveKind, str] = {
    "json": ".summary.json",
    "markdown": ".summary.md",
    "session": ".compacted.jsonl",
    "export": ".compacted.json",
    # The Markdown report; its HTML twin goes beside it (report_paths).
    "report": ".report.md",
}
# The kinds that are whole sessions, and the writer's format for each.
SESSION_FORMATS: dict[SaveKind, SaveFormat] = {"session": "jsonl", "export": "json"}
SESSION_KINDS: dict[SaveFormat, SaveKind] = {fmt: kind for kind, fmt in SESSION_FORMATS.items()}


_PACKAGE = Path(__file__).resolve().parent  # goose_tui/


def _shipped(folder: Path) -> bool:
    """Inside the installed package or the bundled samples: results must not land there."""
    folder = folder.resolve()
    return any(folder.is_relative_to(root.resolve()) for root in (_PACKAGE, samples_dir()))


def _usable(folder: Path) -> bool:
    """Writable, not shipped with goose-tui, not Goose's own sessions folder (writes there
    are refused)."""
    if not os.access(folder, os.W_OK | os.X_OK) or _shipped(folder):
        return False
    try:
        refuse_goose_targets(folder / "probe")
    except OverwriteRefused:
        return False
    return True


def default_folder(source: Path | None) -> Path:
    """The session's folder when it is writable and neither shipped with goose-tui nor
    Goose's own sessions folder (writes there are refused), else the current directory (the
    home folder if the current directory is shipped too)."""
    if source is not None and _usable(source.parent):
        return source.parent
    cwd = Path.cwd()
    return cwd if not _shipped(cwd) else Path.home()


def default_goose_db_target() -> Path:
    """Goose's ``sessions.db`` on this machine, else where Goose would create it (adding to a
    database that is not there is refused with that said)."""
    from goose_tui.session.goose_db import default_goose_db
    from goose_tui.session.loader import default_sessions_dir

    return default_goose_db() or default_sessions_dir() / "sessions.db"


def default_target(session: Session, kind: SaveKind) -> Path:
    """Beside the session file, named after it; a session of a database is named by its id.
    Goose's own database for ``GOOSE_DB``."""
    if kind == GOOSE_DB:
        return default_goose_db_target()
    source = session.source_path
    by_file = source.stem if source and session.source_format != "sqlite" else None
    stem = by_file or session.id or "session"
    return default_folder(source) / f"{stem}{SUFFIXES[kind]}"


def summary_file_text(summary: str) -> str:
    """The Markdown summary as a file holds it (and as the CLI prints it): its text, with a
    final newline only when it has none. A rendered summary never ends in one; a raw-text
    fallback is the reply unchanged (docs/pipeline.md §6), and one ending in a newline got a
    second."""
    return summary if summary.endswith("\n") else summary + "\n"


def summary_json_text(summary: StructuredSummary | None) -> str:
    value = summary.to_json_dict() if summary is not None else {}
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def report_paths(target: Path) -> tuple[Path, Path]:
    """(Markdown, HTML) of a report named by either file: ``x.md`` and ``x.html``; a name
    with another suffix gets both added (``x`` is ``x.md`` and ``x.html``)."""
    target = target.expanduser()
    suffix = target.suffix.lower()
    if suffix in (".md", ".markdown"):
        return target, target.with_suffix(".html")
    if suffix in (".html", ".htm"):
        return target.with_suffix(".md"), target
    return Path(f"{target}.md"), Path(f"{target}.html")
