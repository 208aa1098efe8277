"""docs/pipeline.md §3 and §7: build the request, run the overflow ladder, read the reply.

Like Goose, only what the agent sees is compacted (``visibility.summarizer_messages``):
messages the agent no longer sees (an earlier compaction's hidden history), turn-context
messages and user-only content items are not the agent's context, so they are not summarized.
The summary message is agent-visible and user-invisible, as Goose marks it: the agent reads it
in place of the history, the user keeps seeing the original messages.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any, Literal

from pydantic import BaseModel, PrivateAttr

from goose_tui.compaction.extract import Extraction, extract_summary
from goose_tui.compaction.profiles import (
    DEFAULT_PROFILE,
    GooseProfile,
    pieces_for_profile,
    templates_for_profile,
)
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
from goose_tui.pieces import Pieces
from goose_tui.session.models import Message, MessageMetadata
from goose_tui.tokens import count_tokens

SUMMARIZE_REQUEST = "Please summarize the conversation history provided in the system prompt."
LADDER_PERCENTS = (0, 10, 20, 50, 100)
# Users search for these phrases; they say what docs/pipeline.md §7 says, in our words.
NOTHING_TO_REMOVE = (
    "Failed to compact: the conversation, with the system prompt and tool schemas, does not "
    "fit the model's usable context window, and there are no tool responses to remove. Use a "
    "model or configuration with a larger usable context, disable some extensions so fewer "
    "tool schemas are sent, or start a new session."
)
# Goose's own error, word for word (crates/goose-context-management/src/summarize.rs, whose
# test compares the whole string), so what a script or a search matches in Goose's output
# matches here too; our advice is kept apart (CompactionFailed.advice).
EXHAUSTED = "Failed to compact: context limit exceeded even after removing all tool responses"
EXHAUSTED_ADVICE = (
    "Use a model or configuration with a larger usable context, or start a new session."
)


class CompactionRequest(BaseModel):
    # The system prompt as the pieces it is the join of (goose_tui.pieces): on a big session
    # nearly all of it is the session's own strings, and a joined copy would double the
    # memory and hold the GIL while it is made. ``system_prompt`` joins it, on first read.
    prompt: Pieces
    _tokens: int | None = PrivateAttr(default=None)
    _counting: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @cached_property
    def system_prompt(self) -> str:
        return str(self.prompt)

    @property
    def messages(self) -> list[ChatMessage]:
        """What is sent: [system, user request]."""
        return [
            ChatMessage(role="system", content=self.prompt),
            ChatMessage(role="user", content=SUMMARIZE_REQUEST),
        ]

    def estimated_tokens(self) -> int:
        """What docs/pipeline.md §7 estimates the input as (``request_tokens``), counted once,
        on first use: seconds of tiktoken on a big session's prompt, which nothing pays for
        unless it reads the figure. Safe to call from several threads."""
        with self._counting:
            if self._tokens is None:
                self._tokens = request_tokens(self)
            return self._tokens

    def __repr__(self) -> str:
        # Short, as CompactionResult's: the prompt is tens of millions of characters on a big
        # session, and a repr is made where nobody reads it (Textual describes a worker by
        # the repr of its arguments).
        return f"CompactionRequest(system_prompt=<{len(self.prompt):,} chars>)"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        # What the request is, not whether it was counted yet (nor its lock).
        if not isinstance(other, CompactionRequest):
            return NotImplemented
        return self.prompt == other.prompt


class Attempt(BaseModel):
    removed_percent: int
    removed_messages: int
    outcome: Literal["ok", "context_length_exceeded", "error", "cancelled", "running"]
    # The request's estimated tokens (CompactionRequest.estimated_tokens), when they were
    # counted: always with ``summarize(estimate_tokens=True)``, never otherwise. None too
    # for a running attempt whose count is not done yet.
    tokens_sent: int | None = None
    error: str | None = None


class CompactionResult(BaseModel):
    model: str
    request: CompactionRequest
    raw_response: str
    extraction: Extraction
    summary: str  # rendered Markdown, or raw_response on fallback
    attempts: list[Attempt]
    # Exactly what the provider reported. Goose's own compact() returns this one: the
    # goose-sdk wheel does not estimate missing counts (tests/differential/test_reference.py).
    reported_usage: TokenUsage = TokenUsage()
    summary_message: Message  # role "user", replaces the history
    focus: str | None = None  # the one-off focus the prompt carried (FOCUS_VARIABLE)

    @property
    def first_request_tokens(self) -> int | None:
        """The first rung's estimated request tokens: what the call was expected to take."""
        return self.attempts[0].tokens_sent if self.attempts else None

    @cached_property
    def usage(self) -> TokenUsage:
        """The usage of docs/pipeline.md §7: as reported, each missing count estimated, on
        first read (``summarize(estimate_tokens=True)`` reads it before returning, off the
        event loop).
        Nothing is counted when the provider reported all three."""
        return fill_usage(self.reported_usage, self.request, self.raw_response)

    def __repr__(self) -> str:
        # Short on purpose: the full repr holds the whole prompt twice (tens of millions of
        # characters on a big session), and Python 3.11's asyncio.run formats the repr of
        # the task's result when it runs with the default SIGINT handler.
        return (
            f"CompactionResult(model={self.model!r}, "
            f"system_prompt=<{len(self.request.prompt):,} chars>, "
            f"raw_response=<{len(self.raw_response):,} chars>, "
            f"summary=<{len(self.summary):,} chars>, fallback={self.extraction.fallback}, "
            f"attempts={[(a.removed_percent, a.outcome) for a in self.attempts]}, "
            f"reported_usage={self.reported_usage!r})"
        )

    __str__ = __repr__


