"""Edit one template in the app: every pause in typing re-renders the panes with the edited
text (in memory); ctrl+s saves it as an override file after asking."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static, TextArea

from goose_tui.compaction.templates import Template
from goose_tui.files import atomic_write_text, open_regular, write_error
from goose_tui.inert import inert, restore
from goose_tui.inspector import describe_source
from goose_tui.tui.debounce import debounce
from goose_tui.tui.screens.confirm import ConfirmScreen, confirm_then
from goose_tui.tui.widgets.goose_footer import GooseFooter
from goose_tui.tui.widgets.pane import Banner

# Applies edited text; reports (later: the summary renders off the UI thread) an error to show
# (file and line), or None when it rendered, and whether the session's summary is what rendered
# (False: there is none yet, and an empty summary was rendered to check the template).
ApplyEdit = Callable[[str, Callable[[str | None, bool], None]], None]


def _on_disk(path: Path) -> bytes | None:
    """What the override file holds now; None when there is none (or it is no file)."""
    try:
        with open_regular(path) as fh:
            return fh.read()
    except OSError:
        return None


class TemplateEditor(Screen[None]):
    HELP = (  # what `?` says this screen shows (screens/help.py)
        "The template editor: every pause in typing renders the panes again with the edited "
        "text, in memory only; ctrl+s saves it as an override file, after asking (Goose reads "
        "that file too)."
    )

    BINDINGS = [
        Binding("escape", "back", "Back to the inspector", id="template.back"),
        Binding("ctrl+s", "save_override", "Save as override", id="template.save"),
    ]

    def __init__(
        self,
        template: Template,
        *,
        override_path: Path,
        apply_edit: ApplyEdit,
        on_saved: Callable[[Path], None],
        goose_reads: bool = True,
    ) -> None:
        super().__init__()
        self.template = template
        self.override_path = override_path
        self.goose_reads = goose_reads  # the override's folder is Goose's own prompts folder
        self.apply_edit = apply_edit
        self.on_saved = on_saved
        # The override file as the editor found it: a save over a file that changed since
        # (another editor, Goose's own config tooling) asks about that first.
        self._found = _on_disk(override_path)
        self._applied = template.text  # the text the panes render with
        self._tried = template.text  # the text last applied, and why it did not render
        self._error: str | None = None
        self._leaving = False  # escape pressed: leave once the edit in hand is applied

    def compose(self) -> ComposeResult:
        yield Static(Content(inert(describe_source(self.template))), id="template-source")
        yield Banner(Content(inert(f"ctrl+s saves to {self.override_path}")), id="template-status")
        yield TextArea(inert(self.template.text), id="template-text", soft_wrap=True)
        yield GooseFooter()

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    @property
    def text(self) -> str:
        return restore(self.query_one(TextArea).text)  # shown inert, kept as written

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        debounce(self, "template", self._apply)

    def _apply(self) -> None:
        text = self._tried = self.text
        self.apply_edit(text, lambda error, shown: self._show_result(text, error, shown))

    def _show_result(self, text: str, error: str | None, with_summary: bool = True) -> None:
        if not self.is_attached:  # closed while the template rendered
            return
        if text == self._tried:
            self._error = error
        if error is None:
            self._applied = text
        status = self.query_one("#template-status", Banner)
        if error:
            status.show(f"{error} — the panes keep the last good render", "error")
        elif with_summary:
            status.show(f"rendered · ctrl+s saves to {self.override_path}")
        else:
            status.show(
                "renders with an empty summary (there is no summary to render yet) · "
                f"ctrl+s saves to {self.override_path}"
            )
        if self._leaving and text == self._tried:
            self._leaving = False
            self.action_back()

    def unapplied(self) -> bool:
        """Whether the text in the editor is not the one the panes render with (leaving
        would lose it)."""
        return self.text != self._applied

    @property
    def render_error(self) -> str | None:
        """Why the text in the editor does not render, once that is known."""
        return self._error if self.unapplied() and self.text == self._tried else None

    def action_save_override(self) -> None:
        current = _on_disk(self.override_path)

        def answered(yes: bool | None) -> None:
            if not yes:
                return
            if _on_disk(self.override_path) != current:  # changed again while asked
                self.action_save_override()
                return
            try:
                atomic_write_text(self.override_path, self.text)
            except OSError as exc:
                message = f"not saved: {write_error(self.override_path, exc)}"
                self.notify(message, severity="error", markup=False)
                return
            self.notify(f"saved override {self.override_path}", markup=False)
            self.on_saved(self.override_path)
            self.dismiss(None)

        # An override in Goose's prompts folder is Goose's template too: one that does not
        # render is not saved there without saying so.
        problem = self.render_error
        anyway = " anyway" if problem is not None else ""
        name = self.override_path.name
        if current is not None and self._found is None:
            question = (
                f"{name} was created on disk since you opened the editor; replace it{anyway}?"
            )
        elif current is not None and current != self._found:
            question = f"{name} changed on disk since you opened it; replace it{anyway}?"
        else:
            question = f"Save {'it' if problem else 'this template'} as an override{anyway}?"
        if problem is not None:
            question = f"This edit does not render ({problem}). {question}"
        self.app.push_screen(
            ConfirmScreen(
                f"{question}\n\n{self.override_path}"
                + (" (Goose reads it too)" if self.goose_reads else "")
            ),
            answered,
        )

    def action_back(self) -> None:
        """Back to the inspector with the edit applied; an edit that does not render is
        not dropped without asking."""
        if not self.unapplied():
            self.dismiss(None)
            return
        if self.text != self._tried:  # typed within the pause: applied now, then left
            self.workers.cancel_group(self, "debounce-template")
            self._leaving = True
            self._apply()
            return
        question = (
            f"The edit of {self.template.source.name} does not render ({self._error}). "
            "Leave and lose it?"
        )
        confirm_then(self.app, question, lambda: self.dismiss(None))
