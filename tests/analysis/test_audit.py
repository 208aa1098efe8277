"""Auditing the compactions Goose already made in a session: the history each summary
replaced, Goose's summary scored against it, and the same history compacted again.

The session shape is Goose's after a compaction (``compact_messages`` in
crates/goose/src/context_mgmt/mod.rs): the old messages ``agentVisible: false``, the summary
a user message only the agent sees, then the continuation note. The fixture session
20251009_1 of tests/fixtures/goose/sessions-v13.db has one compaction (message #3) and, after
it, a turn-context event (agent-only too, ``MessageMetadata.turn_context``), which is no
summary.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goose_tui.analysis.audit import (
    audit_session,
    compaction_at,
    history_session,
    past_compactions,
)
from goose_tui.analysis.timeline import build_timeline
from goose_tui.session.sqlite import load_sqlite
from goose_tui.session.writer import compacted_messages
from tests.conftest import ROOT, SAMPLES

DB = ROOT / "tests" / "fixtures" / "goose" / "sessions-v13.db"


@pytest.fixture(scope="module")
def goose_session():
    return load_sqlite(DB, "20251009_1")


def test_a_turn_context_event_is_no_compaction(goose_session) -> None:
    (only,) = past_compactions(goose_session.messages)
    assert only.summary_index == 2
    events = build_timeline(goose_session.messages, 128_000).events
    assert [e.index for e in events if e.kind == "summary"] == [2]


def test_the_history_is_what_goose_summarized_visible_again(goose_session) -> None:
    (compaction,) = past_compactions(goose_session.messages)
    assert [m.id for m in compaction.history] == [m.id for m in goose_session.messages[:2]]
    assert all(m.metadata.agent_visible for m in compaction.history)
    # User visibility is the session's own.
    assert [m.metadata.user_visible for m in compaction.history] == [True, True]
    assert compaction.summary.startswith("Summary of the earlier")


def test_a_second_compaction_summarizes_the_first_summary_and_what_followed() -> None:
    from goose_tui.session.loader import load_session

    session = load_session(SAMPLES / "short.jsonl")
    once = compacted_messages(session.messages, "FIRST SUMMARY", created=1)
    more = [*once, *session.messages[:2]]
    twice = compacted_messages(more, "SECOND SUMMARY", created=2)
    first, second = past_compactions(twice)
    assert (first.summary, second.summary) == ("FIRST SUMMARY", "SECOND SUMMARY")
    assert len(first.history) == len(session.messages)
    # The first summary, Goose's continuation note, then the two messages after them.
    assert [m.role for m in second.history] == ["user", "assistant", "user", "assistant"]
    assert second.history[0].content[0]["text"] == "FIRST SUMMARY"
    assert second.history_range == (len(session.messages), len(session.messages) + 3)


def test_each_past_compaction_is_scored(goose_session) -> None:
    (score,) = audit_session(goose_session)
    assert score.retention.total > 0 and score.retention.overall is not None
    assert score.probes.mode == "offline"
    assert history_session(goose_session, score.compaction).messages == score.compaction.history


def test_asking_for_a_compaction_that_is_not_there_says_how_many_there_are(
    goose_session,
) -> None:
    with pytest.raises(LookupError, match="has 1 past compaction"):
        compaction_at(goose_session.messages, 2)


def test_audit_json_lists_every_past_compaction_with_scores(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from goose_tui.cli import main

    assert main(["audit", str(DB), "--session", "20251009_1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (entry,) = data["compactions"]
    assert entry["number"] == 1 and entry["summary_message"] == 3
    assert entry["history_messages"] == [1, 2]
    assert entry["retention"]["total"] > 0 and entry["probes"]["mode"] == "offline"


def test_audit_at_n_recompacts_the_same_history_and_compares(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from goose_tui.cli import main

    code = main(
        ["audit", str(DB), "--session", "20251009_1", "--at", "1", "--model", "offline", "--json"]
    )
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    sides = data["compactions"][0]["recompacted"]["sides"]
    assert sides[0]["label"] == "Goose (message #3)"
    assert sides[1]["label"] == "offline"
    assert sides[0]["retention"]["total"] == sides[1]["retention"]["total"] > 0


def test_audit_at_a_missing_compaction_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    from goose_tui.cli import main

    assert main(["audit", str(SAMPLES / "short.jsonl"), "--at", "1"]) == 2
    assert "no past compaction" in capsys.readouterr().err


def test_audit_lists_in_text(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from goose_tui.cli import main

    assert main(["audit", str(DB), "--session", "20251009_1"]) == 0
    out = capsys.readouterr().out
    assert "#3" in out and "#1-#2" in out
