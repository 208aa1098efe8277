"""The error of an exhausted overflow ladder is Goose's, word for word; goose-tui's advice is
kept beside it, not in it, and shown where the error is shown (the CLI's stderr, a batch row,
the app's modal).

Goose: ``summarize`` in crates/goose-context-management/src/summarize.rs (block/goose
@6a1972df, the crate the goose-sdk wheels 0.1.0a8-a13 build) fails with
``anyhow!("Failed to compact: context limit exceeded even after removing all tool
responses")``, and its test ``summarize_with_tool_responses_preserves_exhausted_removal_error``
compares the whole string. The wheel cannot reach that branch (its messages carry no tool
responses), so the sentence is pinned here rather than in tests/differential."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from goose_tui.analysis.failures import failure_text
from goose_tui.cli import main
from goose_tui.compaction.summarize import CompactionFailed, summarize
from goose_tui.compaction.templates import load_templates
from goose_tui.llm.offline import OfflineSummarizer
from goose_tui.session.loader import load_session

GOOSE_EXHAUSTED = "Failed to compact: context limit exceeded even after removing all tool responses"
SAMPLES = Path(__file__).resolve().parents[2] / "sample_sessions"
LONG = SAMPLES / "long_session.jsonl"


def exhausted() -> CompactionFailed:
    messages = load_session(LONG).messages
    assert any(m.has_tool_response() for m in messages)
    with pytest.raises(CompactionFailed) as caught:
        asyncio.run(summarize(messages, OfflineSummarizer(context_limit=1), load_templates(None)))
    return caught.value


def test_the_error_is_goose_s_sentence_and_nothing_else() -> None:
    error = exhausted()
    assert str(error) == GOOSE_EXHAUSTED
    assert error.advice is not None and error.advice.startswith("Use a model")
    assert GOOSE_EXHAUSTED not in error.advice
    assert [a.removed_percent for a in error.attempts] == [0, 10, 20, 50, 100]


def test_where_it_is_shown_the_advice_follows_on_its_own_line() -> None:
    error = exhausted()
    assert failure_text(error) == f"{GOOSE_EXHAUSTED}\n{error.advice}"


def test_the_cli_prints_the_error_then_the_advice(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["compact", str(LONG), "--offline-context-limit", "1"])
    err = capsys.readouterr().err
    assert code == 1
    first, advice = err.rstrip("\n").split("\n")
    assert first == f"goose-tui: {GOOSE_EXHAUSTED}"
    assert advice.startswith("Use a model")
