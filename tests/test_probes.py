"""Offline probes (issue 15, part 1): built from the session's structure, answered by
looking their evidence up in the summary."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import unicodedata

import pytest

from goose_tui.analysis.probes import (
    PROBE_KINDS,
    offline_probes,
    offline_report,
    salient_terms,
    score_offline,
)
from goose_tui.compaction.summarize import summarize
from goose_tui.compaction.templates import load_templates
from goose_tui.llm import make_summarizer
from goose_tui.session.loader import load_session
from goose_tui.session.models import Message
from tests.conftest import ROOT, SAMPLES
from tests.test_retention import MAC_PATH, MAC_REQUEST, write_session

SAMPLE = SAMPLES / "long_session.jsonl"
LAST_ERROR = "ValueError: invalid literal for int() with base 10: '10.0'"


@pytest.fixture(scope="module")
def sample():
    session = load_session(SAMPLE)
    result = asyncio.run(summarize(session.messages, make_summarizer("offline"), load_templates()))
    return session, result.summary


def text(role: str, body: str) -> Message:
    return Message(role=role, content=[{"type": "text", "text": body}])


def call(tool_id: str, name: str, arguments: dict) -> Message:
    item = {
        "type": "toolRequest",
        "id": tool_id,
        "toolCall": {"status": "success", "value": {"name": name, "arguments": arguments}},
    }
    return Message(role="assistant", content=[item])


def result(tool_id: str, output: str, *, is_error: bool = False) -> Message:
    value = {"content": [{"type": "text", "text": output}], "isError": is_error}
    item = {
        "type": "toolResponse",
        "id": tool_id,
        "toolResult": {"status": "success", "value": value},
    }
    return Message(role="user", content=[item])


def small_session() -> list[Message]:
    return [
        text("user", "Make `make_report` write to /srv/out/report.csv please"),
        call("1", "developer__shell", {"command": "python report.py"}),
        result("1", "Traceback (most recent call last):\nKeyError: 'total'", is_error=True),
        text("assistant", "I'll read the totals column with .get() instead of indexing it."),
        call(
            "2", "developer__text_editor", {"command": "str_replace", "path": "/srv/app/report.py"}
        ),
        result("2", "The file /srv/app/report.py has been edited."),
        call("3", "developer__shell", {"command": "python report.py --check"}),
        result("3", "FAILED test_report.py::test_sum - assert 3 == 4", is_error=True),
        text("user", "Now also add a --dry-run flag to report.py"),
    ]


def test_every_kind_is_built_from_the_structure() -> None:
    probes = offline_probes(small_session(), working_dir="/srv/app")
    by_kind = {k: [p for p in probes if p.kind == k] for k in PROBE_KINDS}
    recall = [p.expected for p in by_kind["recall"]]
    # newest error first, then the commands, then what the user typed
    assert recall[:2] == ["FAILED test_report.py::test_sum - assert 3 == 4", "KeyError: 'total'"]
    assert "python report.py --check" in recall and "make_report" in recall
    artifact = by_kind["artifact"][0]
    assert artifact.expected == "/srv/app/report.py (edited)" and artifact.message_index == 4
    assert artifact.evidence == [["/srv/app/report.py", "report.py"]]
    continuation = {p.question: p for p in by_kind["continuation"]}
    last = continuation["What did the user ask for last?"]
    assert last.expected == "Now also add a --dry-run flag to report.py" and last.message_index == 8
    failing = [p for p in by_kind["continuation"] if p.question.startswith("What is still failing")]
    assert [p.expected for p in failing] == ["FAILED test_report.py::test_sum - assert 3 == 4"]
    decisions = [p.expected for p in by_kind["decision"]]
    assert "by changing /srv/app/report.py" in decisions
    assert any("instead of" in d for d in decisions)
    fix = next(p for p in by_kind["decision"] if p.expected.startswith("by changing"))
    assert fix.evidence[0] == ["KeyError: 'total'"] and fix.message_index == 4


def test_scores_are_the_share_of_evidence_found() -> None:
    messages = small_session()
    full = (
        "Error: KeyError: 'total' in python report.py, fixed in report.py. "
        "Still failing: FAILED test_report.py::test_sum - assert 3 == 4. "
        "Next: add a --dry-run flag to report.py."
    )
    report = offline_report(messages, full, working_dir="/srv/app")
    fix = next(r for r in report.results if r.probe.expected == "by changing /srv/app/report.py")
    assert fix.score == 1.0 and "report.py" in fix.answer
    empty = offline_report(messages, "nothing useful", working_dir="/srv/app")
    assert all(r.score == 0.0 and r.answer == "" for r in empty.results)
    assert empty.overall == 0.0 and report.overall > 0.5
    half = offline_report(messages, "KeyError: 'total' was seen", working_dir="/srv/app")
    fix = next(r for r in half.results if r.probe.expected == "by changing /srv/app/report.py")
    assert fix.score == 0.5 and fix.verdict == "1 of 2 found in the summary"


def test_a_summary_that_drops_the_last_error_scores_lower_on_recall(sample) -> None:
    session, summary = sample
    assert LAST_ERROR in summary
    dropped = "\n".join(line for line in summary.splitlines() if "10.0" not in line)
    assert LAST_ERROR not in dropped
    probes = offline_probes(session.messages, session.working_dir)
    keeping = score_offline(probes, summary)
    losing = score_offline(probes, dropped)
    assert losing.kind("recall").score < keeping.kind("recall").score
    first = losing.results[0]
    assert first.probe.kind == "recall" and first.probe.expected == LAST_ERROR
    assert first.score == 0.0 and keeping.results[0].score == 1.0


def test_the_sample_has_probes_of_every_kind(sample) -> None:
    session, summary = sample
    report = offline_report(session.messages, summary, session.working_dir)
    assert [k.kind for k in report.kinds] == list(PROBE_KINDS)
    assert all(k.probes > 0 and k.score is not None for k in report.kinds)
    assert all(
        r.probe.message_index is not None and 0 <= r.probe.message_index < len(session.messages)
        for r in report.results
    )
    assert report.calls == [] and report.cost_usd is None  # offline: no model calls


def decomposed_session() -> list[Message]:
    """A macOS session: the request and the file name written decomposed (NFD)."""
    path = unicodedata.normalize("NFD", MAC_PATH)
    return [
        text("user", unicodedata.normalize("NFD", MAC_REQUEST)),
        call("1", "developer__text_editor", {"command": "write", "path": path}),
        result("1", f"Wrote {path}"),
    ]


def test_decomposed_evidence_is_found_in_a_summary_of_its_composed_form() -> None:
    # The summarizer was given the composed (NFC) text; its summary quotes that.
    summary = f"## User Messages\n- {MAC_REQUEST}\n## Files\n- {MAC_PATH}: written\n"
    report = offline_report(decomposed_session(), summary)
    assert [(r.probe.kind, r.score) for r in report.results] == [
        ("artifact", 1.0),
        ("continuation", 1.0),
        ("continuation", 1.0),
    ]
    last_request = report.results[1]
    assert last_request.probe.question == "What did the user ask for last?"
    assert last_request.answer == f"- {MAC_REQUEST}"  # the summary's line, not the question


def test_salient_terms_keep_what_a_paraphrase_must_carry() -> None:
    terms = salient_terms("add a CHANGELOG entry for 0.4.2, test the 0.475 case in csv_import.py")
    assert terms == ["CHANGELOG", "0.4.2", "0.475", "csv_import.py"]


def test_cli_probe_json_offline(tmp_path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "goose_tui.cli", "probe", str(SAMPLE), "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["mode"] == "offline" and data["summary_source"] == "model offline"
    assert [k["kind"] for k in data["kinds"]] == list(PROBE_KINDS)
    assert all(k["probes"] > 0 for k in data["kinds"])
    assert 0 < data["overall"] <= 1
    item = data["results"][0]
    assert {"probe", "answer", "score", "verdict"} <= set(item)
    assert item["probe"]["message_index"] is not None

    summary = tmp_path / "summary.md"
    summary.write_text("nothing kept")
    done = subprocess.run(
        [sys.executable, "-m", "goose_tui.cli", "probe", str(SAMPLE), "--summary", str(summary)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "recall" in done.stdout and "0%" in done.stdout


def test_compare_reports_probe_scores_for_two_templates(tmp_path) -> None:
    short = tmp_path / "short-template"
    short.mkdir()
    (short / "compaction_summary.md").write_text(
        "# Intent\n{% for i in user_intent %}- {{ i }}\n{% endfor %}", encoding="utf-8"
    )
    args = ["compare", str(SAMPLE), "--a", "offline", "--b", "offline"]
    done = subprocess.run(
        [sys.executable, "-m", "goose_tui.cli", *args, "--b-prompts-dir", str(short), "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    left, right = data["left"]["probes"], data["right"]["probes"]
    assert [k["kind"] for k in left["kinds"]] == list(PROBE_KINDS)
    assert left["overall"] > right["overall"]
    by_kind = {k["kind"]: k["score"] for k in right["kinds"]}
    assert by_kind["recall"] < {k["kind"]: k["score"] for k in left["kinds"]}["recall"]

    text_out = subprocess.run(
        [sys.executable, "-m", "goose_tui.cli", *args, "--b-prompts-dir", str(short)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    ).stdout
    rows = {line.split()[0]: line for line in text_out.splitlines() if line.strip()}
    assert "probes" in rows and "recall" in rows and "decisions" in rows


async def test_batch_reports_probe_scores_per_session(tmp_path) -> None:
    from goose_tui.analysis.batch import run_batch, to_markdown
    from goose_tui.llm.spec import ModelSpec

    folder = tmp_path / "sessions"
    folder.mkdir()
    (folder / "long.jsonl").write_bytes(SAMPLE.read_bytes())
    report = await run_batch(folder, ModelSpec.offline().summarizer())
    entry = report.entries[0]
    assert entry.ok and entry.probes is not None and 0 < entry.probes <= 1
    assert set(entry.probe_kinds or {}) == set(PROBE_KINDS)
    assert report.totals.mean_probes == entry.probes
    markdown = to_markdown(report)
    assert "| probes |" in markdown and "mean probe score" in markdown


async def test_batch_finds_a_decomposed_session_in_its_offline_summary(tmp_path) -> None:
    from goose_tui.analysis.batch import run_batch
    from goose_tui.llm.spec import ModelSpec

    folder = tmp_path / "sessions"
    folder.mkdir()
    write_session(folder / "mac.jsonl", decomposed_session())
    entry = (await run_batch(folder, ModelSpec.offline().summarizer())).entries[0]
    assert entry.ok
    assert (entry.retention, entry.missing, entry.probes) == (1.0, 0, 1.0)
