"""Edit one template in the app: every pause in typing re-renders the panes with the edited
text (in memory), and the pane the template renders (the summary's Markdown, or the prompt as
it will be sent) is shown beside the editor, or below it on a narrow terminal; ctrl+s saves
it as an override file after asking."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Literal

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Static, TextArea

from goose_tui.compaction.templates import COMPACTION, Template
from goose_tui.files import atomic_write_text, open_regular, write_error
from goose_tui.inert import inert, restore
from goose_tui.pieces import Text
from goose_tui.tui.debounce import debounce
from goose_tui.tui.messages import TemplateEditRequested
from goose_tui.tui.screens.confirm import ConfirmScreen, confirm_then
from goose_tui.tui.widgets.compaction_status import compact_key
from goose_tui.tui.widgets.goose_footer import GooseFooter
from goose_tui.tui.widgets.pane import Banner, Pane
from goose_tui.tui.widgets.summary_preview import SummaryPreview
from goose_tui.tui.widgets.text_viewer import TextViewer, prompt_highlighter

# Applies edited text; reports (later: the summary renders off the UI thread) an error to show
# (file and line), or None when it rendered, and whether the session's summary is what rendered
# (False: there is none yet, and an empty summary was rendered to check the template).
ApplyEdit = Callable[[str, Callable[[str | None, bool], None]], None]
# The template goes back to what its file holds (saved, loaded again): the edit in the app is
# dropped; reports as ApplyEdit does, when given.
UseFile = Callable[[Callable[[str | None, bool], None] | None], None]


def read_override(path: Path) -> bytes | None:
    """What the override file holds now; None when there is none (or it is no file)."""
    try:
        with open_regular(path) as fh:
            return fh.read()
    except OSError:
        return None


class TemplateEditor(Screen[None]):
    HELP = (  # what `?` says this screen shows (screens/help.py)
        "The template editor, on the override file as it is on disk: every pause in typing "
        "renders the panes again with the edited text, in memory only; ctrl+s saves it as an "
        "override file, after asking (Goose reads that file too). A change of the file on "
        "disk is said; ctrl+r loads it. ctrl+o opens the file in $EDITOR. Beside the editor "
        "(below it under 120 columns) is what the template renders: the summary's Markdown, "
        "or the prompt as it will be sent."
    )
    # Side by side from 120 columns; below that the preview goes under the editor, so both
    # are seen while typing (a key to flip between them would hide one of them).
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]

    BINDINGS = [
        Binding("escape", "back", "Back to the inspector", id="template.back"),
        Binding("ctrl+s", "save_override", "Save as override", id="template.save"),
        Binding("ctrl+r", "reload_file", "Reload from disk", id="template.reload"),
        Binding("ctrl+o", "open_external", "Open in $EDITOR", id="template.external"),
    ]

    # Which template is in use for this name now, as the pane borders say it (the app sets
    # it when that changes: a broken file fixed, or loaded again).
    source: reactive[str] = reactive("", init=False)

    def __init__(
        self,
        template: Template,
        *,
        text: str,
        file_text: str,
        found: bytes | None,
        described: str,
        problem: str | None = None,
        override_path: Path,
        apply_edit: ApplyEdit,
        use_file: UseFile,
        goose_reads: bool = True,
        preview: Text = "",
        preview_placeholder: str = "",
    ) -> None:
        """``template``: the one in use; ``text``: what the editor starts with (the file, or
        an edit in the app not saved yet); ``file_text``: the file's text as read (the
        template in use when there is no file); ``found``: the file's bytes as read (None:
        no file), which a save compares with what is on disk then; ``preview``: what the
        template renders now (the summary, or the prompt), ``preview_placeholder`` what is
        said when that is empty."""
        super().__init__()
        self.template = template
        self.override_path = override_path
        self.goose_reads = goose_reads  # the override's folder is Goose's own prompts folder
        self.apply_edit = apply_edit
        self.use_file = use_file
        self._initial = text
        self.set_reactive(TemplateEditor.source, described)
        self._problem = problem  # why the file on disk is not the template in use
        self._file_text = file_text
        self._found = found
        self._applied = text  # the text the panes render with
        self._tried = text  # the text last applied, and why it did not render
        self._error: str | None = None
        self._leaving = False  # escape pressed: leave once the edit in hand is applied
        # The inspector pane this template renders, shown as the preview (PaneDrawn).
        self.pane: Literal["input", "markdown"] = (
            "input" if template.source.name == COMPACTION else "markdown"
        )
        self._preview = (preview, preview_placeholder)

    def compose(self) -> ComposeResult:
        yield Static(Content(inert(self.source)), id="template-source")
        yield Banner(Content(inert(f"ctrl+s saves to {self.override_path}")), id="template-status")
        with Horizontal(id="template-body"):
            yield TextArea(inert(self._initial), id="template-text", soft_wrap=True)
            with Pane(self._preview_title(), copy_source=self._preview_text, id="template-preview"):
                if self.pane == "input":
                    yield TextViewer(highlighter=prompt_highlighter, wrap=True)
                else:
                    key = compact_key(self.app)
                    yield SummaryPreview(
                        placeholder=f"no summary yet: {key} on the inspector compacts, and "
                        "this template renders its summary here"
                    )
        yield GooseFooter()

    def _preview_title(self, kept: bool = False) -> str:
        shown = "the prompt as it will be sent" if self.pane == "input" else "the summary"
        return f"{shown} · last good render" if kept else shown

    def _preview_text(self) -> str:
        return str(self._preview[0])

    def show_preview(self, text: Text, placeholder: str = "") -> None:
        """What the template renders now (the inspector drew its pane again)."""
        self._preview = (text, placeholder)
        if self.pane == "input":
            viewer = self.query_one("#template-preview TextViewer", TextViewer)
            if placeholder:  # else the last one stays: what is shown while there is no text
                viewer.placeholder = placeholder
            viewer.set_text(text)
        else:
            self.query_one(SummaryPreview).set_markdown(str(text))

    def watch_source(self, source: str) -> None:
        self.query_one("#template-source", Static).update(Content(inert(source)))

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()
        self.show_preview(*self._preview)
        if self._problem is not None and self.text == self._file_text:
            self.query_one("#template-status", Banner).show(
                f"{self._problem} · fix it here, ctrl+s saves it", "error"
            )
        self.file_changed()  # since the edit in the app was left, or since it was read

    def file_changed(self) -> None:
        """The override file may have changed on disk: said, with what ctrl+r and ctrl+s
        would do; the text in the editor stays."""
        if read_override(self.override_path) == self._found:
            return
        name = self.override_path.name
        status = self.query_one("#template-status", Banner)
        text, kind = status.shown
        note = (
            f"{name} changed on disk since it was read: ctrl+r loads it (the text here goes), "
            "ctrl+s asks before replacing it"
        )
        if note in text:
            return
        if kind == "error":  # the edit's own error stays first
            status.show(f"{text}\n{note}", kind)
        else:
            status.show(note, "fallback")

    def action_reload_file(self) -> None:
        """The override file as it is on disk now replaces the text here (asked first when
        that text is an edit), and the panes render the file again."""
        found = read_override(self.override_path)
        if found is None and self._found is None and self.text == self._file_text:
            self.notify("nothing to load: the text here is the template in use", markup=False)
            return

        if self.text == self._file_text:  # no edit here to lose
            self.load_file()
            return
        confirm_then(
            self.app,
            f"Load {self.override_path} as it is on disk now? The text in the editor goes.",
            self.load_file,
        )

    def load_file(self, *, use: bool = True) -> None:
        """The override file as it is on disk now becomes the text here; ``use``: and the
        template in use again (the caller has done that already otherwise)."""
        now = read_override(self.override_path)
        text = self._file_text
        if now is not None:
            try:
                text = now.decode("utf-8")
            except UnicodeDecodeError as exc:
                self.notify(f"not loaded: {self.override_path}: {exc}", markup=False)
                return
        self._found, self._file_text = now, text
        self._applied = self._tried = text
        self._error = None
        self.query_one("#template-preview", Pane).set_title(self._preview_title())
        self.workers.cancel_group(self, "debounce-template")
        self.query_one(TextArea).load_text(inert(text))
        self.query_one("#template-status", Banner).show(
            f"loaded from disk · ctrl+s saves to {self.override_path}"
        )
        if use:
            self.use_file(None)

    def action_open_external(self) -> None:
        """This template's override file in the user's $EDITOR (the app asks about the
        edit here first); loaded here when the editor exits."""
        self.post_message(TemplateEditRequested(self.template.source.name, external=True))

    @property
    def text(self) -> str:
        return restore(self.query_one(TextArea).text)  # shown inert, kept as written

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if self.text != self._applied:
            debounce(self, "template", self._apply)

    def _apply(self) -> None:
        text = self._tried = self.text

        def report(error: str | None, with_summary: bool) -> None:
            self._show_result(text, error, with_summary)

        if text == self._file_text:  # back to the file: the panes render the file again
            self.use_file(report)
        else:
            self.apply_edit(text, report)

    def _show_result(self, text: str, error: str | None, with_summary: bool = True) -> None:
        if not self.is_attached:  # closed while the template rendered
            return
        if text == self._tried:
            self._error = error
        if error is None:
            self._applied = text
        status = self.query_one("#template-status", Banner)
        kept = bool(error) and text == self._tried
        self.query_one("#template-preview", Pane).set_title(self._preview_title(kept))
        if error:
            status.show(f"{error} — the panes keep the last good render", "error")
        elif with_summary:
            status.show(f"rendered · ctrl+s saves to {self.override_path}")
        else:
            status.show(
                "renders with an empty summary (there is no summary to render yet) · "
                f"ctrl+s saves to {self.override_path}"
            )
        self.file_changed()  # still said while the file differs from what was read
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
        current = read_override(self.override_path)

        def answered(yes: bool | None) -> None:
            if not yes:
                return
            if read_override(self.override_path) != current:  # changed again while asked
                self.action_save_override()
                return
            try:
                atomic_write_text(self.override_path, self.text)
            except OSError as exc:
                message = f"not saved: {write_error(self.override_path, exc)}"
                self.notify(message, severity="error", markup=False)
                return
            self.notify(f"saved override {self.override_path}", markup=False)
            self.use_file(None)
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
