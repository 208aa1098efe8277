"""The real litellm client against the loopback server (tests/loopback.py): replies, the
overflow ladder over HTTP, and every model error of issue 5, none of which may leak the key."""

from __future__ import annotations

import asyncio
import logging

import pytest

from goose_tui.compaction.summarize import (
    EXHAUSTED,
    NOTHING_TO_REMOVE,
    SUMMARIZE_REQUEST,
    CompactionFailed,
    summarize,
)
from goose_tui.compaction.templates import Templates, load_templates
from goose_tui.llm import make_summarizer
from goose_tui.llm.base import ChatMessage, ContextLengthExceeded, ModelError, TokenUsage
from goose_tui.llm.litellm_backend import DUMMY_KEY, LiteLLMSummarizer, scrub_secrets
from goose_tui.tokens import count_tokens
from tests.compaction.test_summarize import GOOD_REPLY, session_with_tools, text
from tests.conftest import LITELLM_GROUP
from tests.loopback import LoopbackServer, Reply, closed_port

# On one xdist worker with the other tests that call litellm in this process or through its
# shared worker (tests/conftest.py, LITELLM_GROUP): litellm's import, 3-8 s of CPU, is paid
# once, not once per worker.
pytestmark = pytest.mark.xdist_group(LITELLM_GROUP)

SECRET = "sk-secret-test-3f9c2a7d41b0e8"
MODEL = "openai/gpt-4o-mini"
PROMPT = [ChatMessage(role="system", content="be brief"), ChatMessage(role="user", content="hi")]


@pytest.fixture(autouse=True)
def _secret_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)


@pytest.fixture(scope="module")
def templates() -> Templates:
    return load_templates(None)


def backend(server: LoopbackServer, **kwargs) -> LiteLLMSummarizer:
    return LiteLLMSummarizer(MODEL, api_base=f"{server.url}/v1", **kwargs)


async def test_a_normal_json_reply() -> None:
    with LoopbackServer([Reply.json_body("a plain reply")]) as server:
        completion = await backend(server, stream=False).complete(PROMPT)
    assert completion.text == "a plain reply"
    assert completion.usage == TokenUsage(input_tokens=11, output_tokens=7, total_tokens=18)
    assert "stream" not in server.requests[0].body


