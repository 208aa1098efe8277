"""docs/pipeline.md §3 and §7: the request, the overflow ladder, usage, the summary message.

The model here is ``ScriptedModel``, an in-process fake of a summarizer: each call takes the
next scripted outcome (a reply or an exception) and records the messages it was sent. The
templates, formatter, extractor and token counter are the real ones. The real HTTP path is in
test_llm_litellm.py.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from goose_tui.compaction.format import format_message_for_compacting
from goose_tui.compaction.summarize import (
    EXHAUSTED,
    LADDER_PERCENTS,
    NOTHING_TO_REMOVE,
    SUMMARIZE_REQUEST,
    Attempt,
    CompactionFailed,
    build_request,
    finish,
    removal_order,
    remove_tool_responses,
    summarize,
)
from goose_tui.compaction.templates import Templates, load_templates
from goose_tui.llm.base import (
    ChatMessage,
    Completion,
    ContextLengthExceeded,
    ModelError,
    OnChunk,
    TokenUsage,
)
from goose_tui.pieces import Pieces
from goose_tui.session.models import Message, MessageMetadata
from goose_tui.tokens import count_tokens

GOOD_REPLY = (
    "<analysis>\n- goal\n</analysis>\n```json\n"
    + json.dumps({"user_intent": ["fix the bug"], "current_work": "editing calc.py"})
    + "\n```"
)


class ScriptedModel:
    """A fake model: replies or raises as scripted, one outcome per call."""

    name = "scripted"

    def __init__(self, *outcomes: str | BaseException | Completion):
        self.outcomes = list(outcomes)
        self.calls: list[list[ChatMessage]] = []

    async def complete(
        self, messages: list[ChatMessage], on_chunk: OnChunk | None = None
    ) -> Completion:
        self.calls.append(messages)
        outcome = self.outcomes[min(len(self.calls), len(self.outcomes)) - 1]
        if isinstance(outcome, BaseException):
            raise outcome
        completion = outcome if isinstance(outcome, Completion) else Completion(text=outcome)
        if on_chunk is not None:
            on_chunk(completion.text)
        return completion


def text(role: str, body: str, **meta: bool) -> Message:
    return Message(
        role=role, content=[{"type": "text", "text": body}], metadata=MessageMetadata(**meta)
    )


def tool_pair(i: int) -> list[Message]:
    request = {
        "type": "toolRequest",
        "id": f"call{i}",
        "toolCall": {"status": "success", "value": {"name": "shell", "arguments": {"n": i}}},
    }
    response = {
        "type": "toolResponse",
        "id": f"call{i}",
        "toolResult": {
            "status": "success",
            "value": {"content": [{"type": "text", "text": f"output {i}"}], "isError": False},
        },
    }
    return [Message(role="assistant", content=[request]), Message(role="user", content=[response])]


def session_with_tools(n: int) -> list[Message]:
    messages = [text("user", "please run the tools")]
    for i in range(n):
        messages += tool_pair(i)
    return messages + [text("assistant", "all done")]


@pytest.fixture(scope="module")
def templates() -> Templates:
    return load_templates(None)


@pytest.mark.parametrize(
    ("n", "order"),
    [
        (0, []),
        (1, [0]),
        (2, [0, 1]),
        (3, [1, 0, 2]),
        (4, [1, 2, 0, 3]),
        (5, [2, 1, 3, 0, 4]),
        (6, [2, 3, 1, 4, 0, 5]),
        (7, [3, 2, 4, 1, 5, 0, 6]),
    ],
)
def test_removal_order_is_middle_out_ties_to_the_lower(n: int, order: list[int]) -> None:
    assert removal_order(n) == order


@pytest.mark.parametrize(
    ("n", "percent", "removed", "outputs_gone"),
    [
        (10, 0, 0, []),
        (10, 10, 1, [4]),
        (10, 20, 2, [4, 5]),
        (10, 50, 5, [2, 3, 4, 5, 6]),
        (10, 100, 10, list(range(10))),
        (3, 10, 1, [1]),  # floor(0.3) = 0, at least one
        (3, 50, 1, [1]),
        (4, 50, 2, [1, 2]),
        (0, 50, 0, []),
    ],
)
def test_remove_tool_responses(n: int, percent: int, removed: int, outputs_gone: list[int]) -> None:
    messages = session_with_tools(n)
    kept, count = remove_tool_responses(messages, percent)
    assert count == removed
    assert len(kept) == len(messages) - removed
    text_of_kept = "\n".join(format_message_for_compacting(m) for m in kept)
    for i in range(n):
        assert (f"output {i}" in text_of_kept) is (i not in outputs_gone)
        assert f'"n":{i}' in text_of_kept  # the tool requests all stay


def test_build_request_is_the_system_prompt_and_one_request(templates: Templates) -> None:
    messages = [text("user", "hello"), text("assistant", "hi there")]
    request = build_request(messages, templates)
    assert "[user]: hello\n[assistant]: hi there" in request.system_prompt
    assert [m.model_dump() for m in request.messages] == [
        {"role": "system", "content": request.system_prompt},
        {"role": "user", "content": SUMMARIZE_REQUEST},
    ]


def test_agent_invisible_messages_are_not_compacted(templates: Templates) -> None:
    messages = [text("user", "old hidden history", agentVisible=False), text("user", "visible")]
    prompt = build_request(messages, templates).system_prompt
    assert "visible" in prompt and "old hidden history" not in prompt


@pytest.mark.parametrize("estimate", [False, True])
async def test_first_try_success(templates: Templates, estimate: bool) -> None:
    model = ScriptedModel(GOOD_REPLY)
    seen: list[Attempt] = []
    chunks: list[str] = []
    result = await summarize(
        session_with_tools(3),
        model,
        templates,
        on_attempt=seen.append,
        on_chunk=chunks.append,
        estimate_tokens=estimate,
    )
    assert len(model.calls) == 1
    tokens = count_tokens(result.request.system_prompt + SUMMARIZE_REQUEST)
    # Counted, the running attempt is reported again with its tokens, before it ends.
    assert [(a.removed_percent, a.outcome, a.tokens_sent) for a in seen] == [
        (0, "running", None),
        *([(0, "running", tokens)] if estimate else []),
        (0, "ok", tokens if estimate else None),
    ]
    assert [(a.removed_percent, a.removed_messages, a.outcome) for a in result.attempts] == [
        (0, 0, "ok")
    ]
    assert "".join(chunks) == GOOD_REPLY == result.raw_response
    assert not result.extraction.fallback
    assert result.summary.startswith("# Conversation Summary")
    assert "fix the bug" in result.summary
    assert result.model == "scripted"


async def test_summary_message_is_a_user_message_only_the_agent_sees(
    templates: Templates,
) -> None:
    result = await summarize([text("user", "hello")], ScriptedModel(GOOD_REPLY), templates)
    message = result.summary_message
    assert message.role == "user"
    assert message.content == [{"type": "text", "text": result.summary}]
    assert message.metadata.agent_visible and not message.metadata.user_visible


async def test_fallback_keeps_the_raw_reply(templates: Templates) -> None:
    raw = "Sorry, here is prose and {broken json"
    result = await summarize([text("user", "hello")], ScriptedModel(raw), templates)
    assert result.extraction.fallback
    assert result.summary == raw
    assert finish(raw, templates)[1] == raw


async def test_ladder_walks_down_until_it_fits(templates: Templates) -> None:
    overflow = ContextLengthExceeded("too long")
    model = ScriptedModel(overflow, overflow, overflow, GOOD_REPLY)
    seen: list[Attempt] = []
    result = await summarize(
        session_with_tools(10), model, templates, on_attempt=seen.append, estimate_tokens=True
    )
    assert len(model.calls) == 4
    assert [(a.removed_percent, a.removed_messages, a.outcome) for a in result.attempts] == [
        (0, 0, "context_length_exceeded"),
        (10, 1, "context_length_exceeded"),
        (20, 2, "context_length_exceeded"),
        (50, 5, "ok"),
    ]
    assert [a.outcome for a in seen] == ["running", "running", "context_length_exceeded"] * 3 + [
        "running",
        "running",
        "ok",
    ]
    # Each rung really sends less: the middle tool outputs go first.
    prompts = [str(call[0].content) for call in model.calls]
    assert "output 4" in prompts[0] and "output 4" not in prompts[1]
    assert "output 5" in prompts[1] and "output 5" not in prompts[2]
    assert [a.tokens_sent for a in result.attempts] == sorted(
        (a.tokens_sent for a in result.attempts), reverse=True
    )
    assert result.request.system_prompt == prompts[-1]


async def test_all_rungs_overflow_after_five_requests(templates: Templates) -> None:
    model = ScriptedModel(ContextLengthExceeded("too long"))
    with pytest.raises(CompactionFailed) as caught:
        await summarize(session_with_tools(4), model, templates)
    assert len(model.calls) == len(LADDER_PERCENTS) == 5
    assert str(caught.value) == EXHAUSTED
    assert "context limit exceeded even after removing all tool responses" in str(caught.value)
    assert [(a.removed_percent, a.removed_messages) for a in caught.value.attempts] == [
        (0, 0),
        (10, 1),
        (20, 1),
        (50, 2),
        (100, 4),
    ]
    assert {a.outcome for a in caught.value.attempts} == {"context_length_exceeded"}
    assert not any(f"output {i}" in str(model.calls[-1][0].content) for i in range(4))


async def test_nothing_to_remove_fails_after_one_request(templates: Templates) -> None:
    model = ScriptedModel(ContextLengthExceeded("too long"))
    with pytest.raises(CompactionFailed) as caught:
        await summarize([text("user", "hello"), text("assistant", "hi")], model, templates)
    assert len(model.calls) == 1
    message = str(caught.value)
    assert message == NOTHING_TO_REMOVE
    for words in ("no tool responses to remove", "larger usable context", "extensions"):
        assert words in message
    assert "new session" in message
    assert [a.outcome for a in caught.value.attempts] == ["context_length_exceeded"]


async def test_other_errors_are_raised_at_once(templates: Templates) -> None:
    model = ScriptedModel(ModelError("HTTP 401"))
    seen: list[Attempt] = []
    with pytest.raises(ModelError, match="HTTP 401"):
        await summarize(session_with_tools(5), model, templates, on_attempt=seen.append)
    assert len(model.calls) == 1
    assert [(a.outcome, a.error) for a in seen] == [("running", None), ("error", "HTTP 401")]


class StallingModel:
    """A model whose call never ends, but by a cancel."""

    name = "stalling"

    def __init__(self) -> None:
        self.started = asyncio.Event()

    async def complete(self, messages: list[ChatMessage], on_chunk=None) -> Completion:
        self.started.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


async def test_cancel_is_recorded_and_propagates(templates: Templates) -> None:
    model = StallingModel()
    seen: list[Attempt] = []
    task = asyncio.create_task(
        summarize([text("user", "hello")], model, templates, on_attempt=seen.append)
    )
    await model.started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert [a.outcome for a in seen] == ["running", "cancelled"]


@pytest.mark.parametrize(
    ("reported", "kept"),
    [
        (TokenUsage(input_tokens=100, output_tokens=20, total_tokens=120), (100, 20, 120)),
        (TokenUsage(input_tokens=100, output_tokens=20), (100, 20, 120)),
        (TokenUsage(input_tokens=100, output_tokens=20, total_tokens=999), (100, 20, 999)),
        (TokenUsage(input_tokens=100), (100, None, None)),
        (TokenUsage(), (None, None, None)),
    ],
)
@pytest.mark.parametrize("estimate", [False, True])
async def test_usage_is_kept_and_missing_counts_estimated(
    templates: Templates, reported: TokenUsage, kept: tuple[int | None, ...], estimate: bool
) -> None:
    model = ScriptedModel(Completion(text=GOOD_REPLY, usage=reported))
    result = await summarize([text("user", "hello")], model, templates, estimate_tokens=estimate)
    estimated_in = count_tokens(result.request.system_prompt + SUMMARIZE_REQUEST)
    estimated_out = count_tokens(GOOD_REPLY)  # the raw reply, not the rendered summary
    want_in = kept[0] if kept[0] is not None else estimated_in
    want_out = kept[1] if kept[1] is not None else estimated_out
    want_total = kept[2] if kept[2] is not None else want_in + want_out
    assert result.usage == TokenUsage(
        input_tokens=want_in, output_tokens=want_out, total_tokens=want_total
    )
    assert estimated_out != count_tokens(result.summary)


@pytest.fixture
def counts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every token count the pipeline makes: "request" or "reply"."""
    from goose_tui.compaction import summarize as pipeline

    made: list[str] = []
    real_request, real_count = pipeline.request_tokens, pipeline.count_tokens

    def request_tokens(request):
        made.append("request")
        return real_request(request)

    def count(text: str | Pieces) -> int:
        if isinstance(text, str):  # request_tokens counts the request as Pieces
            made.append("reply")
        return real_count(text)

    monkeypatch.setattr(pipeline, "request_tokens", request_tokens)
    monkeypatch.setattr(pipeline, "count_tokens", count)
    return made


