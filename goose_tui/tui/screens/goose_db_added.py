"""What adding the compacted session to Goose's sessions.db did: the new id, the backup, what
Goose cannot read, and the command that resumes it, which y copies (it goes into a shell)."""

from __future__ import annotations

from pathlib import Path

from goose_tui.session.goose_db import AddedSession
from goose_tui.tui.screens.error_modal import MessageModal, message_bindings


def added_message(db: Path, added: AddedSession) -> str:
    lines = [
        f"New session {added.session_id} ({added.message_count} messages) in {db}",
        f"Backup of the database before it: {added.backup}",
        *(f"Warning: {note}" for note in added.notes),
        "",
        "Continue it in the Goose CLI with:",
        f"  {added.resume_command}",
    ]
    return "\n".join(lines)


class GooseDbAdded(MessageModal):
    ID = "goose-db"
    BINDINGS = message_bindings("goose_db", "Copy the resume command")
    COPY_LABEL, CLOSE_LABEL = "Copy the resume command (y)", "Close (esc)"

    def __init__(self, db: Path, added: AddedSession) -> None:
        message = added_message(db, added)
        title = "Added to Goose's sessions.db"
        super().__init__(title, message, added.resume_command, "the resume command")
        self.added = added
