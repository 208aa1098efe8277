"""A model call that runs out of time says how to give it longer."""

from __future__ import annotations

import pytest

from goose_tui.llm.base import ChatMessage, ModelError
from goose_tui.llm.litellm_backend import LiteLLMSummarizer
from tests.conftest import LITELLM_GROUP
from tests.loopback import LoopbackServer, Reply

pytestmark = pytest.mark.xdist_group(LITELLM_GROUP)


async def test_a_call_out_of_time_names_the_option_and_the_setting() -> None:
    with LoopbackServer([Reply.hang()]) as server:
        summarizer = LiteLLMSummarizer("openai/gpt-4o-mini", api_base=f"{server.url}/v1", timeout=1)
        with pytest.raises(ModelError) as caught:
            await summarizer.complete([ChatMessage(role="user", content="hi")])
    message = str(caught.value)
    assert "did not answer within 1 s" in message, message
    assert "--timeout SECONDS or the settings file's timeout gives it longer" in message, message
