"""Probes with a real model, end to end: litellm against the scripted loopback server writes
the probes, answers each from the summary alone and judges each answer (issue 15).

The scripted model is tests/analysis/scripted_reader.py: it writes a fixed set of probes,
answers from what the summary states and judges what an answer means against the reference
and the summary, through a table of facts and their phrasings. So every score depends on
what travelled through the templates, the HTTP path and the parsers."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from goose_tui.analysis.probe_model import (
    ProbeCache,
    model_probe_report,
    numbered_history,
    parse_judgement,
    parse_probes,
    run_probes,
)
from goose_tui.compaction.summarize import summarize
from goose_tui.compaction.templates import load_templates
from goose_tui.llm import make_summarizer
from goose_tui.llm.spec import ModelSpec
from goose_tui.session.loader import load_session
from tests.analysis.scripted_reader import ScriptedReader
from tests.conftest import LITELLM_GROUP, SAMPLES, litellm_refused_here
from tests.loopback import LoopbackServer, Reply

# On one xdist worker with the other tests that call litellm in this process or through its
# shared worker (tests/conftest.py, LITELLM_GROUP): litellm's import, 3-8 s of CPU, is paid
# once, not once per worker.
pytestmark = pytest.mark.xdist_group(LITELLM_GROUP)

SAMPLE = SAMPLES / "long_session.jsonl"
LAST_ERROR = "ValueError: invalid literal for int() with base 10: '10.0'"
PROBES = [
    {
        "kind": "recall",
        "question": "What error did the CSV import raise?",
        "expected": LAST_ERROR,
        "message": 22,
    },
    {
        "kind": "recall",
        "question": "Which quantity string broke it?",
        "expected": "10.0",
        "message": 22,
    },
    {
        "kind": "artifact",
        "question": "Which file parses the CSV?",
        "expected": "csv_import.py",
        "message": 26,
    },
    {
        "kind": "continuation",
        "question": "What version goes in the CHANGELOG?",
        "expected": "0.4.2",
        "message": 43,
    },
    {
        "kind": "decision",
        "question": "Which number type replaced float?",
        "expected": "Decimal",
        "message": 10,
    },
    {"kind": "bogus", "question": "dropped: unknown kind", "expected": "x", "message": 1},
]
USAGE = {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}


READER = ScriptedReader(
    probes=PROBES,
    facts={
        "int-error": ["ValueError", "invalid literal for int()"],
        "10.0": ["10.0"],
        "csv-file": ["csv_import.py"],
        "version": ["0.4.2"],
        "decimal": ["Decimal"],
    },
    about={
        "What error did the CSV import raise?": ["int-error", "10.0"],
        "Which quantity string broke it?": ["10.0"],
        "Which file parses the CSV?": ["csv-file"],
        "What version goes in the CHANGELOG?": ["version"],
        "Which number type replaced float?": ["decimal"],
    },
)


def scripted_model(body: Any) -> Reply:
    system = body["messages"][0]["content"]
    if "preparing an exam" in system:  # prompts/probe_write.md
        assert "#23 [user]: tool_response:" in system  # numbered history
    if "handing this session over" in system:  # prompts/compaction.md: the app compacts
        summary = {"errors_and_fixes": [f"{LAST_ERROR}: fixed in csv_import.py"]}
        return Reply.ok(f"```json\n{json.dumps(summary)}\n```", USAGE)
    return READER(body)


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback-not-a-secret")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


@pytest.fixture(scope="module")
def sample():
    session = load_session(SAMPLE)
    result = asyncio.run(summarize(session.messages, make_summarizer("offline"), load_templates()))
    return session, result.summary


def _server() -> LoopbackServer:
    return LoopbackServer(responder=scripted_model)


async def test_write_answer_judge_end_to_end(sample, tmp_path: Path) -> None:
    session, summary = sample
    with _server() as server:
        api = f"{server.url}/v1"
        writer = make_summarizer("openai/probe-writer", api_base=api)
        judge = make_summarizer("openai/probe-judge", api_base=api)
        report = await model_probe_report(
            session.messages, summary, writer, judge, cache=ProbeCache(tmp_path / "c")
        )
        bodies = server.bodies()
    assert report.mode == "model" and report.writer == "openai/probe-writer"
    assert report.judge == "openai/probe-judge"
    assert [r.probe.kind for r in report.results] == [
        "recall", "recall", "artifact", "continuation", "decision"
    ]  # fmt: skip
    assert [r.probe.message_index for r in report.results] == [21, 21, 25, 42, 9]
    # each answered in the summary's words, and judged to carry the reference's meaning
    assert all(r.score == 1.0 and r.answer != "NOT IN SUMMARY" for r in report.results)
    assert report.overall == 1.0
    # 1 write + 5 answers + 5 judgements, each with the provider's usage
    assert len(bodies) == 11
    assert [b["model"] for b in bodies].count("probe-judge") == 5
    stages = [c.stage for c in report.calls]
    assert stages.count("write") == 1 and stages.count("answer") == stages.count("judge") == 5
    assert all(c.total_tokens == 110 and not c.cached for c in report.calls)
    assert report.tokens == 11 * 110
    assert report.cost_usd is None  # loopback models have no price


async def test_a_summary_without_the_last_error_scores_lower_on_recall(sample) -> None:
    session, summary = sample
    dropped = "\n".join(line for line in summary.splitlines() if "10.0" not in line)
    with _server() as server:
        api = f"{server.url}/v1"
        keep = await run_probes(
            session.messages, summary, ModelSpec.parse("openai/m", api_base=api)
        )
        lose = await run_probes(
            session.messages, dropped, ModelSpec.parse("openai/m", api_base=api)
        )
    assert keep.kind("recall").score == 1.0
    assert lose.kind("recall").score == 0.0
    assert lose.results[0].answer == "NOT IN SUMMARY" and lose.results[0].score == 0.0
    assert lose.kind("artifact").score == keep.kind("artifact").score == 1.0


async def test_a_hand_edit_re_asks_only_what_changed(sample, tmp_path: Path) -> None:
    session, summary = sample
    cache = ProbeCache(tmp_path / "cache")
    edited = summary.replace("Decimal", "decimal numbers")
    with _server() as server:
        api = f"{server.url}/v1"
        first = await run_probes(
            session.messages, summary, ModelSpec.parse("openai/m", api_base=api), cache=cache
        )
        assert len(server.requests) == 11
        again = await run_probes(
            session.messages, summary, ModelSpec.parse("openai/m", api_base=api), cache=cache
        )
        assert len(server.requests) == 11  # everything from the cache
        after_edit = await run_probes(
            session.messages, edited, ModelSpec.parse("openai/m", api_base=api), cache=cache
        )
        # the probes are not rewritten (same history); the 5 answers are re-asked and
        # judged again, as the judge reads the summary too
        assert len(server.requests) == 11 + 5 + 5
    assert all(c.cached for c in again.calls) and again.tokens == 0 and again.cost_usd == 0.0
    assert [r.score for r in again.results] == [r.score for r in first.results]
    decision = after_edit.kind("decision")  # "decimal numbers" still says Decimal
    assert decision.score == 1.0 and after_edit.kind("recall").score == 1.0
    assert sum(1 for c in after_edit.calls if not c.cached) == 10


def test_parsers_are_lenient_but_never_invent() -> None:
    probes = parse_probes(
        '{"probes": [{"kind": "Recall", "question": "q?", "expected": 3, "message": 99}]}', 10
    )
    assert len(probes) == 1 and probes[0].kind == "recall" and probes[0].expected == "3"
    assert probes[0].message_index is None  # 99 is outside the history
    assert parse_probes("no json here", 10) == []
    assert parse_judgement('```json\n{"score": 1.7, "reason": "ok"}\n```') == (1.0, "ok")
    assert parse_judgement("I'd say 0.5 overall")[0] is None  # prose is no judgement
    assert parse_judgement("no idea")[0] is None


def test_numbered_history_names_messages_as_the_app_does(sample) -> None:
    session, _ = sample
    text = numbered_history(session.messages)
    assert text.startswith("#1 [user]: Our accountant flagged")
    assert f"\n#{len(session.messages)} [user]: Perfect. Next:" in text


def test_every_command_calls_a_model_in_the_worker_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """probe's --judge, compare's --a/--b and batch's --model call their models in the
    worker that --model's calls go to (goose_tui/llm/litellm_worker.py), never through a
    client of the command's own process, which would import litellm there (seconds on its
    main thread, and ~200 MB). Run in this process with litellm refused here, on the
    group's shared worker."""
    from goose_tui.cli import main

    summary = tmp_path / "summary.md"
    summary.write_text(f"The CSV import failed: {LAST_ERROR}. Fixed in csv_import.py.\n")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / SAMPLE.name).write_bytes(SAMPLE.read_bytes())
    report = tmp_path / "batch.json"
    with _server() as server:
        api = ["--api-base", f"{server.url}/v1"]
        argvs = [
            ["probe", str(SAMPLE), "--summary", str(summary), "--model", "openai/w",
             "--judge", "openai/j", *api, "--json"],
            ["compare", str(SAMPLE), "--a", "openai/a", "--b", "offline", *api, "--json"],
            ["batch", str(corpus), "--model", "openai/b", *api, "-o", str(report)],
        ]  # fmt: skip
        codes, outs, errs = [], [], []
        with litellm_refused_here() as attempts:
            for argv in argvs:
                codes.append(main(argv))
                out, err = capsys.readouterr()
                outs.append(out)
                errs.append(err)
        models = [body["model"] for body in server.bodies()]
    assert codes == [0, 0, 0] and not attempts, errs
    assert models.count("j") == 5 and models.count("a") == 1 and models.count("b") == 1
    data = json.loads(outs[0])
    assert data["mode"] == "model" and data["writer"] == "openai/w" and data["judge"] == "openai/j"
    scores = {k["kind"]: k["score"] for k in data["kinds"]}
    assert scores == {"recall": 1.0, "artifact": 1.0, "continuation": 0.0, "decision": 0.0}
    assert data["calls_made"] == 11 and data["tokens"] == 11 * 110
    assert all(
        set(c) >= {"stage", "model", "total_tokens", "cost_usd", "cached"} for c in data["calls"]
    )
    assert LAST_ERROR in outs[1]
    entry = json.loads(report.read_text())["entries"][0]
    assert entry["error"] is None and not entry["fallback"] and entry["summary_tokens"] > 0


