"""SPEC §3 and §7: build the request, run the overflow ladder, read the reply.

Like Goose, only what the agent sees is compacted (``visibility.summarizer_messages``):
messages the agent no longer sees (an earlier compaction's hidden history), turn-context
messages and user-only content items are not the agent's context, so they are not summarized.
The summary message is agent-visible and user-invisible, as Goose marks it: the agent reads it
in place of the history, the user keeps seeing the original messages.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, Literal

from pydantic import BaseModel

from goose_tui.compaction.engine import Pieces
from goose_tui.compaction.extract import Extraction, extract_summary
from goose_tui.compaction.profiles import DEFAULT_PROFILE, GooseProfile, pieces_for_profile
from goose_tui.compaction.templates import (
    TemplateError,
    Templates,
    render_compaction_prompt,
    render_summary,
)
from goose_tui.compaction.visibility import summarizer_messages
from goose_tui.llm.base import (
    ChatMessage,
    Completion,
    ContextLengthExceeded,
    OnChunk,
    Summarizer,
    TokenUsage,
)
from goose_tui.session.models import Message, MessageMetadata
from goose_tui.tokens import count_tokens, count_tokens_joined

SUMMARIZE_REQUEST = "Please summarize the conversation history provided in the system prompt."
LADDER_PERCENTS = (0, 10, 20, 50, 100)
# Users search for these phrases; they say what SPEC §7 says, in our words.
NOTHING_TO_REMOVE = (
    "Failed to compact: the conversation, with the system prompt and tool schemas, does not "
    "fit the model's usable context window, and there are no tool responses to remove. Use a "
    "model or configuration with a larger usable context, disable some extensions so fewer "
    "tool schemas are sent, or start a new session."
)
# The first line is Goose's own error, word for word (crates/goose-context-management/src/
# summarize.rs), so a search for what Goose printed finds this too; our advice follows.
EXHAUSTED = (
    "Failed to compact: context limit exceeded even after removing all tool responses\n"
    "Use a model or configuration with a larger usable context, or start a new session."
)


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
    # Exactly what the provider reported. Goose's own compact() returns this one: the
    # goose-sdk wheel does not estimate missing counts (tests/differential/test_reference.py).
    reported_usage: TokenUsage = TokenUsage()
    summary_message: Message  # role "user", replaces the history
    focus: str | None = None  # the one-off focus the prompt carried (FOCUS_VARIABLE)

    def __repr__(self) -> str:
        # Short on purpose: the full repr holds the whole prompt twice (tens of millions of
        # characters on a big session), and Python 3.11's asyncio.run formats the repr of
        # the task's result when it runs with the default SIGINT handler.
        return (
            f"CompactionResult(model={self.model!r}, "
            f"system_prompt=<{len(self.request.system_prompt):,} chars>, "
            f"raw_response=<{len(self.raw_response):,} chars>, "
            f"summary=<{len(self.summary):,} chars>, fallback={self.extraction.fallback}, "
            f"attempts={[(a.removed_percent, a.outcome) for a in self.attempts]}, "
            f"usage={self.usage!r})"
        )


class CompactionFailed(Exception):
    """The ladder gave up (SPEC §7); ``attempts`` says what was tried."""

    def __init__(self, message: str, attempts: list[Attempt]):
        super().__init__(message)
        self.attempts = attempts


def removal_order(n: int) -> list[int]:
    """Positions 0..n-1 sorted by distance from (n-1)/2, ties to the lower position."""
    middle = (n - 1) / 2
    return sorted(range(n), key=lambda i: (abs(i - middle), i))


def remove_tool_responses(messages: Sequence[Message], percent: int) -> tuple[list[Message], int]:
    """Drop ``percent``% of the messages that contain a toolResponse, middle out."""
    positions = [i for i, m in enumerate(messages) if m.has_tool_response()]
    n = len(positions)
    if percent <= 0 or n == 0:
        return list(messages), 0
    count = min(max(n * percent // 100, 1), n)
    dropped = {positions[k] for k in removal_order(n)[:count]}
    return [m for i, m in enumerate(messages) if i not in dropped], count


def build_request(
    messages: Sequence[Message],
    templates: Templates,
    focus: str | None = None,
    profile: GooseProfile = DEFAULT_PROFILE,
) -> CompactionRequest:
    """The request for a session's messages, as the Goose version ``profile`` builds it
    (profiles.py): first cut to what the summarizer receives."""
    return _request(summarizer_messages(messages), templates, focus, profile)


def _request(
    visible: Sequence[Message],
    templates: Templates,
    focus: str | None = None,
    profile: GooseProfile = DEFAULT_PROFILE,
) -> CompactionRequest:
    """The request for messages already cut to what the summarizer receives."""
    # The conversation's pieces go into the prompt in one join (engine.Pieces).
    conversation = Pieces(pieces_for_profile(visible, profile))
    system_prompt = render_compaction_prompt(templates, conversation, focus)
    return CompactionRequest(
        system_prompt=system_prompt,
        messages=[
            ChatMessage(role="system", content=system_prompt),
            ChatMessage(role="user", content=SUMMARIZE_REQUEST),
        ],
    )


def request_tokens(request: CompactionRequest) -> int:
    """What SPEC §7 estimates the input as: the system prompt plus the request."""
    return count_tokens_joined(request.system_prompt, SUMMARIZE_REQUEST)


def finish(raw_response: str, templates: Templates) -> tuple[Extraction, str]:
    """Extract and render: (extraction, summary text). Used by ``parse`` and by re-rendering."""
    extraction = extract_summary(raw_response)
    if extraction.structured is None:
        return extraction, raw_response  # nothing is ever lost: the reply is the summary
    # Goose answers a summary template that fails, or renders nothing, with the raw reply
    # (tests/differential/test_findings.py): a broken template must not lose the summary.
    try:
        rendered = render_summary(templates, extraction.structured)
    except TemplateError as exc:
        if exc.kind in ("crash", "budget"):
            # Goose's compaction fails here (its engine panics) or never ends (no budget):
            # there is no summary to keep, so the error is raised with its reason.
            raise
        reason = f"the summary template failed, so the raw reply is kept: {exc}"
    else:
        if rendered:
            return extraction, rendered
        reason = "the summary template rendered nothing, so the raw reply is kept"
    return extraction.model_copy(update={"structured": None, "fallback_reason": reason}), (
        raw_response
    )


def fill_usage(reported: TokenUsage, tokens_sent: int, raw_response: str) -> TokenUsage:
    """Keep what the provider reported; estimate each missing count (SPEC §7). The input
    estimate is the attempt's ``tokens_sent``, already counted for this very request."""
    input_tokens = reported.input_tokens
    if input_tokens is None:
        input_tokens = tokens_sent
    output_tokens = reported.output_tokens
    if output_tokens is None:
        output_tokens = count_tokens(raw_response)
    total = reported.total_tokens
    if total is None:
        total = input_tokens + output_tokens
    return TokenUsage(input_tokens=input_tokens, output_tokens=output_tokens, total_tokens=total)


