"""`goose-tui schema` for the probe reports: the JSON that probe, compare and batch print
validates against the schema printed for it, with the evidence each offline probe looks
for, each kind's found / partial / missing counts, each result's outcome and the three
models of a model run (writer, answerer, judge)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from goose_tui import cli
from goose_tui.analysis.probe_model import run_probes
from goose_tui.cli.reports import ProbeOutput
from goose_tui.llm.spec import ModelSpec
from tests.analysis.scripted_reader import PROSE_JUDGE
from tests.analysis.test_probe_judging import READER, VERBATIM, session
from tests.conftest import LITELLM_GROUP, SAMPLES
from tests.loopback import LoopbackServer

pytestmark = pytest.mark.xdist_group(LITELLM_GROUP)

LONG = SAMPLES / "long_session.jsonl"
KIND_KEYS = {"kind", "probes", "score", "found", "partial", "missing", "unscored", "weight"}


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    assert cli.main(list(argv)) == 0, argv
    return json.loads(capsys.readouterr().out)


def test_an_offline_probe_report_validates_with_its_evidence_and_counts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    schema = run_json(capsys, "schema", "probe")
    data = run_json(capsys, "probe", str(LONG), "--json")
    jsonschema.validate(data, schema)
    assert (data["mode"], data["writer"], data["answerer"], data["judge"]) == (
        "offline", None, None, None
    )  # fmt: skip
    assert all(set(k) == KIND_KEYS for k in data["kinds"])
    evidence = [e for r in data["results"] for e in r["probe"]["evidence"]]
    assert {e["match"] for e in evidence} >= {"exact", "path", "words"}
    assert all(r["outcome"] in ("found", "partial", "missing") for r in data["results"])
    defs = schema["$defs"]
    assert set(defs["KindScore"]["properties"]) == KIND_KEYS
    assert "outcome" in defs["ProbeResult"]["required"]
    assert {"match", "terms", "need", "where", "near"} <= set(defs["Evidence"]["properties"])
    assert "exact" in defs["Probe"]["properties"]
    for broken in ({**data, "answerer": 3}, {**data, "kinds": [{"kind": "mood"}]}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(broken, schema)


async def test_a_model_run_validates_with_its_three_models_and_unscored_answers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback-not-a-secret")
    schema = ProbeOutput.model_json_schema(mode="serialization")
    with LoopbackServer(responder=READER) as server:
        api = f"{server.url}/v1"
        report = await run_probes(
            session(),
            VERBATIM,
            ModelSpec.parse("openai/writer", api_base=api),
            ModelSpec.parse(f"openai/{PROSE_JUDGE}", api_base=api),
            answerer=ModelSpec.parse("openai/answerer", api_base=api),
        )
    data = ProbeOutput.of("tz", "summary.md", report).model_dump(mode="json")
    jsonschema.validate(data, schema)
    assert (data["writer"], data["answerer"], data["judge"]) == (
        "openai/writer", "openai/answerer", f"openai/{PROSE_JUDGE}"
    )  # fmt: skip
    assert {(r["score"], r["outcome"]) for r in data["results"]} == {(None, "unscored")}
    assert data["overall"] is None and all(k["unscored"] == k["probes"] for k in data["kinds"])


def test_compare_and_batch_reports_carry_the_kind_counts(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    short = str(SAMPLES / "short.jsonl")
    compare = run_json(capsys, "compare", short, "--a", "offline", "--b", "offline", "--json")
    jsonschema.validate(compare, run_json(capsys, "schema", "compare"))
    assert all(set(side["probes"]) >= {"answerer", "kinds", "results"} for side in compare["sides"])
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "short.jsonl").write_bytes((SAMPLES / "short.jsonl").read_bytes())
    batch = run_json(capsys, "batch", str(corpus), "--model", "offline", "--json")
    jsonschema.validate(batch, run_json(capsys, "schema", "batch"))
    kinds = batch["entries"][0]["probe_kinds"]
    assert [set(k) for k in kinds] == [KIND_KEYS] * 4
    assert sum(k["found"] + k["partial"] + k["missing"] for k in kinds) == sum(
        k["probes"] for k in kinds
    )
