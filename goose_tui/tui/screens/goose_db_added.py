"""What adding the compacted session to Goose's sessions.db did: the new id, the backup, what
Goose cannot read, and the command that resumes it, which y copies (it goes into a shell)."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from goose_tui.inert import inert
from goose_tui.session.goose_db import AddedSession


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


class GooseDbAdded(ModalScreen[None]):
    BINDINGS = [
        Binding("escape", "dismiss_modal", "Close", id="goose_db.close"),
        Binding("enter", "dismiss_modal", "Close", show=False, id="goose_db.close_enter"),
        Binding("y", "copy", "Copy the resume command", id="goose_db.copy"),
        # A copy the terminal dropped says "Press W to save it to a file": here too.
        Binding("W", "app.save_last_copy", "Save the copy", show=False, id="goose_db.save_copy"),
    ]

    def __init__(self, db: Path, added: AddedSession) -> None:
        super().__init__()
        self.added = added
        self.message = added_message(db, added)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Added to Goose's sessions.db")
            with VerticalScroll(id="goose-db-body"):
                yield Static(Content(inert(self.message)), id="goose-db-message")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Copy the resume command (y)", id="goose-db-copy", variant="primary")
                yield Button("Close (esc)", id="goose-db-close")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "goose-db-copy":
            self.action_copy()
        else:
            self.dismiss(None)

    def action_copy(self) -> None:
        from goose_tui.tui.clipboard import copy_text

        copy_text(self.app, self.added.resume_command, "the resume command")

    def action_dismiss_modal(self) -> None:
        self.dismiss(None)