async def test_nothing_is_counted_when_the_provider_reports_its_usage(
    templates: Templates, counts: list[str]
) -> None:
    # Counting a 40 MB prompt is seconds of CPU; Goose (the wheel) does not spend them when
    # the provider reports its usage, and summarize does not either unless asked to.
    reported = TokenUsage(input_tokens=100, output_tokens=20, total_tokens=120)
    model = ScriptedModel(Completion(text=GOOD_REPLY, usage=reported))
    result = await summarize(session_with_tools(3), model, templates)
    assert result.usage == reported
    assert [a.tokens_sent for a in result.attempts] == [None]
    assert "reported_usage=" in repr(result)
    assert counts == []


async def test_a_missing_count_is_estimated_when_the_usage_is_first_read(
    templates: Templates, counts: list[str]
) -> None:
    model = ScriptedModel(Completion(text=GOOD_REPLY, usage=TokenUsage()))
    result = await summarize([text("user", "hello")], model, templates)
    assert counts == []
    repr(result)
    assert counts == []
    assert result.usage.input_tokens == result.usage.input_tokens  # read twice, counted once
    assert counts == ["request", "reply"]


async def test_estimating_counts_each_request_once_and_the_usage_before_returning(
    templates: Templates, counts: list[str]
) -> None:
    model = ScriptedModel(Completion(text=GOOD_REPLY, usage=TokenUsage()))
    result = await summarize([text("user", "hello")], model, templates, estimate_tokens=True)
    assert counts == ["request", "reply"]
    assert result.usage.input_tokens == result.attempts[0].tokens_sent
    assert counts == ["request", "reply"]


