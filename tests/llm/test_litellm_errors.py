"""Model errors from the real litellm client against the loopback server say what happened:
other providers' overflow errors run the ladder, a missing key or a refused connection is
named, a key echoed in any case or without its prefix is scrubbed, a reply over the cap fails
the call."""

from __future__ import annotations

import pytest

from goose_tui.compaction.summarize import summarize
from goose_tui.compaction.templates import load_templates
from goose_tui.llm.base import ContextLengthExceeded, ModelError
from goose_tui.llm.litellm_backend import LiteLLMSummarizer, scrub_secrets
from tests.compaction.test_summarize import session_with_tools
from tests.conftest import LITELLM_GROUP
from tests.llm.test_litellm import MODEL, PROMPT, SECRET
from tests.loopback import LoopbackServer, Reply, closed_port
from tests.secret_keys import (
    REPLIES,
    assert_no_key,
)

# The tests that call litellm in the test process run on the worker that has imported it
# (tests/conftest.py): each other worker paid its 5-14 s import for them.
IN_PROCESS_LITELLM = pytest.mark.xdist_group(LITELLM_GROUP)


@pytest.fixture(autouse=True)
def _secret_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)


def backend(server: LoopbackServer, **kwargs) -> LiteLLMSummarizer:
    return LiteLLMSummarizer(MODEL, api_base=f"{server.url}/v1", **kwargs)


# --- context-length errors of other providers run the ladder -------------------------------------

OVERFLOWS = [
    # Anthropic (and proxies): HTTP 413 request_too_large.
    ("413", Reply.http_error(413, "request too large", code="request_too_large")),
    # Bedrock's ValidationException text.
    ("bedrock", Reply.http_error(400, "Input is too long for requested model.")),
    # Ollama before it had a proper error: HTTP 500 with this text.
    ("ollama-500", Reply.http_error(500, "context length exceeded", err_type="server_error")),
]


@IN_PROCESS_LITELLM
@pytest.mark.parametrize("reply", [o[1] for o in OVERFLOWS], ids=[o[0] for o in OVERFLOWS])
async def test_other_providers_overflow_errors_are_context_length_errors(reply: Reply) -> None:
    with LoopbackServer([reply]) as server:
        with pytest.raises(ContextLengthExceeded):
            await backend(server).complete(PROMPT)


@IN_PROCESS_LITELLM
@pytest.mark.parametrize("reply", [o[1] for o in OVERFLOWS], ids=[o[0] for o in OVERFLOWS])
async def test_other_providers_overflow_errors_run_the_ladder(reply: Reply) -> None:
    with LoopbackServer([reply, reply, Reply.ok("<analysis>a</analysis>the summary")]) as server:
        result = await summarize(session_with_tools(4), backend(server), load_templates(None))
    assert [a.outcome for a in result.attempts] == [
        "context_length_exceeded",
        "context_length_exceeded",
        "ok",
    ]
    assert len(server.requests) == 3


@IN_PROCESS_LITELLM
async def test_a_500_that_is_not_about_the_context_is_still_a_model_error() -> None:
    with LoopbackServer([Reply.server_error()]) as server:
        with pytest.raises(ModelError, match="HTTP 500"):
            await backend(server).complete(PROMPT)


# --- a missing key, a refused connection ------------------------------------------------------


@IN_PROCESS_LITELLM
async def test_a_missing_api_key_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    # No api_base and no key: the openai client refuses before any request is made.
    with pytest.raises(ModelError) as caught:
        await LiteLLMSummarizer(MODEL, timeout=10).complete(PROMPT)
    message = str(caught.value)
    assert "no API key" in message and "OPENAI_API_KEY" in message
    assert "HTTP 500" not in message


@IN_PROCESS_LITELLM
async def test_a_connection_error_names_the_url_it_tried() -> None:
    port = closed_port()
    summarizer = LiteLLMSummarizer(MODEL, api_base=f"http://127.0.0.1:{port}/v1")
    with pytest.raises(ModelError, match="could not connect") as caught:
        await summarizer.complete(PROMPT)
    assert f"http://127.0.0.1:{port}/v1" in str(caught.value)
    assert SECRET not in str(caught.value)