class CompactionFailed(Exception):
    """The ladder gave up (docs/pipeline.md §7); ``attempts`` says what was tried. The
    message is the error as Goose words it; ``advice``, when there is any, is what to do
    about it, shown after it (analysis.failures.failure_text)."""

    def __init__(self, message: str, attempts: list[Attempt], advice: str | None = None):
        super().__init__(message)
        self.attempts = attempts
        self.advice = advice


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
    return _build_attempt(summarizer_messages(messages), 0, templates, focus, profile)[1]


def request_tokens(request: CompactionRequest) -> int:
    """What docs/pipeline.md §7 estimates the input as: the system prompt plus the request (counted
    every call; ``CompactionRequest.estimated_tokens`` counts once)."""
    return count_tokens(Pieces([*request.prompt.parts, SUMMARIZE_REQUEST]))


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


def fill_usage(reported: TokenUsage, request: CompactionRequest, raw_response: str) -> TokenUsage:
    """Keep what the provider reported; estimate each missing count (docs/pipeline.md §7),
    counting only what is missing. A count that fails (out of memory on a huge prompt) stays
    unknown: the summary the model wrote is worth more than an estimate of its cost."""
    input_tokens = reported.input_tokens
    if input_tokens is None:
        input_tokens = _estimate(request.estimated_tokens)
    output_tokens = reported.output_tokens
    if output_tokens is None:
        output_tokens = _estimate(lambda: count_tokens(raw_response))
    total = reported.total_tokens
    if total is None and input_tokens is not None and output_tokens is not None:
        total = input_tokens + output_tokens
    return TokenUsage(input_tokens=input_tokens, output_tokens=output_tokens, total_tokens=total)


