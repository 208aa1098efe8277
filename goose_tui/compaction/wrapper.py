"""docs/pipeline.md §9: a completion call that compacts its history once when it overflows."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from goose_tui.compaction.summarize import CompactionResult, summarize
from goose_tui.compaction.templates import Templates
from goose_tui.llm.base import ContextLengthExceeded, Summarizer
from goose_tui.session.models import Message

T = TypeVar("T")


@dataclass
class CompactedCall(Generic[T]):
    """What ``complete_with_compaction`` returns: the call's result, the history it was made
    with (the original, or the single summary message), and the compaction if one ran."""

    value: T
    messages: list[Message]
    compaction: CompactionResult | None = None


async def complete_with_compaction(
    messages: Sequence[Message],
    call: Callable[[list[Message]], Awaitable[T]],
    summarizer: Summarizer,
    templates: Templates,
) -> CompactedCall[T]:
    """Run ``call(messages)``. On a context-length error, summarize the history, replace it
    with the summary message and call once more; a second overflow, and any other error,
    propagates (as does ``CompactionFailed`` from the summarizer)."""
    history = list(messages)
    try:
        return CompactedCall(await call(history), history, None)
    except ContextLengthExceeded:
        pass  # handled below, outside the except block, so a new error is not chained to it
    result = await summarize(history, summarizer, templates)
    compacted = [result.summary_message]
    return CompactedCall(await call(compacted), compacted, result)
