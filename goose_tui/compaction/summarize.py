"""SPEC §3, §7, §9: build the request, run the overflow ladder, read the reply.
STUB (issue 3, part 1)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

from pydantic import BaseModel

from goose_tui.compaction.extract import Extraction
from goose_tui.compaction.templates import Templates
from goose_tui.llm.base import ChatMessage, OnChunk, Summarizer, TokenUsage
from goose_tui.session.models import Message

SUMMARIZE_REQUEST = "Please summarize the conversation history provided in the system prompt."
LADDER_PERCENTS = (0, 10, 20, 50, 100)


class CompactionRequest(BaseModel):
    system_prompt: str
    messages: list[ChatMessage]  # [system, user request]


class Attempt(BaseModel):
    removed_percent: int
    removed_messages: int
    outcome: Literal["ok", "context_length_exceeded", "error", "cancelled", "running"]
    tokens_sent: int
    error: str | None = None


class CompactionResult(BaseModel):
    model: str
    request: CompactionRequest
    raw_response: str
    extraction: Extraction
    summary: str  # rendered Markdown, or raw_response on fallback
    attempts: list[Attempt]
    usage: TokenUsage  # filled per SPEC §7
    summary_message: Message  # role "user", replaces the history


class CompactionFailed(Exception):
    """The ladder gave up (SPEC §7); ``attempts`` says what was tried."""

    def __init__(self, message: str, attempts: list[Attempt]):
        super().__init__(message)
        self.attempts = attempts


def removal_order(n: int) -> list[int]:
    """Positions 0..n-1 sorted by distance from (n-1)/2, ties to the lower position."""
    raise NotImplementedError


def remove_tool_responses(messages: Sequence[Message], percent: int) -> tuple[list[Message], int]:
    """Drop ``percent``% of the messages that contain a toolResponse, middle out."""
    raise NotImplementedError


def build_request(messages: Sequence[Message], templates: Templates) -> CompactionRequest:
    raise NotImplementedError


def finish(raw_response: str, templates: Templates) -> tuple[Extraction, str]:
    """Extract and render: (extraction, summary text). Used by ``parse`` and by re-rendering."""
    raise NotImplementedError


async def summarize(
    messages: Sequence[Message],
    summarizer: Summarizer,
    templates: Templates,
    *,
    on_attempt: Callable[[Attempt], None] | None = None,
    on_chunk: OnChunk | None = None,
) -> CompactionResult:
    raise NotImplementedError