def test_cli_probe_judge_needs_a_model(cli) -> None:
    done = cli("probe", str(SAMPLE), "--judge", "openai/j")
    assert done.returncode == 2 and "--judge needs --model" in done.stderr


async def test_every_call_reports_its_cost_for_a_priced_model(sample) -> None:
    from goose_tui.analysis.compare import model_prices

    session, summary = sample
    prices = model_prices("openai/gpt-4o-mini")
    assert prices is not None
    with _server() as server:
        report = await run_probes(
            session.messages,
            summary,
            ModelSpec.parse("openai/gpt-4o-mini", api_base=f"{server.url}/v1"),
        )
    each = 100 * prices[0] + 10 * prices[1]
    assert len(report.calls) == 11
    assert all(c.cost_usd == pytest.approx(each) for c in report.calls)
    assert report.cost_usd == pytest.approx(11 * each)


async def test_probe_templates_are_overridden_like_the_compaction_ones(
    sample, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session, summary = sample
    folder = tmp_path / "prompts"
    folder.mkdir()
    (folder / "probe_judge.md").write_text("CUSTOM JUDGE of {{ answer }}", encoding="utf-8")
    user_dir = tmp_path / "config" / "goose" / "prompts"
    user_dir.mkdir(parents=True)
    (user_dir / "probe_answer.md").write_text(
        "## Your summary\n{{ summary }}\n## Question\n{{ question }}\nAnswer from the summary only",
        encoding="utf-8",
    )
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))

    def responder(body: Any) -> Reply:
        system = body["messages"][0]["content"]
        if system.startswith("CUSTOM JUDGE of "):
            return Reply.ok('{"score": 0.25, "reason": "custom"}')
        return scripted_model(body)

    with LoopbackServer(responder=responder) as server:
        report = await run_probes(
            session.messages,
            summary,
            ModelSpec.parse("openai/m", api_base=f"{server.url}/v1"),
            prompts_dir=folder,
        )
        answer_prompts = [
            b["messages"][0]["content"] for b in server.bodies() if "## Question" in str(b)
        ]
    assert {r.score for r in report.results} == {0.25}
    assert {r.verdict for r in report.results} == {"custom"}
    # the user's probe_answer.md (found in ~/.config/goose/prompts/) was the one sent
    assert answer_prompts and all(p.startswith("## Your summary") for p in answer_prompts)
