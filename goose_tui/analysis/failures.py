"""How a failure reads to a user where it is shown as text: a failed row of ``batch``, the
app's error modal. The CLI's commands print the same errors the same way (``CliError``)."""

from __future__ import annotations

from goose_tui.analysis.probe_model import ProbeError
from goose_tui.compaction.reply_check import UnusableReply
from goose_tui.compaction.summarize import CompactionFailed
from goose_tui.compaction.templates import TemplateError
from goose_tui.llm.base import ModelError
from goose_tui.session.errors import SessionLoadError

# Errors whose message is written for the user and names what failed (the file and why, the
# model's answer, the template's line); an OSError's names the file and what the system
# refused. Their class names are ours, and say nothing the message does not.
WORDED_ERRORS: tuple[type[BaseException], ...] = (
    SessionLoadError,
    CompactionFailed,
    ModelError,
    TemplateError,
    UnusableReply,
    ProbeError,
    OSError,
)


def failure_text(error: BaseException) -> str:
    """The message of an error worded for the user (a failed compaction's advice on the line
    after it); anything else is a bug of ours, and keeps its type (``KeyError: 'choices'``
    says more than ``'choices'``)."""
    text = str(error).strip()
    if isinstance(error, CompactionFailed) and error.advice:
        return f"{text}\n{error.advice}"
    if text and isinstance(error, WORDED_ERRORS):
        return text
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
