"""The usage a provider reports, read as Goose reads it: the same streamed reply, with the
usage in every shape a server sends (some counts missing, null, or a total that is not in +
out), gives goose-tui's ``reported_usage`` the counts the goose-sdk wheel's ``compact``
returns. litellm fills a count the server left out with 0; Goose leaves it out
(crates/goose/src/providers/formats/openai.rs: ``get_usage``, and
``extract_usage_with_output_tokens``, which keeps a streamed usage only with its
completion count; crates/goose/src/providers/base.rs: ``Usage::new`` fills a missing total
from the counts it has)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from goose_tui.llm.base import ChatMessage, TokenUsage
from tests.conftest import LITELLM_GROUP
from tests.differential.conftest import Script, ScriptedServer, run_reference
from tests.differential.corpus import CASES

goose = pytest.importorskip(
    "goose", reason="goose-sdk (the reference wheel, module `goose`) is not installed"
)

# litellm is imported in this process: with the other modules that import it (conftest).
pytestmark = pytest.mark.xdist_group(LITELLM_GROUP)

USAGES: list[dict[str, Any]] = [
    {"prompt_tokens": 5, "completion_tokens": 2},
    {"completion_tokens": 7},
    {"prompt_tokens": 5},
    {"total_tokens": 9},
    {},
    {"prompt_tokens": None, "completion_tokens": 4, "total_tokens": None},
    {"prompt_tokens": 99, "completion_tokens": 5, "total_tokens": 1000},
    {"completion_tokens": 5, "total_tokens": 100},
    {"prompt_tokens": 1234, "completion_tokens": 56, "total_tokens": 1290},
]


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@pytest.mark.parametrize("usage", USAGES, ids=[str(sorted(u.items())) for u in USAGES])
def test_reported_usage_is_the_wheels(usage: dict[str, Any], server: ScriptedServer) -> None:
    from goose_tui.llm.litellm_backend import LiteLLMSummarizer

    case = CASES[0]
    server.script = Script(reply=case.reply, usage=usage)
    reference = run_reference(server, case)
    summarizer = LiteLLMSummarizer("openai/gpt-4o", api_base=f"{server.base_url}/v1")
    completion = asyncio.run(summarizer.complete([ChatMessage(role="user", content="hi")]))
    assert completion.text == case.reply
    assert completion.usage == TokenUsage(
        input_tokens=reference.input_tokens,
        output_tokens=reference.output_tokens,
        total_tokens=reference.total_tokens,
    )
