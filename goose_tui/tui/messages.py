"""What screens, widgets and the command palette ask of the app: messages that bubble up to
``GooseTUI``, which handles each in one place (Textual's "attributes down, messages up").

No screen imports the app, and none reads another screen: a screen holds the ``Inspector``
it was given and posts one of these when the app must act (open a dialog, switch the Goose
version, go back to a message, show a worker's error).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

from textual import on
from textual.message import Message
from textual.message_pump import MessagePump
from textual.worker import Worker, WorkerState

from goose_tui.compaction.profiles import GooseProfile
from goose_tui.compaction.templates import TemplateName
from goose_tui.pieces import Text
from goose_tui.saving import SaveKind


class WorkerFailed(Message):
    """A worker ended with an error: the app shows it in the error modal."""

    def __init__(self, worker: Worker[object]) -> None:
        super().__init__()
        self.worker = worker


class SaveRequested(Message):
    """Open the save dialog for the current session and summary, with ``kind`` chosen."""

    def __init__(self, kind: SaveKind = "json") -> None:
        super().__init__()
        self.kind: SaveKind = kind


class ConfirmRequested(Message):
    """Ask ``question`` (yes or no, No focused) and call ``action`` on yes: for a widget about
    to discard a hand edit."""

    def __init__(self, question: str, action: Callable[[], object]) -> None:
        super().__init__()
        self.question = question
        self.action = action


class TemplateEditRequested(Message):
    """Open the editor on one of the two templates (``external``: the user's $EDITOR on its
    override file)."""

    def __init__(self, name: TemplateName, *, external: bool = False) -> None:
        super().__init__()
        self.name = name
        self.external = external


class GooseProfileRequested(Message):
    """Format the conversation as this Goose version does."""

    def __init__(self, profile: GooseProfile) -> None:
        super().__init__()
        self.profile = profile


class ModelChoiceRequested(Message):
    """Switch the summarizer: offline at once; a reply file or a litellm model is asked for."""

    def __init__(self, kind: Literal["session", "offline", "replay", "litellm"]) -> None:
        super().__init__()
        self.kind = kind


class AuditCompaction(Message):
    """Load the history Goose summarized at past compaction ``number`` (1-based), with
    Goose's summary as the current one."""

    def __init__(self, number: int) -> None:
        super().__init__()
        self.number = number


class ShowMessage(Message):
    """Back to the inspector with message ``index`` selected (``highlight``: also mark these
    messages, for n / N)."""

    def __init__(self, index: int, highlight: Sequence[int] = ()) -> None:
        super().__init__()
        self.index = index
        self.highlight = list(highlight)


class PaneDrawn(Message):
    """The inspector drew the prompt (``input``) or the summary (``markdown``) again: the
    template editor, while open, shows it as its preview. ``placeholder``: what the pane says
    when there is no text (why the prompt could not be built)."""

    def __init__(
        self, pane: Literal["input", "markdown"], text: Text, placeholder: str = ""
    ) -> None:
        super().__init__()
        self.pane: Literal["input", "markdown"] = pane
        self.text = text
        self.placeholder = placeholder


class TemplateOriginsChanged(Message):
    """Which templates are in use changed (a file fixed, broken, loaded again): the template
    editor, while open, names its own as the pane borders do."""

    def __init__(self, compaction: str, summary: str) -> None:
        super().__init__()
        self.compaction = compaction
        self.summary = summary


class WorkerErrorsUp(MessagePump):
    """Mixed into every screen and widget that runs workers. Textual sends a worker's state
    only to the node that started it; this passes each error up as ``WorkerFailed``, so the
    app's one handler turns every worker error of every screen into the error modal."""

    @on(Worker.StateChanged)
    def _worker_error_up(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            self.post_message(WorkerFailed(event.worker))
