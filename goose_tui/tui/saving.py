"""What the save key writes: the summary JSON, the Markdown, or a compacted Goose session
(the legacy JSONL shape: a metadata line, then the single summary message)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Literal

from goose_tui.compaction.structured import StructuredSummary
from goose_tui.files import atomic_write_text, refuse_overwriting_inputs
from goose_tui.samples import samples_dir
from goose_tui.session.models import Message, MessageMetadata, Session

SaveKind = Literal["json", "markdown", "session"]
SUFFIXES: dict[SaveKind, str] = {
    "json": ".summary.json",
    "markdown": ".summary.md",
    "session": ".compacted.jsonl",
}


_PACKAGE = Path(__file__).resolve().parents[1]  # goose_tui/


def _shipped(folder: Path) -> bool:
    """Inside the installed package or the bundled samples: results must not land there."""
    folder = folder.resolve()
    return any(folder.is_relative_to(root.resolve()) for root in (_PACKAGE, samples_dir()))


def _usable(folder: Path) -> bool:
    return os.access(folder, os.W_OK | os.X_OK) and not _shipped(folder)


def default_folder(source: Path | None) -> Path:
    """The session's folder when it is writable and not shipped with goose-tui, else the
    current directory (the home folder if the current directory is shipped too)."""
    if source is not None and _usable(source.parent):
        return source.parent
    cwd = Path.cwd()
    return cwd if not _shipped(cwd) else Path.home()


def default_target(session: Session, kind: SaveKind) -> Path:
    source = session.source_path
    stem = (source.stem if source else None) or session.id or "session"
    return default_folder(source) / f"{stem}{SUFFIXES[kind]}"


def summary_json_text(summary: StructuredSummary | None) -> str:
    value = summary.to_json_dict() if summary is not None else {}
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def summary_message(summary_text: str, template: Message | None) -> Message:
    """The message that replaces the history: the compaction's own when there was one (its
    metadata and time), with the text as currently edited."""
    if template is not None:
        return template.model_copy(update={"content": [{"type": "text", "text": summary_text}]})
    return Message(
        role="user",
        created=int(time.time()),
        content=[{"type": "text", "text": summary_text}],
        metadata=MessageMetadata(userVisible=False, agentVisible=True),
    )


def compacted_session_text(session: Session, message: Message) -> str:
    metadata = {
        "working_dir": session.working_dir or "",
        "description": session.description or session.name or "",
        "schedule_id": None,
        "message_count": 1,
        "total_tokens": None,
        "input_tokens": None,
        "output_tokens": None,
    }
    body = message.model_dump(mode="json", by_alias=True, exclude_none=True)
    lines = [json.dumps(metadata, ensure_ascii=False), json.dumps(body, ensure_ascii=False)]
    return "\n".join(lines) + "\n"


def check_target(target: Path, inputs: list[Path | None]) -> Path:
    """The one check of a save target, before asking anything and again before writing:
    raises ``OverwriteRefused`` when ``target`` is an input."""
    target = target.expanduser()
    refuse_overwriting_inputs(target, inputs)
    return target


def save(target: Path, text: str, inputs: list[Path | None]) -> Path:
    """Write ``text`` atomically after ``check_target``."""
    target = check_target(target, inputs)
    atomic_write_text(target, text)
    return target
