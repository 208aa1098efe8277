"""The one protocol every summarizer backend implements. STUB (issue 3, part 2)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, Protocol

from pydantic import BaseModel


class ChatMessage(BaseModel):
    role: Literal["system", "user", "assistant"]
    content: str


class TokenUsage(BaseModel):
    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None


class Completion(BaseModel):
    text: str
    usage: TokenUsage = TokenUsage()
    model: str | None = None


class ContextLengthExceeded(Exception):
    """The request does not fit the model's context window; the ladder moves down a rung."""


class ModelError(Exception):
    """Any other failure of the model call (auth, rate limit, server, network), with a message
    fit to show a user. Never contains an API key."""


OnChunk = Callable[[str], None]


class Summarizer(Protocol):
    """``complete`` is a coroutine so that cancelling the task cancels the call."""

    name: str  # e.g. "offline", "replay:reply.txt", "openai/gpt-4o-mini"

    async def complete(
        self, messages: list[ChatMessage], on_chunk: OnChunk | None = None
    ) -> Completion: ...