async def test_a_count_that_fails_loses_no_summary(
    templates: Templates, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The reply has been paid for; an estimate of its cost that cannot be made (out of
    # memory on a huge prompt) leaves the figures unknown and keeps the summary.
    from goose_tui.compaction import summarize as pipeline

    def no_room(*_: object) -> int:
        raise MemoryError("no room to count")

    monkeypatch.setattr(pipeline, "request_tokens", no_room)
    monkeypatch.setattr(pipeline, "count_tokens", no_room)
    model = ScriptedModel(Completion(text=GOOD_REPLY, usage=TokenUsage(output_tokens=7)))
    result = await summarize([text("user", "hello")], model, templates, estimate_tokens=True)
    assert not result.extraction.fallback and result.summary.startswith("# Conversation Summary")
    assert [a.tokens_sent for a in result.attempts] == [None]
    assert result.usage == TokenUsage(input_tokens=None, output_tokens=7, total_tokens=None)


async def test_a_cancel_does_not_wait_for_the_count(
    templates: Templates, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from goose_tui.compaction import summarize as pipeline

    release = threading.Event()

    def stuck_count(request) -> int:  # seconds of tiktoken on a big session's prompt
        release.wait(10)
        return 1

    monkeypatch.setattr(pipeline, "request_tokens", stuck_count)
    model = StallingModel()
    seen: list[Attempt] = []
    task = asyncio.create_task(
        summarize(
            [text("user", "hello")],
            model,
            templates,
            on_attempt=seen.append,
            estimate_tokens=True,
        )
    )
    await model.started.wait()
    task.cancel()
    try:
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 2)
        assert [(a.outcome, a.tokens_sent) for a in seen] == [
            ("running", None),
            ("cancelled", None),
        ]
    finally:
        release.set()


def test_a_failing_summary_template_keeps_the_raw_reply(tmp_path) -> None:
    from goose_tui.compaction.summarize import finish
    from goose_tui.compaction.templates import load_templates

    reply = '```json\n{"user_intent": ["ship it"]}\n```'
    (tmp_path / "compaction_summary.md").write_text("{{ user_intent | no_such_filter }}\n")
    extraction, summary = finish(reply, load_templates(tmp_path))
    assert summary == reply
    assert extraction.fallback and "summary template failed" in extraction.fallback_reason
    (tmp_path / "compaction_summary.md").write_text("{% if false %}x{% endif %}\n")
    extraction, summary = finish(reply, load_templates(tmp_path))
    assert summary == reply and "rendered nothing" in extraction.fallback_reason


async def test_the_history_is_cut_off_the_loop_and_only_when_a_rung_needs_it(
    templates: Templates, monkeypatch: pytest.MonkeyPatch
) -> None:
    # summarize cut 20,000 messages to what the summarizer receives on the caller's event
    # loop before its first request (a 0.1 s stall of the app's screen on pressing c), even
    # when the app handed it the request it had built already.
    import threading

    from goose_tui.compaction import summarize as pipeline

    cut_in: list[threading.Thread] = []
    real = pipeline.summarizer_messages

    def recording(messages):  # noqa: ANN001, ANN202
        cut_in.append(threading.current_thread())
        return real(messages)

    messages = session_with_tools(3)
    first = pipeline.build_request(messages, templates)
    monkeypatch.setattr(pipeline, "summarizer_messages", recording)
    await summarize(messages, ScriptedModel(GOOD_REPLY), templates, first_request=first)
    assert cut_in == []  # rung 0 sends the request it was given
    model = ScriptedModel(ContextLengthExceeded("too long"), GOOD_REPLY)
    result = await summarize(messages, model, templates, first_request=first)
    assert [a.outcome for a in result.attempts] == ["context_length_exceeded", "ok"]
    assert len(cut_in) == 1 and threading.main_thread() not in cut_in
