"""Offline probes (issue 15, part 1): built from the session's structure, answered by
looking their evidence up in the summary."""

from __future__ import annotations

import asyncio
import json
import unicodedata

import pytest

from goose_tui.analysis.probes import (
    PROBE_KINDS,
    error_terms,
    offline_probes,
    offline_report,
    score_offline,
)
from goose_tui.compaction.summarize import summarize
from goose_tui.compaction.templates import load_templates
from goose_tui.llm import make_summarizer
from goose_tui.session.loader import load_session
from goose_tui.session.models import Message
from tests.analysis.test_retention import MAC_PATH, MAC_REQUEST, write_session
from tests.conftest import SAMPLES

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
    continuation = {p.question: p for p in by_kind["continuation"]}
    last = continuation["What did the user ask for last?"]
    assert last.expected == "Now also add a --dry-run flag to report.py" and last.message_index == 8
    failing = continuation["What is still failing?"]
    assert failing.expected == "FAILED test_report.py::test_sum - assert 3 == 4"
    assert failing.evidence[0].where == "state"  # a list of error lines does not answer it
    artifact = by_kind["artifact"][0]
    assert artifact.expected.startswith("/srv/app/report.py (edited)")
    assert artifact.message_index == 4 and artifact.evidence[0].terms == ["report.py"]
    decision = by_kind["decision"][0]  # "I'll read … with .get() instead of indexing it."
    assert "instead of" in decision.expected and decision.message_index == 3
    recall = [p.expected for p in by_kind["recall"]]
    assert recall[0] == "report.py" and "make_report" in recall  # the newest request first


def test_paraphrase_is_found_and_a_string_dump_answers_no_continuation() -> None:
    messages = small_session()
    paraphrase = (
        "## Current Work\nThe check run still fails: test_sum in test_report.py asserts "
        "3 == 4.\n\n## Next Step\nThe user now wants a --dry-run flag added to report.py.\n"
    )
    dump = "- FAILED test_report.py::test_sum - assert 3 == 4\n- python report.py --check\n"
    good = offline_report(messages, paraphrase, working_dir="/srv/app")
    bad = offline_report(messages, dump, working_dir="/srv/app")
    failing = next(r for r in good.results if r.probe.question == "What is still failing?")
    assert failing.score is not None and failing.score >= 0.75
    assert bad.kind("continuation").score == 0.0
    assert (good.overall or 0) > (bad.overall or 0)
    empty = offline_report(messages, "nothing useful", working_dir="/srv/app")
    assert all(r.score == 0.0 and r.answer == "" for r in empty.results)
    assert empty.overall == 0.0


def test_errors_are_matched_by_their_core() -> None:
    assert error_terms("zoneinfo._common.ZoneInfoNotFoundError: 'No time zone found'") == (
        "ZoneInfoNotFoundError",
        ["zoneinfo", "common", "time", "zone", "found"],
    )


def test_a_summary_that_drops_the_last_request_scores_lower_on_continuation(sample) -> None:
    session, summary = sample
    dropped = "\n".join(line for line in summary.splitlines() if "CHANGELOG" not in line)
    probes = offline_probes(session.messages, session.working_dir)
    keeping = score_offline(probes, summary)
    losing = score_offline(probes, dropped)
    assert losing.kind("continuation").score < keeping.kind("continuation").score
    first = losing.results[0]
    assert first.probe.question == "What did the user ask for last?"
    assert first.score is not None and first.score < keeping.results[0].score


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
        ("continuation", 1.0),
        ("artifact", 1.0),
        ("recall", 1.0),
    ]
    last_request = report.results[0]
    assert last_request.probe.question == "What did the user ask for last?"
    assert last_request.answer == f"- {MAC_REQUEST}"  # the summary's line, not the question


def test_cli_probe_json_offline(cli, tmp_path) -> None:
    done = cli("probe", str(SAMPLE), "--json")
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
    done = cli("probe", str(SAMPLE), "--summary", str(summary))
    assert done.returncode == 0, done.stderr
    assert "continuation" in done.stdout and "0%" in done.stdout


def test_compare_reports_probe_scores_for_two_templates(cli, tmp_path) -> None:
    short = tmp_path / "short-template"
    short.mkdir()
    (short / "compaction_summary.md").write_text(
        "# Intent\n{% for i in user_intent %}- {{ i }}\n{% endfor %}", encoding="utf-8"
    )
    args = ["compare", str(SAMPLE), "--a", "offline", "--b", "offline"]
    done = cli(*args, "--b-prompts-dir", str(short), "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    left, right = (side["probes"] for side in data["sides"])
    assert [k["kind"] for k in left["kinds"]] == list(PROBE_KINDS)
    assert left["overall"] > right["overall"]
    by_kind = {k["kind"]: k["score"] for k in right["kinds"]}
    left_kinds = {k["kind"]: k["score"] for k in left["kinds"]}
    assert by_kind["continuation"] < left_kinds["continuation"]

    text_out = cli(*args, "--b-prompts-dir", str(short)).stdout
    rows = {line.split()[0]: line for line in text_out.splitlines() if line.strip()}
    assert (
        "continuation" in rows and "decisions" in rows and "can the agent act (probes)" in text_out
    )


async def test_batch_reports_probe_scores_per_session(tmp_path) -> None:
    from goose_tui.analysis.batch import run_batch, to_markdown
    from goose_tui.llm.spec import ModelSpec

    folder = tmp_path / "sessions"
    folder.mkdir()
    (folder / "long.jsonl").write_bytes(SAMPLE.read_bytes())
    report = await run_batch(folder, ModelSpec.offline().summarizer())
    entry = report.entries[0]
    assert entry.ok and entry.probes is not None and 0 < entry.probes <= 1
    assert [k.kind for k in entry.probe_kinds or []] == list(PROBE_KINDS)
    assert report.totals.mean_probes == entry.probes
    markdown = to_markdown(report)
    assert "| can the agent act (probes) |" in markdown and "mean can the agent act" in markdown


async def test_batch_finds_a_decomposed_session_in_its_offline_summary(tmp_path) -> None:
    from goose_tui.analysis.batch import run_batch
    from goose_tui.llm.spec import ModelSpec

    folder = tmp_path / "sessions"
    folder.mkdir()
    write_session(folder / "mac.jsonl", decomposed_session())
    entry = (await run_batch(folder, ModelSpec.offline().summarizer())).entries[0]
    assert entry.ok
    assert (entry.retention, entry.missing, entry.probes) == (1.0, 0, 1.0)