async def test_a_streamed_reply_sends_what_goose_sends() -> None:
    reply = "<analysis>x</analysis> and then a fairly long streamed answer"
    chunks: list[str] = []
    with LoopbackServer([Reply.sse(reply, chunk_size=5)]) as server:
        completion = await backend(server).complete(PROMPT, on_chunk=chunks.append)
    assert completion.text == reply
    assert len(chunks) > 5 and "".join(chunks) == reply
    assert completion.usage == TokenUsage(input_tokens=11, output_tokens=7, total_tokens=18)
    (request,) = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.body == {
        "model": "gpt-4o-mini",
        "messages": [m.model_dump() for m in PROMPT],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    assert request.headers["authorization"] == f"Bearer {SECRET}"


async def test_a_local_server_gets_a_dummy_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    with LoopbackServer([Reply.ok("fine")]) as server:
        assert (await backend(server).complete(PROMPT)).text == "fine"
    assert server.requests[0].headers["authorization"] == f"Bearer {DUMMY_KEY}"


async def test_missing_usage_is_not_invented_by_litellm(templates: Templates) -> None:
    with LoopbackServer([Reply.ok(GOOD_REPLY, usage=None)]) as server:
        completion = await backend(server).complete(PROMPT)
        assert completion.usage == TokenUsage()
        result = await summarize([text("user", "hello")], backend(server), templates)
    # The pipeline estimates each count (docs/pipeline.md §7).
    want_in = count_tokens(result.request.system_prompt + SUMMARIZE_REQUEST)
    want_out = count_tokens(GOOD_REPLY)
    assert result.usage == TokenUsage(
        input_tokens=want_in, output_tokens=want_out, total_tokens=want_in + want_out
    )


async def test_summarize_over_http(templates: Templates) -> None:
    with LoopbackServer([Reply.ok(GOOD_REPLY)]) as server:
        result = await summarize(
            session_with_tools(2), make_summarizer(MODEL, api_base=f"{server.url}/v1"), templates
        )
    assert result.request.system_prompt == server.requests[0].body["messages"][0]["content"]
    assert server.requests[0].body["messages"][1] == {"role": "user", "content": SUMMARIZE_REQUEST}
    assert "tools" not in server.requests[0].body
    assert result.raw_response == GOOD_REPLY and not result.extraction.fallback
    assert result.usage == TokenUsage(input_tokens=11, output_tokens=7, total_tokens=18)


@pytest.mark.parametrize(
    "overflow",
    [
        Reply.context_length_exceeded(),
        # No error code, only the words: the 400 body decides.
        Reply.http_error(400, "prompt is too long: 210000 tokens > 200000 maximum"),
    ],
)
async def test_overflow_with_tool_responses_takes_five_requests(
    templates: Templates, overflow: Reply
) -> None:
    with LoopbackServer([overflow]) as server:
        with pytest.raises(CompactionFailed) as caught:
            await summarize(session_with_tools(6), backend(server), templates)
    assert len(server.requests) == 5
    assert str(caught.value) == EXHAUSTED
    assert [(a.removed_percent, a.removed_messages, a.outcome) for a in caught.value.attempts] == [
        (0, 0, "context_length_exceeded"),
        (10, 1, "context_length_exceeded"),
        (20, 1, "context_length_exceeded"),
        (50, 3, "context_length_exceeded"),
        (100, 6, "context_length_exceeded"),
    ]
    sent = [len(r.body["messages"][0]["content"]) for r in server.requests]
    assert sent == sorted(sent, reverse=True) and sent[0] > sent[-1]


async def test_overflow_without_tool_responses_takes_one_request(templates: Templates) -> None:
    with LoopbackServer([Reply.context_length_exceeded()]) as server:
        with pytest.raises(CompactionFailed) as caught:
            await summarize(
                [text("user", "hi"), text("assistant", "yo")], backend(server), templates
            )
    assert len(server.requests) == 1
    assert str(caught.value) == NOTHING_TO_REMOVE
    assert "no tool responses to remove" in str(caught.value)


async def test_the_ladder_stops_at_the_rung_that_fits(templates: Templates) -> None:
    overflow = Reply.context_length_exceeded()
    with LoopbackServer([overflow, overflow, Reply.ok(GOOD_REPLY)]) as server:
        result = await summarize(session_with_tools(10), backend(server), templates)
    assert len(server.requests) == 3
    assert [(a.removed_percent, a.removed_messages, a.outcome) for a in result.attempts] == [
        (0, 0, "context_length_exceeded"),
        (10, 1, "context_length_exceeded"),
        (20, 2, "ok"),
    ]


async def test_an_unrelated_400_is_a_model_error() -> None:
    with LoopbackServer([Reply.http_error(400, "temperature must be at most 2")]) as server:
        with pytest.raises(ModelError, match="HTTP 400 bad request: temperature must be"):
            await backend(server).complete(PROMPT)


async def test_a_web_page_with_status_200_is_named_not_an_empty_reply() -> None:
    # A proxy or a wrong --api-base answering 200 with an HTML page: litellm reads no
    # event of a stream from it, and the compaction said "the model sent an empty reply".
    page = "<html><body><h1>502 Bad Gateway</h1></body></html>"
    with LoopbackServer([Reply.html_page(page)]) as server:
        with pytest.raises(ModelError, match="not an OpenAI-compatible stream") as err:
            await backend(server).complete(PROMPT)
    assert "--api-base" in str(err.value)


ERRORS = [
    ("401", Reply.unauthorized(), "HTTP 401 authentication failed"),
    ("401-echoing-the-key", Reply.http_error(401, f"Incorrect API key provided: {SECRET}."), "401"),
    ("429", Reply.rate_limited(7), "HTTP 429 rate limited; retry after 7 s"),
    ("500", Reply.server_error(), "HTTP 500 the provider had an internal error"),
    ("malformed-chunk", Reply.malformed_stream(), "the reply stream broke off or was malformed"),
    ("timeout", Reply.hang(), "did not answer within 1 s"),
]


@pytest.mark.parametrize(("reply", "words"), [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
async def test_model_errors_are_plain_and_never_carry_the_key(
    reply: Reply, words: str, capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with LoopbackServer([reply]) as server:
        with pytest.raises(ModelError) as caught:
            await backend(server, timeout=1).complete(PROMPT)
    message = str(caught.value)
    assert message.startswith(f"{MODEL}: ") and words in message
    assert "\n" not in message and "Traceback" not in message
    out, err = capfd.readouterr()
    for where in (message, repr(caught.value), out, err, caplog.text):
        assert SECRET not in where
    assert caught.value.__cause__ is None  # nothing further down to leak when it is logged


async def test_connection_refused(capfd: pytest.CaptureFixture[str]) -> None:
    summarizer = LiteLLMSummarizer(MODEL, api_base=f"http://127.0.0.1:{closed_port()}/v1")
    with pytest.raises(ModelError, match="could not connect to the server") as caught:
        await summarizer.complete(PROMPT)
    out, err = capfd.readouterr()
    assert SECRET not in str(caught.value) + out + err


async def test_an_explicit_key_is_scrubbed_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    key = "my-own-proxy-token-1234"
    with LoopbackServer([Reply.http_error(403, f"key {key} may not use this model")]) as server:
        with pytest.raises(ModelError) as caught:
            await backend(server, api_key=key).complete(PROMPT)
    assert server.requests[0].headers["authorization"] == f"Bearer {key}"
    assert key not in str(caught.value) and "HTTP 403" in str(caught.value)


async def test_cancel_mid_stream() -> None:
    first = asyncio.Event()
    with LoopbackServer([Reply.stream_then_hang("first words "), Reply.ok("later")]) as server:
        summarizer = backend(server, timeout=30)
        task = asyncio.create_task(summarizer.complete(PROMPT, on_chunk=lambda _: first.set()))
        await asyncio.wait_for(first.wait(), 10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # Nothing is broken: the next call works.
        assert (await summarizer.complete(PROMPT)).text == "later"


async def test_context_errors_become_context_length_exceeded() -> None:
    with LoopbackServer([Reply.context_length_exceeded()]) as server:
        with pytest.raises(ContextLengthExceeded, match="maximum context length"):
            await backend(server).complete(PROMPT)


def test_scrub_secrets_removes_key_shapes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "plainvalue-without-prefix")
    scrubbed = scrub_secrets(
        "a sk-abcdefghijklmn b Bearer abc.def-ghijkl c plainvalue-without-prefix "
        'd api_key="hunter2hunter2"'
    )
    for secret in ("sk-abcdefghijklmn", "abc.def-ghijkl", "plainvalue", "hunter2"):
        assert secret not in scrubbed
    assert scrubbed.startswith("a *** b ***")


async def test_a_model_of_no_provider_litellm_knows_is_not_called_an_http_error() -> None:
    # litellm refuses the model string before any request; the message said "HTTP 400 bad
    # request" (a tmux walk-through).
    with pytest.raises(ModelError) as caught:
        await LiteLLMSummarizer("nosuchprovider/foo").complete(
            [ChatMessage(role="user", content="hi")]
        )
    message = str(caught.value)
    assert message.startswith("nosuchprovider/foo: litellm knows no provider by that name")
    assert "HTTP" not in message and "provider/model" in message
