"""The one protocol every summarizer backend implements (litellm, replay, offline), and the
messages, usage and errors they exchange with the pipeline."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Literal, Protocol

from pydantic import BaseModel, WithJsonSchema

from goose_tui.pieces import Pieces


class ChatMessage(BaseModel):
    role: Literal["system", "user", "assistant"]
    # The system prompt comes as Pieces (goose_tui.pieces): a backend that needs one string
    # joins it (str()), the litellm worker sends it piece by piece. Dumped as the string.
    content: Annotated[str | Pieces, WithJsonSchema({"type": "string"})]


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


class UnknownModel(ModelError):
    """The model string names no provider litellm knows: refused before any request, so it
    is the user's input that is unusable (the CLI's exit 2), not a call that failed."""


OnChunk = Callable[[str], None]

# No summary comes near this (a model's whole output limit is a few hundred thousand
# characters); a reply that passes it is a runaway or a hostile server: reading stops there
# and the call fails (no part of it is kept as a summary).
MAX_REPLY_CHARS = 2_000_000
# How long a model call may take, in seconds, unless --timeout or the settings file says.
DEFAULT_TIMEOUT = 120.0


def reply_too_long(limit: int = MAX_REPLY_CHARS) -> ModelError:
    return ModelError(
        # Said of the call, not the compaction: a probe's answer meets the same cap.
        f"the reply passed {limit:,} characters (far more than any summary), "
        "so the call failed and nothing was produced"
    )


class Summarizer(Protocol):
    """``complete`` is a coroutine so that cancelling the task cancels the call."""

    name: str  # e.g. "offline", "replay:reply.txt", "openai/gpt-4o-mini"

    async def complete(
        self, messages: list[ChatMessage], on_chunk: OnChunk | None = None
    ) -> Completion: ...