def _finish_reply(
    raw: str, templates: Templates, reported: TokenUsage, tokens_sent: int
) -> tuple[Extraction, str, TokenUsage, Message]:
    extraction, summary = finish(raw, templates)
    return extraction, summary, fill_usage(reported, tokens_sent, raw), summary_message(summary)


def summary_message(summary: str) -> Message:
    return Message(
        role="user",
        created=int(time.time()),
        content=[{"type": "text", "text": summary}],
        metadata=MessageMetadata(user_visible=False, agent_visible=True),
    )


def _build_attempt(
    history: Sequence[Message],
    percent: int,
    templates: Templates,
    focus: str | None,
    profile: GooseProfile = DEFAULT_PROFILE,
) -> tuple[int, CompactionRequest]:
    """One rung's request: (messages removed, the request)."""
    kept, removed = remove_tool_responses(history, percent)
    return removed, _request(kept, templates, focus, profile)


class _ChunkSink:
    """Holds the reply's chunks back until the attempt they belong to is reported."""

    def __init__(self, on_chunk: OnChunk | None):
        self.on_chunk = on_chunk
        self.held: list[str] | None = []

    def __call__(self, chunk: str) -> None:
        if self.held is None:
            assert self.on_chunk is not None
            self.on_chunk(chunk)
        else:
            self.held.append(chunk)

    def open(self) -> None:
        held, self.held = self.held, None
        if self.on_chunk is not None:
            for chunk in held or ():
                self.on_chunk(chunk)


def _retrieve(task: Any) -> None:
    """Read a dropped task's outcome, so asyncio does not log it as never retrieved."""
    if not task.cancelled():
        task.exception()