def _estimate(count: Callable[[], int]) -> int | None:
    try:
        return count()
    except Exception:
        return None


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
    """One rung's request, for messages already cut to what the summarizer receives:
    (messages removed, the request)."""
    kept, removed = remove_tool_responses(history, percent)
    # The conversation's pieces go into the prompt in one join (engine.Pieces).
    conversation = Pieces(pieces_for_profile(kept, profile))
    templates = templates_for_profile(templates, profile)
    return removed, CompactionRequest(
        prompt=render_compaction_prompt(templates, conversation, focus)
    )


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
    estimate_tokens: bool = False,
) -> CompactionResult:
    """Run the ladder of docs/pipeline.md §7. Raises ``CompactionFailed`` when every rung overflows
    (or the first does with nothing to remove); any other model error propagates unchanged, and so
    does cancellation. ``on_attempt`` sees each attempt when it starts (before any chunk of its
    reply), when its tokens are counted, and when it ends. ``finish`` (extraction and the summary
    template) runs in a thread: a slow summary template must not hold the event loop. ``focus`` is
    the user's one-off instruction for this summary (FOCUS_VARIABLE). ``first_request``: the first
    rung's request when the caller has built it already (``build_request`` of the same messages,
    templates, focus and profile; the app shows it in its input pane): not built again, since a big
    session's prompt is slow to build.

    ``estimate_tokens``: count each request's tokens while it is on its way (the attempts'
    ``tokens_sent``, which the app shows) and the usage the provider did not report, all
    before returning. Off, nothing is counted unless ``result.usage`` is read and needs an
    estimate: counting a big prompt costs seconds of CPU, which Goose does not spend when the
    provider reports its usage."""
    # Imported here, not with the module: the pipeline's import stays free of asyncio.
    import asyncio

    attempts: list[Attempt] = []
    cut: list[list[Message]] = []  # what the summarizer receives, once a rung needs it

    async def history() -> list[Message]:
        # A pass over every message: in a thread, and only when a request
        # is built here (rung 0 of a caller's first_request does not need it).
        if not cut:
            cut.append(await asyncio.to_thread(summarizer_messages, messages))
        return cut[0]

    def report(attempt: Attempt) -> None:
        if attempts and attempts[-1].outcome == "running":
            attempts[-1] = attempt
        else:
            attempts.append(attempt)
        if on_attempt is not None:
            on_attempt(attempt)

    for percent in LADDER_PERCENTS:
        # Building (and counting) the prompt takes seconds on a big session: in threads, so
        # an event loop running this (the app's) keeps drawing meanwhile.
        if percent == 0 and first_request is not None:
            removed, request = 0, first_request  # rung 0 removes nothing: build_request's
        else:
            removed, request = await asyncio.to_thread(
                _build_attempt, await history(), percent, templates, focus, profile
            )
        running = Attempt(removed_percent=percent, removed_messages=removed, outcome="running")
        report(running)
        counting: asyncio.Future[int] | None = None
        if estimate_tokens:
            # Counted while the request is on its way (tiktoken leaves the GIL to the
            # exchange); the running attempt is reported again with the figure.
            counting = asyncio.ensure_future(asyncio.to_thread(request.estimated_tokens))

            def counted(done: asyncio.Future[int], rung: Attempt = running) -> None:
                tokens = _count_of(done)
                if tokens is not None and attempts[-1] is rung:
                    report(rung.model_copy(update={"tokens_sent": tokens}))

            counting.add_done_callback(counted)

        completion: Completion
        try:
            completion = await summarizer.complete(request.messages, on_chunk)
        except ContextLengthExceeded as exc:
            # The size of the request that did not fit is worth its wait.
            await _settled(counting)
            report(_ended(running, counting, outcome="context_length_exceeded", error=str(exc)))
            # Asked only on an overflow, since it is a pass over every message.
            if not any(m.has_tool_response() for m in await history()):
                raise CompactionFailed(NOTHING_TO_REMOVE, attempts) from exc
            continue
        except Exception as exc:
            _drop(counting)
            report(_ended(running, counting, outcome="error", error=str(exc)))
            raise
        except BaseException:
            # asyncio.CancelledError (or an interrupt); named this way so importing the
            # pipeline does not import asyncio, a tenth of a second of start-up here. A
            # cancel does not wait for the count.
            _drop(counting)
            report(_ended(running, counting, outcome="cancelled", error="cancelled"))
            raise
        await _settled(counting)
        report(_ended(running, counting, outcome="ok"))
        # All of it in a thread: a long reply's token estimate would hold the event loop.
        return await asyncio.to_thread(
            _result,
            summarizer.name,
            request,
            completion,
            templates,
            attempts,
            focus,
            estimate_tokens,
        )
    raise CompactionFailed(EXHAUSTED, attempts, EXHAUSTED_ADVICE)


async def _settled(counting: Any) -> None:
    """Wait for a count to end, however it ends (a failed count loses no summary)."""
    if counting is not None:
        import asyncio

        await asyncio.wait([counting])


def _ended(running: Attempt, counting: Any, **outcome: Any) -> Attempt:
    """A running attempt's last report: its outcome, and its tokens if they were counted."""
    return running.model_copy(update={**outcome, "tokens_sent": _count_of(counting)})


def _count_of(counting: Any) -> int | None:
    """A count's figure, if it has ended with one."""
    if counting is None or not counting.done() or counting.cancelled():
        return None
    return None if counting.exception() is not None else counting.result()


def _drop(counting: Any) -> None:
    """Stop waiting for a count (its thread finishes on its own)."""
    if counting is not None and not counting.done():
        counting.cancel()
        counting.add_done_callback(_retrieve)


def _result(
    model: str,
    request: CompactionRequest,
    completion: Completion,
    templates: Templates,
    attempts: list[Attempt],
    focus: str | None,
    estimate_tokens: bool,
) -> CompactionResult:
    raw = completion.text
    extraction, summary = finish(raw, templates)
    result = CompactionResult(
        model=model,
        request=request,
        raw_response=raw,
        extraction=extraction,
        summary=summary,
        attempts=attempts,
        reported_usage=completion.usage,
        summary_message=summary_message(summary),
        focus=(focus or "").strip() or None,
    )
    if estimate_tokens:
        result.usage  # noqa: B018 - estimated here, in this thread, not where it is read
    return result
