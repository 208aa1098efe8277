"""The CLI as a package (issue 13): ``python -m goose_tui``, the ``--json`` outputs as
pydantic models with the keys they always had, ``goose-tui schema``, and the model choice
parsed once into a ``ModelSpec``."""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from goose_tui import cli
from goose_tui.analysis.batch import run_batch
from goose_tui.analysis.probe_model import run_probes, uses_a_model
from goose_tui.cli.reports import OUTPUTS, CompactOutput
from goose_tui.cli.schema import NAMES
from goose_tui.llm.spec import ModelSpec
from tests.conftest import ROOT, SAMPLES

SHORT = SAMPLES / "short.jsonl"
LONG = SAMPLES / "long_session.jsonl"
REPLY = """<analysis>
- a greeting file
</analysis>

```json
{"user_intent": ["create greeting.txt"], "current_work": "done", "mood": "fine"}
```
"""

# The keys `compact --json` has always printed, in order (the hand-built dict before issue 13).
COMPACT_KEYS = [
    "model",
    "goose_profile",
    "focus",
    "system_prompt",
    "request",
    "raw_response",
    "analysis",
    "structured",
    "summary",
    "fallback",
    "fallback_reason",
    "candidate",
    "attempts",
    "estimated_input_tokens",
    "estimated_input_cost_usd",
    "cost_usd",
    "usage",
    "reported_usage",
    "request_fit",
]


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[str, Any]:
    code = cli.main(list(argv))
    out = capsys.readouterr().out
    assert code == 0, argv
    return out, json.loads(out)


@pytest.fixture
def reply(tmp_path: Path) -> Path:
    path = tmp_path / "reply.txt"
    path.write_text(REPLY, encoding="utf-8")
    return path


def test_python_dash_m_goose_tui_is_the_goose_tui_command(cli) -> None:
    def run(*module: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", *module, "format", str(SHORT)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=120,
        )

    package, cli_module = run("goose_tui"), run("goose_tui.cli")
    assert package.returncode == 0, package.stderr
    assert package.stdout == cli_module.stdout and package.stdout.startswith("[user]: ")
    version = cli("--version")
    assert version.returncode == 0 and version.stdout.startswith("goose-tui ")


def test_compact_json_keeps_its_keys_in_order_and_round_trips(
    capsys: pytest.CaptureFixture[str], reply: Path
) -> None:
    out, data = run_json(capsys, "compact", str(SHORT), "--replay", str(reply), "--json")
    assert list(data) == COMPACT_KEYS
    assert list(data["attempts"][0]) == [
        "removed_percent",
        "removed_messages",
        "outcome",
        "tokens_sent",
    ]
    assert data["structured"]["mood"] == "fine"  # extras kept
    model = CompactOutput.model_validate_json(out)
    assert model.model_dump(mode="json") == data


async def test_compact_json_joins_the_prompt_once(reply: Path) -> None:
    # The request's system message holds the prompt's pieces; dumped as they were, the
    # report held a second joined copy (188 MB more for the 53 MB session's prompt).
    from goose_tui.compaction.summarize import summarize
    from goose_tui.compaction.templates import load_templates
    from goose_tui.llm.replay import ReplaySummarizer
    from goose_tui.session.loader import load_session

    messages = load_session(SHORT).messages
    model, templates = ReplaySummarizer(reply), load_templates(None)
    result = await summarize(messages, model, templates, estimate_tokens=True)
    output = CompactOutput.of(result, "goose-sdk-wheel")
    assert output.request[0].content is output.system_prompt
    assert output.system_prompt == str(result.request.prompt)


def test_the_schema_of_compact_validates_a_real_compact_output(
    capsys: pytest.CaptureFixture[str], reply: Path
) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    _, schema = run_json(capsys, "schema", "compact")
    assert schema == CompactOutput.model_json_schema(mode="serialization")
    for extra in ([], ["--replay", str(reply)]):
        _, data = run_json(capsys, "compact", str(SHORT), "--json", *extra)
        jsonschema.validate(data, schema)
    broken = {**data, "attempts": "none"}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)


