"""docs/pipeline.md §9: the compacting wrapper, around real litellm calls to the loopback server."""

from __future__ import annotations

import pytest

from goose_tui.compaction.format import format_message_for_compacting
from goose_tui.compaction.summarize import SUMMARIZE_REQUEST
from goose_tui.compaction.templates import load_templates
from goose_tui.compaction.wrapper import complete_with_compaction
from goose_tui.llm.base import ChatMessage, Completion, ContextLengthExceeded, ModelError
from goose_tui.llm.litellm_backend import LiteLLMSummarizer
from goose_tui.session.models import Message
from tests.compaction.test_summarize import GOOD_REPLY, session_with_tools
from tests.conftest import LITELLM_GROUP
from tests.loopback import LoopbackServer, Reply

# Real litellm calls, through the shared worker of the tests that share litellm's import.
pytestmark = pytest.mark.xdist_group(LITELLM_GROUP)


def chat_call(model: LiteLLMSummarizer):
    """A stand-in agent turn: the history as chat messages, sent through litellm."""

    async def call(history: list[Message]) -> Completion:
        messages = [
            ChatMessage(
                role="assistant" if m.role == "assistant" else "user",
                content=format_message_for_compacting(m),
            )
            for m in history
        ]
        return await model.complete(messages)

    return call


@pytest.fixture
def server():
    with LoopbackServer() as srv:
        yield srv


def model(server: LoopbackServer) -> LiteLLMSummarizer:
    return LiteLLMSummarizer("openai/gpt-4o-mini", api_base=f"{server.url}/v1", api_key="k-test")


async def test_no_overflow_is_one_plain_call(server: LoopbackServer) -> None:
    server.script(Reply.ok("the answer"))
    history = session_with_tools(2)
    done = await complete_with_compaction(
        history, chat_call(model(server)), model(server), load_templates(None)
    )
    assert done.value.text == "the answer"
    assert done.messages == history and done.compaction is None
    assert len(server.requests) == 1


async def test_overflow_compacts_and_retries_once(server: LoopbackServer) -> None:
    server.script(Reply.context_length_exceeded(), Reply.ok(GOOD_REPLY), Reply.ok("answered"))
    history = session_with_tools(3)
    done = await complete_with_compaction(
        history, chat_call(model(server)), model(server), load_templates(None)
    )
    assert done.value.text == "answered"
    assert done.compaction is not None
    assert done.messages == [done.compaction.summary_message]
    first, compaction, retry = (r.body["messages"] for r in server.requests)
    assert len(first) == len(history)
    assert compaction[1]["content"] == SUMMARIZE_REQUEST
    # The retry carries only the summary in place of the whole history.
    assert [m["content"] for m in retry] == [f"[user]: {done.compaction.summary}"]
    assert "fix the bug" in done.compaction.summary


async def test_a_second_overflow_is_not_retried_again(server: LoopbackServer) -> None:
    overflow = Reply.context_length_exceeded()
    server.script(overflow, Reply.ok(GOOD_REPLY), overflow)
    with pytest.raises(ContextLengthExceeded):
        await complete_with_compaction(
            session_with_tools(1), chat_call(model(server)), model(server), load_templates(None)
        )
    assert len(server.requests) == 3


async def test_other_errors_pass_through(server: LoopbackServer) -> None:
    server.script(Reply.unauthorized())
    with pytest.raises(ModelError, match="HTTP 401"):
        await complete_with_compaction(
            session_with_tools(1), chat_call(model(server)), model(server), load_templates(None)
        )
    assert len(server.requests) == 1
