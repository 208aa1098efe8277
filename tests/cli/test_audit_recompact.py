"""``goose-tui audit --json`` lists every past compaction with its scores, and with --model
(or --replay) each one compacted again from the same history and compared with Goose's
summary; every form of the output is the one ``goose-tui schema audit`` describes.

The session with two past compactions is made the way a user makes one: a sample compacted
with ``compact --save-session``, and that save compacted again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from goose_tui.cli import main
from tests.conftest import ROOT, SAMPLES

DB = ROOT / "tests" / "fixtures" / "goose" / "sessions-v13.db"
REPLY = ROOT / "tests" / "tui" / "data" / "reply.md"


@pytest.fixture(scope="module")
def twice(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("audit")
    once, twice = folder / "once.json", folder / "twice.json"
    assert main(["compact", str(SAMPLES / "long_session.jsonl"), "--save-session", str(once)]) == 0
    assert main(["compact", str(once), "--save-session", str(twice)]) == 0
    return twice


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    capsys.readouterr()
    code = main(list(argv))
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def _schema(capsys: pytest.CaptureFixture[str]) -> Any:
    return _run(capsys, "schema", "audit")


def test_every_past_compaction_is_compacted_again_and_compared(
    capsys: pytest.CaptureFixture[str], twice: Path
) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    data = _run(capsys, "audit", str(twice), "--replay", str(REPLY), "--json")
    jsonschema.validate(data, _schema(capsys))
    first, second = data["compactions"]
    for entry in (first, second):
        again = entry["recompacted"]
        goose, mine = again["sides"]
        assert goose["label"] == f"Goose (message #{entry['summary_message']})"
        assert mine["label"].startswith("replay:") and len(again["diffs"]) == 1
        # Both are scored against the history that compaction summarized.
        assert goose["retention"]["total"] == mine["retention"]["total"]
    # Each compaction's own history: the first is the session, the second the first summary
    # and what followed it, so what there is to retain differs.
    assert first["history_messages"] != second["history_messages"]
    assert first["retention"]["total"] != second["retention"]["total"]
    assert (
        first["recompacted"]["sides"][1]["retention"]["total"]
        != second["recompacted"]["sides"][1]["retention"]["total"]
    )


def test_without_a_model_nothing_is_compacted_again(
    capsys: pytest.CaptureFixture[str], twice: Path
) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    data = _run(capsys, "audit", str(twice), "--json")
    jsonschema.validate(data, _schema(capsys))
    assert [entry["recompacted"] for entry in data["compactions"]] == [None, None]


def test_at_n_with_a_model_is_the_same_output_with_one_entry(
    capsys: pytest.CaptureFixture[str],
) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    argv = ["audit", str(DB), "--session", "20251009_1", "--at", "1", "--model", "offline"]
    data = _run(capsys, *argv, "--json")
    jsonschema.validate(data, _schema(capsys))
    (entry,) = data["compactions"]
    goose, mine = entry["recompacted"]["sides"]
    assert (goose["label"], mine["label"]) == ("Goose (message #3)", "offline")


def test_the_list_shows_the_recompactions_scores(
    capsys: pytest.CaptureFixture[str], twice: Path
) -> None:
    capsys.readouterr()
    assert main(["audit", str(twice), "--model", "offline"]) == 0
    out = capsys.readouterr().out
    assert "RETENTION B" in out and "PROBES B" in out
    assert "B: the same history compacted again with offline" in out
    rows = [line.split() for line in out.splitlines() if line[:2] in ("1 ", "2 ")]
    assert [len(row) for row in rows] == [7, 7]


def test_the_help_says_what_a_model_without_at_costs(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["audit", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "compacts every past compaction again (one model call each)" in help_text