async def summarize(
    messages: Sequence[Message],
    summarizer: Summarizer,
    templates: Templates,
    *,
    on_attempt: Callable[[Attempt], None] | None = None,
    on_chunk: OnChunk | None = None,
    focus: str | None = None,
    profile: GooseProfile = DEFAULT_PROFILE,
    first_request: CompactionRequest | None = None,
) -> CompactionResult:
    """Run the ladder of SPEC §7. Raises ``CompactionFailed`` when every rung overflows (or
    the first does with nothing to remove); any other model error propagates unchanged, and
    so does cancellation. ``on_attempt`` sees each attempt when it starts and when it ends.
    ``finish`` (extraction and the summary template) runs in a thread: a slow summary
    template must not hold the event loop. ``focus`` is the user's one-off instruction for
    this summary (FOCUS_VARIABLE). ``first_request``: the first rung's request when the
    caller has built it already (``build_request`` of the same messages, templates, focus
    and profile; the app shows it in its input pane): not built again (formatting and
    rendering a 53 MB session's prompt is ~1 s)."""
    history = summarizer_messages(messages)
    has_tool_responses = any(m.has_tool_response() for m in history)
    attempts: list[Attempt] = []

    def report(attempt: Attempt) -> None:
        if attempts and attempts[-1].outcome == "running":
            attempts[-1] = attempt
        else:
            attempts.append(attempt)
        if on_attempt is not None:
            on_attempt(attempt)

    # Imported here, not with the module: the pipeline's import stays free of asyncio.
    import asyncio

    for percent in LADDER_PERCENTS:
        # Building and counting the prompt takes seconds on a big session: in threads, so
        # an event loop running this (the app's) keeps drawing meanwhile. The estimate is
        # counted while the request is on its way (tiktoken leaves the GIL to the exchange);
        # the attempt is reported, then the chunks that came meanwhile are delivered, in
        # the order they always came: attempt first.
        if percent == 0 and first_request is not None:
            removed, request = 0, first_request  # rung 0 removes nothing: build_request's
        else:
            removed, request = await asyncio.to_thread(
                _build_attempt, history, percent, templates, focus, profile
            )
        counting = asyncio.ensure_future(asyncio.to_thread(request_tokens, request))
        sink = _ChunkSink(on_chunk)
        calling = asyncio.ensure_future(
            summarizer.complete(request.messages, sink if on_chunk is not None else None)
        )
        try:
            tokens_sent = await asyncio.shield(counting)
        except BaseException:
            calling.cancel()
            calling.add_done_callback(_retrieve)
            if counting.done() and not counting.cancelled() and counting.exception():
                raise  # the count itself failed
            # Cancelled while counting, the request already on its way: recorded as a
            # cancel during the request always was (running, then cancelled).
            running = Attempt(
                removed_percent=percent,
                removed_messages=removed,
                outcome="running",
                tokens_sent=await counting,
            )
            report(running)
            sink.open()
            report(running.model_copy(update={"outcome": "cancelled", "error": "cancelled"}))
            raise
        running = Attempt(
            removed_percent=percent,
            removed_messages=removed,
            outcome="running",
            tokens_sent=tokens_sent,
        )
        report(running)
        sink.open()
        completion: Completion
        try:
            completion = await calling
        except ContextLengthExceeded as exc:
            outcome = {"outcome": "context_length_exceeded", "error": str(exc)}
            report(running.model_copy(update=outcome))
            if not has_tool_responses:
                raise CompactionFailed(NOTHING_TO_REMOVE, attempts) from exc
            continue
        except Exception as exc:
            report(running.model_copy(update={"outcome": "error", "error": str(exc)}))
            raise
        except BaseException:
            # asyncio.CancelledError (or an interrupt); named this way so importing the
            # pipeline does not import asyncio, a tenth of a second of start-up here.
            report(running.model_copy(update={"outcome": "cancelled", "error": "cancelled"}))
            raise
        report(running.model_copy(update={"outcome": "ok"}))
        raw = completion.text
        # All of it in a thread: a long reply's token estimate alone was 46 ms of the loop.
        extraction, summary, usage, message = await asyncio.to_thread(
            _finish_reply, raw, templates, completion.usage, running.tokens_sent
        )
        return CompactionResult(
            model=summarizer.name,
            request=request,
            raw_response=raw,
            extraction=extraction,
            summary=summary,
            attempts=attempts,
            usage=usage,
            reported_usage=completion.usage,
            summary_message=message,
            focus=(focus or "").strip() or None,
        )
    raise CompactionFailed(EXHAUSTED, attempts)
