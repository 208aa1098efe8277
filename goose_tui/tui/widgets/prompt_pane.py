"""The input pane: the compaction prompt as the inspector would send it, built and counted off
the event loop, with a search box over it."""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Input
from textual.worker import Worker, WorkerState

from goose_tui.compaction.summarize import CompactionRequest
from goose_tui.inert import inert
from goose_tui.inspector import Inspector
from goose_tui.pieces import Text
from goose_tui.tui.messages import PaneDrawn, WorkerErrorsUp
from goose_tui.tui.widgets.pane import Pane
from goose_tui.tui.widgets.text_viewer import MAX_MATCHES, TextViewer, prompt_highlighter


class PromptPane(WorkerErrorsUp, Pane):
    """``build`` the prompt of the inspector's session; set ``template_origin`` to what the
    border says of the compaction template."""

    template_origin: reactive[str] = reactive("")
    # Whether a built prompt is counted: not before the gauge's first count, which the user
    # waits for and which uses the same token worker.
    counting: reactive[bool] = reactive(False, init=False)

    class Changed(Message):
        """The prompt shown, or its count, changed: what the status line says of the
        request follows."""

    def __init__(self, inspector: Inspector, *, id: str | None = None) -> None:
        super().__init__("input", copy_source=lambda: str(inspector.prompt.text), id=id)
        self.inspector = inspector
        self.request: CompactionRequest | None = None  # the request shown, once built
        self._note_search = False  # Enter in the search box while a big prompt is searched

    def compose(self) -> ComposeResult:
        yield Input(placeholder="search the prompt", id="search")
        yield TextViewer(
            id="input-view", placeholder="loading…", highlighter=prompt_highlighter, wrap=True
        )

    @property
    def viewer(self) -> TextViewer:
        return self.query_one("#input-view", TextViewer)

    # -- the search box ----------------------------------------------------------------------

    def open_search(self) -> None:
        search = self.query_one("#search", Input)
        search.display = True
        search.focus()

    def close_search(self) -> bool:
        """Hide the search box, the prompt taking the focus; False when it was not shown."""
        search = self.query_one("#search", Input)
        if not search.display:
            return False
        search.display = False
        self.viewer.focus()
        return True

    @on(Input.Changed, "#search")
    def _search_changed(self, event: Input.Changed) -> None:
        self.viewer.search = event.value

    @on(Input.Submitted, "#search")
    def _search_submitted(self) -> None:
        viewer = self.viewer
        viewer.focus()
        if viewer.searching:  # a big prompt is searched in a thread: the note when it ends
            self._note_search = True
            self.notify("searching the prompt…", markup=False, timeout=2)
            return
        self.notify(matches_note(len(viewer.matches)), markup=False)

    @on(TextViewer.Searched, "#input-view")
    def _searched(self, event: TextViewer.Searched) -> None:
        if self._note_search:
            self._note_search = False
            self.notify(matches_note(len(event.viewer.matches)), markup=False)

    # -- the prompt --------------------------------------------------------------------------

    def watch_template_origin(self) -> None:
        self.show_title()

    def watch_counting(self, counting: bool) -> None:
        if counting and self.request is not None:
            self.count()

    def show_title(self) -> None:
        self.set_title(self.inspector.prompt_title(), self.template_origin)

    def draw(self, prompt: Text | None = None, note: str = "", placeholder: str = "") -> None:
        """The pane as the inspector has it (after ``prompt`` and its ``note`` if given);
        ``placeholder``, when given, is what an empty pane says instead."""
        if prompt is not None:
            self.inspector.show_prompt(prompt, note)
        if placeholder:
            self.viewer.placeholder = placeholder
        self.viewer.set_text(self.inspector.prompt.text)
        self.show_title()
        self.post_message(self.Changed())
        self.post_message(PaneDrawn("input", self.inspector.prompt.text, placeholder))

    @work(thread=True, exclusive=True, group="prompt", exit_on_error=False)
    def build(self) -> None:
        request = self.inspector.build_request()
        self.app.call_from_thread(self._built, request)

    def _built(self, request: CompactionRequest) -> None:
        self.request = request
        self.draw(request.prompt, "as it will be sent")
        if self.counting:
            self.count()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "prompt" and event.state == WorkerState.ERROR:
            self._failed(event.worker.error)

    def _failed(self, error: BaseException | None) -> None:
        """The prompt cannot be built (a template that fails to render): the pane says so
        and why, in the error modal's words, instead of "building prompt…" for good."""
        from goose_tui.analysis.failures import failure_text  # only when something failed

        reason = " ".join(failure_text(error).split()) if error is not None else "unknown error"
        self.request = None
        placeholder = inert(f"the prompt could not be built: {reason}")
        self.draw("", "the prompt could not be built", placeholder)

    @work(thread=True, exclusive=True, group="prompt-count", exit_on_error=False)
    def count(self) -> None:
        """The prompt's size in tokens, for the title; a compaction that sends this request
        does not count it again (``estimated_tokens`` keeps the count)."""
        request = self.request
        if request is None:
            return
        tokens = request.estimated_tokens()
        self.app.call_from_thread(self._counted, request.prompt, tokens)

    def _counted(self, prompt: Text, tokens: int) -> None:
        if self.inspector.prompt_counted(prompt, tokens):
            self.show_title()
            self.post_message(self.Changed())


def matches_note(count: int) -> str:
    """What a search found, as the notification after Enter says it."""
    if count == 0:
        return "no match"
    if count >= MAX_MATCHES:
        return f"the first {count:,} matches (n / N to move; a longer search narrows it)"
    return f"{count:,} match{'es' if count > 1 else ''} (n / N to move)"
