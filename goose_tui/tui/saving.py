"""What the save key writes: the summary JSON, the Markdown, or the compacted session in a
shape Goose opens (``goose_tui.session.writer``: Goose's legacy JSONL or its export JSON)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from goose_tui.compaction.structured import StructuredSummary
from goose_tui.files import atomic_write_text, refuse_overwriting_inputs
from goose_tui.session.models import Session
from goose_tui.session.writer import SaveFormat, SaveRefused, refuse_goose_targets

SaveKind = Literal["json", "markdown", "session", "export"]
SUFFIXES: dict[SaveKind, str] = {
    "json": ".summary.json",
    "markdown": ".summary.md",
    "session": ".compacted.jsonl",
    "export": ".compacted.json",
}
# The kinds that are whole sessions, and the writer's format for each.
SESSION_FORMATS: dict[SaveKind, SaveFormat] = {"session": "jsonl", "export": "json"}


def default_target(session: Session, kind: SaveKind) -> Path:
    """Beside the session file, named after it; a session of a database is named by its id.
    Never inside Goose's own sessions folder (writes there are refused): the current folder
    instead."""
    source = session.source_path
    by_file = source.stem if source and session.source_format != "sqlite" else None
    stem = by_file or session.id or "session"
    folder = source.parent if source else Path.cwd()
    try:
        refuse_goose_targets(folder / "probe")
    except SaveRefused:
        folder = Path.cwd()
    return folder / f"{stem}{SUFFIXES[kind]}"


def summary_json_text(summary: StructuredSummary | None) -> str:
    value = summary.to_json_dict() if summary is not None else {}
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def save(target: Path, text: str, inputs: list[Path | None]) -> Path:
    """Write ``text`` atomically; raises ``OverwriteRefused`` when ``target`` is an input."""
    target = target.expanduser()
    refuse_overwriting_inputs(target, inputs)
    atomic_write_text(target, text)
    return target
