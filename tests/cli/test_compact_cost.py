"""The cost of a paid call, before it is made: ``compact --json`` reports the first
request's estimated input tokens and their price in litellm's map (and the call's cost from
its usage), with litellm called for real against a loopback server; offline and replay have
no price."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from goose_tui.analysis.compare import estimate_note, input_cost_usd
from goose_tui.cli import main
from goose_tui.tokens import MODEL_MAP_FILE
from tests.conftest import LITELLM_GROUP, SAMPLES
from tests.loopback import LoopbackServer, Reply

SHORT = SAMPLES / "short.jsonl"
REPLY = '<analysis>ok</analysis>\n```json\n{"user_intent": ["fix it"], "current_work": "done"}\n```'


def listed_price(name: str) -> tuple[float, float]:
    """The prices as litellm's own file lists them, read here independently."""
    spec = importlib.util.find_spec("litellm")
    assert spec is not None and spec.origin is not None
    entry = json.loads((Path(spec.origin).parent / MODEL_MAP_FILE).read_text())[name]
    return entry["input_cost_per_token"], entry["output_cost_per_token"]


def test_the_estimate_is_the_input_tokens_at_the_listed_input_price() -> None:
    price_in, _ = listed_price("gpt-4o-mini")
    assert input_cost_usd("openai/gpt-4o-mini", 10_000) == pytest.approx(10_000 * price_in)
    assert input_cost_usd("offline", 10_000) is None
    assert input_cost_usd("openai/gpt-4o-mini", None) is None
    assert estimate_note("offline", 10_000) == ""
    assert estimate_note("openai/gpt-4o-mini", 10_000).startswith("est. 10,000 tokens in ≈ $")


@pytest.mark.xdist_group(LITELLM_GROUP)  # litellm in the group's shared worker
def test_compact_json_reports_the_estimate_and_the_cost(
    capsys: pytest.CaptureFixture[str],
) -> None:
    usage = {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100}
    with LoopbackServer([Reply.ok(REPLY, usage)]) as server:
        code = main(
            [
                "compact",
                str(SHORT),
                "--model",
                "openai/gpt-4o-mini",
                "--api-base",
                server.url,
                "--json",
            ]
        )
    out = capsys.readouterr()
    assert code == 0, out.err
    data = json.loads(out.out)
    price_in, price_out = listed_price("gpt-4o-mini")
    tokens = data["estimated_input_tokens"]
    assert tokens == data["attempts"][0]["tokens_sent"] and tokens > 1000
    assert data["estimated_input_cost_usd"] == pytest.approx(tokens * price_in)
    assert data["cost_usd"] == pytest.approx(1000 * price_in + 100 * price_out)


def test_offline_has_no_price(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compact", str(SHORT), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["estimated_input_tokens"] > 0
    assert data["estimated_input_cost_usd"] is None and data["cost_usd"] is None
