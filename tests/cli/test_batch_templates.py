"""``goose-tui batch``: the offline model by default, as every command; and the same sessions
with several template folders, one table per folder, to choose an override."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from goose_tui.analysis.batch import TemplateBatches, is_batch_report
from goose_tui.cli import main
from tests.conftest import REALDATA

SESSIONS = ("export-session.json", "export-text.json")


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "sessions"
    folder.mkdir()
    for name in SESSIONS:
        shutil.copy(REALDATA / name, folder / name)
    return folder


@pytest.fixture
def short_templates(tmp_path: Path) -> Path:
    """A summary template that keeps the current work only."""
    folder = tmp_path / "short"
    folder.mkdir()
    (folder / "compaction_summary.md").write_text("# Summary\n{{ current_work }}\n")
    return folder


def test_batch_compacts_with_the_offline_model_when_none_is_named(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["batch", str(corpus), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["model"] == "offline"
    assert report["totals"]["succeeded"] == len(SESSIONS)


def test_batch_with_two_template_folders_reports_each(
    corpus: Path, short_templates: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    full = tmp_path / "full"
    full.mkdir()  # no override: the built-in templates, under this folder's name
    output = tmp_path / "report.json"
    argv = ["batch", str(corpus), "--prompts-dir", str(full), "--prompts-dir", str(short_templates)]
    assert main([*argv, "-o", str(output)]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    # First the folders side by side, then one table per folder, each naming its folder.
    assert lines[0].split() == [
        "TEMPLATES", "COMPACTED", "FAILED", "FALLBACKS", "SUMMARY", "RETENTION", "PROBES",
    ]  # fmt: skip
    assert lines[1].split()[:3] == [str(full), "2", "0"]
    assert lines[2].split()[:3] == [str(short_templates), "2", "0"]
    assert f"templates {full}" in lines and f"templates {short_templates}" in lines
    assert captured.out.count("SESSION  ") == 2
    # Progress on stderr names the folder of each row.
    assert f"goose-tui: {short_templates}: {corpus / SESSIONS[0]}: ok" in captured.err

    batches = TemplateBatches.model_validate_json(output.read_text())
    assert [r.prompts_dir for r in batches.reports] == [str(full), str(short_templates)]
    long, short = batches.reports
    assert [e.source for e in long.entries] == [e.source for e in short.entries]
    # The trimmed template makes smaller summaries that keep less of the history.
    assert short.totals.summary_tokens < long.totals.summary_tokens
    assert (short.totals.mean_retention or 0) < (long.totals.mean_retention or 0)
    markdown = output.with_suffix(".md").read_text()
    assert markdown.startswith("# Batch compaction: offline, 2 template folders\n")
    assert f"## Templates: {short_templates}" in markdown
    assert markdown.count("| session | messages |") == 2
    # The report written into a folder is known as a report, not read as a session.
    assert is_batch_report(output)
    # `goose-tui schema batch` describes it, as it describes a one-folder report.
    jsonschema = pytest.importorskip("jsonschema")
    assert main(["schema", "batch"]) == 0
    schema = json.loads(capsys.readouterr().out)
    jsonschema.validate(json.loads(output.read_text()), schema)
    assert main(["batch", str(corpus), "--json"]) == 0
    jsonschema.validate(json.loads(capsys.readouterr().out), schema)


def test_batch_refuses_a_bad_second_template_folder_before_any_work(
    corpus: Path, short_templates: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nowhere"
    argv = ["batch", str(corpus), "--prompts-dir", str(short_templates), "--prompts-dir"]
    assert main([*argv, str(missing)]) == 2
    captured = capsys.readouterr()
    assert f"--prompts-dir {missing}: not a folder" in captured.err
    assert ": ok" not in captured.err and captured.out == ""


def test_one_template_folder_reports_as_before(
    corpus: Path, short_templates: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["batch", str(corpus), "--prompts-dir", str(short_templates), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["prompts_dir"] == str(short_templates) and "reports" not in report
