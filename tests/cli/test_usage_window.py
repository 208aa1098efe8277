"""``usage`` measures the session against its own window, as Goose does; ``--model`` names
the summarizer, whose window only decides whether the compaction request fits it."""

from __future__ import annotations

import json

import pytest

from goose_tui.cli import main
from tests.conftest import SAMPLES

LONG = SAMPLES / "long_session.jsonl"  # qwen2.5-coder:14b, a 16,384-token window


def usage_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    assert main(["usage", str(LONG), "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_usage_with_a_summarizer_keeps_the_sessions_verdict(capsys) -> None:
    own = usage_json(capsys)
    chosen = usage_json(capsys, "--model", "openai/gpt-4o-mini")
    for key in ("used", "limit", "limit_source", "fraction", "compaction_due", "model"):
        assert chosen[key] == own[key], key
    assert chosen["limit"] == 16_384 and chosen["compaction_due"] is True
    assert chosen["model"] == "qwen2.5-coder:14b"
    summarizer = chosen["request_fit"]
    assert summarizer["model"] == "openai/gpt-4o-mini"
    assert summarizer["window"] == 128_000 and summarizer["window_source"] == "model-map"
    assert 14_000 < summarizer["request_tokens"] < 16_384 and summarizer["fits"] is True
    assert own["request_fit"] is None


def test_usage_says_when_the_request_is_over_the_summarizers_window(capsys) -> None:
    assert main(["usage", str(LONG), "--model", "gpt-4"]) == 0
    out = capsys.readouterr().out
    assert "limit       16,384 tokens (from the session)" in out
    assert "compaction due: yes" in out
    line = next(line for line in out.splitlines() if line.startswith("summarizer"))
    assert "gpt-4" in line and "OVER its 8,192-token window" in line, line


def test_compact_json_says_whether_the_request_fitted_the_models_window(capsys) -> None:
    # The offline model with a window of its own: the request is over it, and the ladder
    # removes tool responses until one fits.
    assert main(["compact", str(LONG), "--json", "--offline-context-limit", "12000"]) == 0
    out = json.loads(capsys.readouterr().out)
    fit = out["request_fit"]
    assert (fit["model"], fit["window"], fit["window_source"]) == ("offline", 12_000, "offline")
    assert fit["request_tokens"] == out["attempts"][0]["tokens_sent"] > 12_000
    assert fit["fits"] is False and out["attempts"][0]["outcome"] == "context_length_exceeded"
    assert main(["compact", str(LONG), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["request_fit"] is None


def test_usage_with_the_sessions_own_model_uses_its_recorded_window(capsys) -> None:
    fit = usage_json(capsys, "--model", "session")["request_fit"]
    assert fit["model"] == "ollama/qwen2.5-coder:14b"
    assert (fit["window"], fit["window_source"]) == (16_384, "session")