def test_schema_without_a_name_covers_every_json_output(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, every = run_json(capsys, "schema")
    assert list(every) == list(NAMES) and set(NAMES) == set(OUTPUTS)
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    with_json = {
        name
        for name, p in sub.choices.items()
        if any("--json" in a.option_strings for a in p._actions)
    }
    assert with_json == set(NAMES)  # a new --json output gets a model and a schema
    assert every["usage"]["properties"]["limit_source"]["enum"] == [
        "session",
        "model-map",
        "cli",
        "assumed",
    ]


@pytest.mark.parametrize(
    ("name", "argv"),
    [
        ("parse", ["parse", "{reply}", "--json"]),
        ("usage", ["usage", str(LONG), "--json"]),
        ("sessions", ["sessions", str(SAMPLES / "sessions.db"), "--json"]),
        ("retention", ["retention", str(SHORT), "--json"]),
        ("probe", ["probe", str(SHORT), "--json"]),
        ("compare", ["compare", str(SHORT), "--a", "offline", "--b", "replay:{reply}", "--json"]),
        ("timeline", ["timeline", str(LONG), "--json"]),
        ("batch", ["batch", str(SAMPLES), "--model", "offline", "--json"]),
    ],
)
def test_every_json_output_is_its_model_dumped(
    capsys: pytest.CaptureFixture[str], reply: Path, name: str, argv: list[str]
) -> None:
    out, data = run_json(capsys, *(a.format(reply=reply) for a in argv))
    model: BaseModel = OUTPUTS[name].model_validate_json(out)
    again = model.model_dump(mode="json")
    assert again == data
    if isinstance(data, dict):
        assert list(again) == list(data)  # and the keys in the order printed


def test_a_bad_model_is_reported_after_the_sessions_own_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, reply: Path
) -> None:
    """Parsed once at the start, the model choice still fails where it always did."""
    missing = tmp_path / "missing.jsonl"
    assert cli.main(["compact", str(missing), "--model", "x", "--replay", str(reply)]) == 2
    assert "missing.jsonl" in capsys.readouterr().err
    assert cli.main(["compact", str(SHORT), "--model", "x", "--replay", str(reply)]) == 2
    assert "give either --model or --replay, not both" in capsys.readouterr().err
    assert cli.main(["compact", str(SHORT), "--replay", str(tmp_path / "nope.txt")]) == 2
    assert "nope.txt: no such reply file" in capsys.readouterr().err


def test_only_a_litellm_model_writes_and_answers_probes(tmp_path: Path) -> None:
    assert not uses_a_model(None)
    assert not uses_a_model(ModelSpec.offline())
    assert not uses_a_model(ModelSpec.parse(f"replay:{tmp_path / 'r.txt'}"))
    assert uses_a_model(ModelSpec.parse("openai/m", api_base="http://127.0.0.1:1/v1"))
    from goose_tui.session.loader import load_session

    session = load_session(SHORT)
    offline = asyncio.run(run_probes(session.messages, "summary", ModelSpec.offline()))
    assert offline.mode == "offline" and offline.calls == []
    with pytest.raises(ValueError, match="judge"):
        asyncio.run(run_probes(session.messages, "s", None, ModelSpec.parse("openai/j")))


def test_a_batch_report_names_the_summarizer_it_ran(tmp_path: Path, reply: Path) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    (folder / "short.jsonl").write_bytes(SHORT.read_bytes())
    spec = ModelSpec.from_options(None, reply)
    report = asyncio.run(run_batch(folder, spec.summarizer()))
    assert report.model == spec.name == f"replay:{reply}"
    assert report.totals.succeeded == 1


def test_a_sub_command_imports_only_what_it_needs() -> None:
    # Every run built the parser of all thirteen commands, importing compare, probes,
    # retention and batch (~85 ms) for `goose-tui usage` too.
    import subprocess
    import sys

    from tests.conftest import SAMPLES

    code = (
        "import sys, contextlib, io\n"
        "from goose_tui.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = main(['usage', {str(SAMPLES / 'short.jsonl')!r}])\n"
        "print(code, sorted(m for m in sys.modules if m.startswith('goose_tui.analysis')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    code_, modules = out.split(" ", 1)
    assert code_ == "0" and "goose_tui.analysis.breakdown" in modules  # what usage shows
    for unneeded in ("compare", "probes", "retention", "batch", "probe_model"):
        assert f"goose_tui.analysis.{unneeded}'" not in modules
    # The full parser still has every command (`build_parser()`, as the schema test reads).
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert set(sub.choices) == set(cli.SUBCOMMANDS)
