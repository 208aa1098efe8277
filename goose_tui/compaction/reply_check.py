"""Whether a model's reply can stand as a compaction at all.

The pipeline (``summarize``, ``finish``) stays what Goose does: any reply, even an empty
one, becomes the summary (the differential suite compares exactly that with the goose-sdk
wheel). Replacing a whole history with nothing, or with a proxy's HTML error page, loses the
user's work, so the CLI and the app ask this one function before they accept a result."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from goose_tui.compaction.summarize import CompactionResult

# Characters that show nothing: whitespace (str.isspace) plus the zero-width ones.
_INVISIBLE = re.compile(r"[\s\u200b\u200c\u200d\u2060\ufeff]*")
_HTML_START = re.compile(r"\s*(<!doctype\s+html|<html[\s>])", re.IGNORECASE)


class UnusableReply(Exception):
    """A reply ``reply_problem`` refused; the message is its one line."""


def reply_problem(raw_response: str, structured_found: bool) -> str | None:
    """One line saying why the reply is not a usable compaction, or None when it is.

    ``structured_found``: the extraction found a summary object in the reply (then even an
    HTML-looking reply carries a summary)."""
    if _INVISIBLE.fullmatch(raw_response):
        what = "an empty reply" if not raw_response else "a reply of only whitespace"
        return f"the model sent {what}: no summary, so the history was not compacted"
    if not structured_found and _HTML_START.match(raw_response):
        return (
            "the model sent an HTML page instead of a summary (an error page from a proxy "
            "or the server?): the history was not compacted"
        )
    return None


def require_usable(result: CompactionResult) -> None:
    """``reply_problem`` of a compaction's result as an exception: raises ``UnusableReply``
    with its line. Every place that takes a compaction's summary as its own asks this
    (compact, the app, retention, probe, compare, batch), so an empty reply or an error page
    is never scored or kept."""
    problem = reply_problem(result.raw_response, result.extraction.structured is not None)
    if problem is not None:
        raise UnusableReply(problem)
