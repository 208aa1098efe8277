"""Timeline: cumulative context, trigger points, compactions already in a session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from goose_tui.analysis.timeline import (
    HEADROOM,
    build_timeline,
    is_summary_message,
    marker_line,
    session_timeline,
    sparkline,
)
from goose_tui.session.loader import load_session
from goose_tui.session.models import Message, Session
from goose_tui.tokens import TokenCounter
from tests.conftest import REALDATA


def msg(role: str, text: str, *, user: bool = True, agent: bool = True) -> Message:
    return Message.model_validate(
        {
            "role": role,
            "content": [{"type": "text", "text": text}],
            "metadata": {"userVisible": user, "agentVisible": agent},
        }
    )


def grow(n: int) -> list[Message]:
    """Messages of growing size, so each one adds a different amount."""
    return [msg("user" if i % 2 == 0 else "assistant", "word " * (20 * (i + 1))) for i in range(n)]


def test_cumulative_matches_the_token_counter_total() -> None:
    messages = grow(6)
    counter = TokenCounter()
    timeline = build_timeline(messages, 10_000, counter=counter)
    for point in timeline.points:
        assert point.cumulative == counter.total(messages[: point.index + 1])
        assert point.fraction == pytest.approx(point.cumulative / 10_000)
    assert timeline.peak == counter.total(messages)


def test_trigger_is_the_first_message_whose_fraction_is_over_the_threshold() -> None:
    messages = grow(8)
    counter = TokenCounter()
    totals = [counter.total(messages[: i + 1]) for i in range(len(messages))]
    # A window chosen so that the threshold falls exactly on message 4's total: "over" is
    # strict, so message 4 does not trigger and message 5 does.
    limit = 1000
    threshold = totals[4] / limit
    timeline = build_timeline(messages, limit, threshold=threshold, counter=counter)
    chosen = timeline.triggers[0]
    assert chosen.label == f"threshold {threshold:g}"
    assert chosen.first_index == 5
    assert chosen.crossings == [5]
    by_label = {t.label: t for t in timeline.triggers}
    assert set(by_label) >= {"0.8", "0.9"}
    for label, fraction in (("0.8", 0.8), ("0.9", 0.9)):
        expected = next((i for i, t in enumerate(totals) if t / limit > fraction), None)
        assert by_label[label].first_index == expected
    # window - 13k only makes sense for a window over 13k tokens.
    assert "window - 13k" not in by_label


@pytest.mark.parametrize("threshold", [0.0, 1.0, 1.5, -1.0])
def test_a_threshold_that_turns_auto_compaction_off_triggers_nothing(threshold: float) -> None:
    # A walk-through: with GOOSE_AUTO_COMPACT_THRESHOLD=0 the gauge said "auto-compaction
    # off" and the timeline "threshold 0 … first over #1"; Goose never compacts then.
    timeline = build_timeline(grow(8), 1000, threshold=threshold, counter=TokenCounter())
    assert [t.label for t in timeline.triggers] == ["0.8", "0.9"]


def test_window_minus_headroom_trigger() -> None:
    messages = grow(4)
    counter = TokenCounter()
    total = counter.total(messages)
    limit = HEADROOM + total - 1  # the last message puts the context just over window - 13k
    timeline = build_timeline(messages, limit, counter=counter)
    headroom = next(t for t in timeline.triggers if t.label == "window - 13k")
    assert headroom.fraction == pytest.approx((limit - HEADROOM) / limit)
    assert headroom.first_index == 3


def compacted_session() -> list[Message]:
    old = [
        msg("user", "please refactor the loader " * 30, agent=False),
        msg("assistant", "done, here is the diff " * 40, agent=False),
        msg("user", "now add tests " * 25, agent=False),
    ]
    summary = msg("user", "# Conversation Summary\n\n## User Intent\n- refactor", user=False)
    continuation = msg(
        "assistant",
        "The message above is a summary of the earlier conversation; carry on from it.",
        user=False,
    )
    return [*old, summary, continuation, msg("user", "and run them"), msg("assistant", "ok")]


def test_existing_compaction_with_tokens_before_and_after() -> None:
    messages = compacted_session()
    counter = TokenCounter()
    # What each message adds to the context: its estimate and the per-message reply primer.
    c = [counter.count(m) + 3 for m in messages]
    timeline = build_timeline(messages, 100_000, counter=counter)
    kinds = [(e.index, e.kind) for e in timeline.events]
    assert kinds == [(3, "summary"), (4, "continuation")]
    summary, continuation = timeline.events
    # Before the summary the agent had the three old messages; after it, only the summary.
    assert summary.tokens_before == sum(c[:3])
    assert summary.tokens_after == c[3]
    assert continuation.tokens_before == summary.tokens_after
    assert continuation.tokens_after == c[3] + c[4]
    assert [p.cumulative for p in timeline.points] == [
        c[0],
        c[0] + c[1],
        c[0] + c[1] + c[2],
        c[3],
        c[3] + c[4],
        c[3] + c[4] + c[5],
        c[3] + c[4] + c[5] + c[6],
    ]
    # The context at the end is what the agent sees now, as the usage count has it.
    assert timeline.points[-1].cumulative == counter.total(messages)


def test_crossings_after_a_compaction_are_each_reported() -> None:
    messages = compacted_session()
    counter = TokenCounter()
    c = [counter.count(m) + 3 for m in messages]
    # The threshold sits between the old context peak and what follows the summary.
    limit = 10_000
    threshold = (c[0] + c[1] + 1) / limit
    messages += [msg("user", "word " * 400), msg("assistant", "word " * 400)]
    timeline = build_timeline(messages, limit, threshold=threshold, counter=counter)
    chosen = timeline.triggers[0]
    assert chosen.first_index == 2
    assert len(chosen.crossings) == 2
    assert chosen.crossings[0] == 2 and chosen.crossings[1] > 4


def test_legacy_markers_are_events() -> None:
    messages = [
        msg("user", "hi"),
        Message.model_validate(
            {"role": "assistant", "content": [{"type": "contextLengthExceeded", "msg": "full"}]}
        ),
        Message.model_validate(
            {"role": "assistant", "content": [{"type": "summarizationRequested", "msg": "go"}]}
        ),
    ]
    timeline = build_timeline(messages, 1000)
    assert [(e.index, e.kind) for e in timeline.events] == [
        (1, "context_exceeded"),
        (2, "summarization_requested"),
    ]


@pytest.mark.parametrize(
    ("meta", "text", "expected"),
    [
        ({"userVisible": False, "agentVisible": True}, "anything at all", True),
        ({}, "# Conversation Summary\n- x", True),
        ({}, "## Summary of the work so far", True),
        ({}, "summarize this for me", False),
        ({"userVisible": True, "agentVisible": False}, "hidden from the agent", False),
    ],
)
def test_summary_detection(meta: dict[str, Any], text: str, expected: bool) -> None:
    message = Message.model_validate(
        {"role": "user", "content": [{"type": "text", "text": text}], "metadata": meta}
    )
    assert is_summary_message(message) is expected


def test_sparkline_scales_and_buckets() -> None:
    assert sparkline([]) == ""
    assert sparkline([0, 0]) == "▁▁"
    assert sparkline([1, 2, 3, 4, 5, 6, 7, 8]) == "▁▂▃▄▅▆▇█"
    assert sparkline([8, 4], top=8) == "█▄"
    # 100 values into 10 columns: each column shows its bucket's maximum.
    line = sparkline(list(range(100)), width=10)
    assert len(line) == 10 and line[-1] == "█" and line[0] == "▁"
    assert marker_line({0: "^", 99: "S"}, 100, 10) == "^        S"
    assert marker_line({2: "S"}, 5, 5) == "  S"


def test_real_session_timeline_uses_its_context_window() -> None:
    session = load_session(REALDATA / "export-session.json")
    timeline = session_timeline(session, context_limit=2000, threshold=0.05)
    assert timeline.context_limit == 2000
    assert len(timeline.points) == len(session.messages)
    cumulative = [p.cumulative for p in timeline.points]
    assert cumulative == sorted(cumulative)
    first = next(i for i, p in enumerate(timeline.points) if p.fraction > 0.05)
    assert timeline.triggers[0].first_index == first
    assert timeline.events == []


def test_session_timeline_threshold_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOSE_AUTO_COMPACT_THRESHOLD", "0.5")
    timeline = session_timeline(Session(messages=grow(3)), context_limit=5000)
    assert timeline.threshold == 0.5
    assert timeline.triggers[0].label == "threshold 0.5"


def test_cli_timeline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.analysis.test_retention import run_command, write_session

    session = write_session(tmp_path / "s.jsonl", compacted_session())
    argv = ["timeline", str(session), "--context-limit", "1000", "--threshold", "0.1"]
    assert run_command(argv) == 0
    out = capsys.readouterr().out
    assert "window   1,000 tokens (from --context-limit), threshold 0.1" in out
    spark = next(line for line in out.splitlines() if line.startswith("context  "))
    assert len(spark) == len("context  ") + 7
    summary_row = next(line for line in out.splitlines() if line.lstrip().startswith("#4 "))
    assert "summary" in summary_row
    assert run_command([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["context_limit"] == 1000
    assert [e["kind"] for e in data["events"]] == ["summary", "continuation"]
    assert run_command(["timeline", str(session), "--context-limit", "0"]) == 2


def test_timeline_of_a_session_compacted_by_the_real_pipeline() -> None:
    """Compact the long sample offline and lay the history out as Goose keeps it: the old
    messages hidden from the agent, the summary, a continuation note, then new turns."""
    import asyncio

    from goose_tui.compaction.summarize import summarize
    from goose_tui.compaction.templates import load_templates
    from goose_tui.llm import make_summarizer
    from tests.conftest import SAMPLES

    session = load_session(SAMPLES / "long_session.jsonl")
    result = asyncio.run(
        summarize(session.messages, make_summarizer("offline"), load_templates(None))
    )
    hidden = [
        m.model_copy(update={"metadata": m.metadata.model_copy(update={"agent_visible": False})})
        for m in session.messages
    ]
    note = msg("assistant", "Carry on from the summary above.", user=False)
    messages = [*hidden, result.summary_message, note, msg("user", "next, ship it")]
    counter = TokenCounter()
    timeline = build_timeline(messages, 16_384, counter=counter)
    n = len(session.messages)
    summary = timeline.events[0]
    assert (summary.index, summary.kind) == (n, "summary")
    assert summary.tokens_before == counter.total(session.messages)
    assert summary.tokens_after == counter.total([result.summary_message])
    assert summary.tokens_after < summary.tokens_before
    assert [e.kind for e in timeline.events] == ["summary", "continuation"]
    assert timeline.points[-1].cumulative == counter.total(messages)
    assert timeline.peak == summary.tokens_before


def test_marker_sits_under_its_sparkline_column() -> None:
    # 65 values in 64 columns: the drop after position 43 and its marker share a column.
    values = [float(i) for i in range(43)] + [100.0] + [1.0] * 21
    line = sparkline(values, width=64)
    column = marker_line({43: "S"}, len(values), len(line)).index("S")
    assert line[column] == "█" and line[column + 1] == "▁"


def test_the_cli_timeline_says_auto_compaction_is_off_and_marks_no_first_crossing() -> None:
    from goose_tui.cli.timeline import timeline_lines

    off = timeline_lines(build_timeline(grow(8), 1000, threshold=0.0, counter=TokenCounter()))
    assert off[0].endswith("threshold 0 (auto compaction off: needs 0 < T < 1)")
    assert not any("first over the threshold" in line for line in off)
    on = timeline_lines(build_timeline(grow(8), 1000, threshold=0.5, counter=TokenCounter()))
    assert on[0].endswith("threshold 0.5")
    assert any("^ first over the threshold" in line for line in on)


def test_the_timeline_names_goose_recorded_count_beside_its_own(cli) -> None:
    # A walk-through: `usage` (and the gauge) said 6,120 tokens, 87.4%, compaction due, and
    # `timeline` on the same session "peak 593 tokens (8.5%)", with nothing to say why. The
    # gauge uses the count Goose recorded for the session's last call (docs/pipeline.md §8); the
    # timeline
    # counts the messages.
    import json as _json

    from goose_tui.analysis.timeline import session_timeline
    from goose_tui.cli.timeline import timeline_lines
    from goose_tui.session.loader import load_session
    from tests.conftest import SAMPLES

    session = load_session(SAMPLES / "short.jsonl")
    assert session.usage.total_tokens == 6120
    t = session_timeline(session, context_limit=7000)
    assert t.recorded == 6120
    assert any(
        line == "recorded 6,120 tokens (87.4% of the window): Goose's count of the last call, "
        "which usage and the app's gauge show"
        for line in timeline_lines(t)
    )
    out = cli("timeline", str(SAMPLES / "short.jsonl"), "--json")
    assert out.returncode == 0, out.stderr
    assert _json.loads(out.stdout)["recorded"] == 6120
    bare = session_timeline(load_session(SAMPLES / "long_session.jsonl"))
    assert bare.recorded is None
    assert not any(line.startswith("recorded") for line in timeline_lines(bare))
