"""A refused connection is said in words a user can act on: no Python object's repr (an
aiohttp error names its SSL context as ``ssl:<ssl.SSLContext object at 0x…>``)."""

from __future__ import annotations

import re

import pytest

from goose_tui.llm.base import ChatMessage, ModelError
from goose_tui.llm.litellm_backend import LiteLLMSummarizer
from tests.conftest import LITELLM_GROUP
from tests.loopback import closed_port

pytestmark = pytest.mark.xdist_group(LITELLM_GROUP)

PROMPT = [ChatMessage(role="user", content="hi")]


async def test_an_ollama_server_that_refuses_is_named_without_object_reprs() -> None:
    port = closed_port()
    summarizer = LiteLLMSummarizer("ollama/x", api_base=f"http://127.0.0.1:{port}")
    with pytest.raises(ModelError) as caught:
        await summarizer.complete(PROMPT)
    message = str(caught.value)
    assert message.startswith(
        f"ollama/x: could not connect to the server at http://127.0.0.1:{port}"
    )
    assert not re.search(r"object at 0x[0-9a-f]+", message), message
    assert f"127.0.0.1:{port}" in message.split(": could not connect", 1)[1]
