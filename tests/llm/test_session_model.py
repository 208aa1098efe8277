"""``--model session``: the provider and model a session recorded, as the litellm model
string (Goose's provider names mapped to litellm's prefixes), called for real against a
loopback server; a session with no model, or a provider litellm cannot reach, says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goose_tui.cli import main
from goose_tui.llm.spec import GOOSE_PROVIDERS, session_model
from tests.conftest import LITELLM_GROUP, SAMPLES
from tests.loopback import LoopbackServer, Reply

SHORT = SAMPLES / "short.jsonl"
REPLY = (
    "<analysis>ok</analysis>\n```json\n"
    '{"user_intent": ["fix the Makefile"], "current_work": "done"}\n```\n'
)


@pytest.mark.parametrize(
    ("provider", "model", "expected"),
    [
        ("ollama", "qwen2.5-coder:14b", "ollama/qwen2.5-coder:14b"),
        ("openai", "gpt-4o-mini", "openai/gpt-4o-mini"),
        ("google", "gemini-2.0-flash", "gemini/gemini-2.0-flash"),
        ("gcp_vertex_ai", "gemini-1.5-pro", "vertex_ai/gemini-1.5-pro"),
        ("aws_bedrock", "anthropic.claude-3-5", "bedrock/anthropic.claude-3-5"),
        ("azure_openai", "gpt-4o", "azure/gpt-4o"),
        ("openrouter", "anthropic/claude-3.5", "openrouter/anthropic/claude-3.5"),
        ("litellm", "gpt-4o", "litellm_proxy/gpt-4o"),
        (None, "gpt-4o", "gpt-4o"),
    ],
)
def test_goose_providers_map_to_litellm_prefixes(
    provider: str | None, model: str, expected: str
) -> None:
    assert session_model(provider, model) == expected


def test_no_model_or_a_provider_without_a_litellm_route_is_said() -> None:
    with pytest.raises(ValueError, match="records no model"):
        session_model("ollama", None)
    unreachable = [name for name, prefix in GOOSE_PROVIDERS.items() if prefix is None]
    assert "claude-code" in unreachable
    with pytest.raises(ValueError, match="claude-code .* has no litellm equivalent"):
        session_model("claude-code", "sonnet")


def session_with_model(folder: Path, provider: str | None, model: str | None) -> Path:
    lines = SHORT.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header |= {"provider_name": provider, "model_config": {"model_name": model}}
    target = folder / "recorded.jsonl"
    target.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    return target


@pytest.mark.xdist_group(LITELLM_GROUP)  # litellm in the group's shared worker
def test_compact_with_the_sessions_own_model_calls_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = session_with_model(tmp_path, "openai", "gpt-4o-mini")
    with LoopbackServer([Reply.ok(REPLY)]) as server:
        code = main(
            ["compact", str(session), "--model", "session", "--api-base", server.url, "--json"]
        )
    out = capsys.readouterr()
    assert code == 0, out.err
    assert json.loads(out.out)["model"] == "openai/gpt-4o-mini"
    assert [r.body["model"] for r in server.requests] == ["gpt-4o-mini"]


def test_a_session_without_a_model_is_unusable_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["compact", str(SHORT), "--model", "session"]) == 2
    assert "the session records no model" in capsys.readouterr().err