# --- keys in another case, without their prefix --------------------------------------------------


@pytest.mark.parametrize(
    "echo",
    [
        SECRET,
        SECRET.upper(),
        SECRET[len("sk-") :],
        SECRET[len("sk-") :].upper(),
        "Sk-" + SECRET[3:],
    ],
    ids=["as-is", "upper", "no-prefix", "no-prefix-upper", "mixed"],
)
@IN_PROCESS_LITELLM
async def test_a_key_echoed_in_any_case_or_without_its_prefix_is_scrubbed(echo: str) -> None:
    with LoopbackServer([Reply.http_error(401, f"Incorrect API key provided: {echo}.")]) as server:
        with pytest.raises(ModelError) as caught:
            await backend(server).complete(PROMPT)
    message = str(caught.value)
    assert "***" in message
    assert SECRET[len("sk-") :].lower() not in message.lower()


def test_scrub_secrets_handles_case_and_prefix_of_an_explicit_key() -> None:
    key = "sk-proj-AbCdEf0123456789xyz"
    text = f"a {key.lower()} b {key[len('sk-proj-') :]} c {key[len('sk-') :].upper()} d"
    scrubbed = scrub_secrets(text, (key,))
    assert scrubbed == "a *** b *** c *** d"
    assert scrub_secrets("SK-ABCDEFGHIJKLMN here") == "*** here"


# Not "was cut off": that read as if the compaction went on with a truncated reply.
TOO_LONG = (
    "the reply passed 2,000,000 characters (far more than any summary), "
    "so the call failed and nothing was produced"
)


@IN_PROCESS_LITELLM
async def test_a_streamed_reply_over_the_cap_fails_the_compaction() -> None:
    from goose_tui.llm.base import MAX_REPLY_CHARS

    endless = "x" * (MAX_REPLY_CHARS + 100_000)
    received: list[int] = []
    with LoopbackServer([Reply.sse(endless, chunk_size=100_000)]) as server:
        with pytest.raises(ModelError) as caught:
            await backend(server).complete(PROMPT, on_chunk=lambda c: received.append(len(c)))
    assert str(caught.value) == TOO_LONG
    assert sum(received) <= MAX_REPLY_CHARS


@IN_PROCESS_LITELLM
async def test_a_whole_reply_over_the_cap_fails_the_compaction() -> None:
    from goose_tui.llm.base import MAX_REPLY_CHARS

    with LoopbackServer([Reply.json_body("y" * (MAX_REPLY_CHARS + 1))]) as server:
        with pytest.raises(ModelError) as caught:
            await backend(server, stream=False).complete(PROMPT)
    assert str(caught.value) == TOO_LONG


@IN_PROCESS_LITELLM
async def test_a_missing_key_with_a_server_named_does_not_advise_naming_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # anthropic's client wants a key even for a server given with --api-base; the advice
    # said "(or --api-base for a local server)" to a user who had given one.
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    port = closed_port()
    summarizer = LiteLLMSummarizer(
        "anthropic/claude-sonnet-4-5", api_base=f"http://127.0.0.1:{port}", timeout=10
    )
    with pytest.raises(ModelError) as caught:
        await summarizer.complete(PROMPT)
    message = str(caught.value)
    assert "no API key" in message and "ANTHROPIC_API_KEY" in message
    assert "--api-base" not in message


@IN_PROCESS_LITELLM
async def test_a_key_in_the_environment_is_scrubbed_from_backend_errors(keys: None) -> None:
    """The Anthropic key is not the one in use, but a server (or proxy) that echoes every
    credential it saw must not get it shown either."""
    from goose_tui.llm import make_summarizer
    from goose_tui.llm.base import ChatMessage, ModelError

    with LoopbackServer([REPLIES["500"]]) as server:
        summarizer = make_summarizer(MODEL, api_base=f"{server.url}/v1")
        with pytest.raises(ModelError) as caught:
            await summarizer.complete([ChatMessage(role="user", content="hello")])
    assert_no_key(str(caught.value), repr(caught.value))
