"""Batch: many sessions, one report; one failure never stops the rest."""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from goose_tui.analysis.batch import collect_jobs, run_batch, to_markdown
from goose_tui.compaction.summarize import NOTHING_TO_REMOVE
from goose_tui.llm.base import ChatMessage, Completion, ContextLengthExceeded, OnChunk
from goose_tui.llm.spec import ModelSpec
from goose_tui.session.schema import create_schema, insert_session
from goose_tui.tokens import TokenCounter
from tests.conftest import REALDATA


def db_message(role: str, text: str, created: int) -> dict:
    return {
        "role": role,
        "created": created,
        "content": [{"type": "text", "text": text}],
        "metadata": {"userVisible": True, "agentVisible": True},
    }


def make_db(path: Path) -> Path:
    connection = sqlite3.connect(path)
    create_schema(connection)
    for n, text in enumerate(["rename parse_args in cli.py", "why does `make test` fail?"]):
        insert_session(
            connection,
            {
                "id": f"2025100{n + 1}_1",
                "name": f"db session {n}",
                "working_dir": "/home/dev/proj",
                "created_at": "2025-10-01 08:00:00",
                "updated_at": f"2025-10-0{n + 1} 09:00:00",
                "model_config": {"model_name": "gpt-4o", "context_limit": 128000},
            },
            [
                db_message("user", text, 1_759_300_000 + n),
                db_message("assistant", "on it", 1_759_300_005 + n),
            ],
        )
    connection.commit()
    connection.close()
    return path


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "sessions"
    folder.mkdir()
    for name in ("export-session.json", "export-text.json"):
        shutil.copy(REALDATA / name, folder / name)
    (folder / "broken.jsonl").write_text("{not json at all\n")
    (folder / "notes.txt").write_text("not a session, not looked at")
    make_db(folder / "sessions.db")
    return folder


def test_collect_jobs_from_a_folder(corpus: Path) -> None:
    jobs = [j.source for j in collect_jobs(corpus)]
    assert jobs == [
        str(corpus / "broken.jsonl"),
        str(corpus / "export-session.json"),
        str(corpus / "export-text.json"),
        f"{corpus / 'sessions.db'}#20251002_1",
        f"{corpus / 'sessions.db'}#20251001_1",
    ]
    assert [j.session_id for j in collect_jobs(corpus / "sessions.db")] == [
        "20251002_1",
        "20251001_1",
    ]


def test_one_broken_file_fails_alone_and_the_rest_are_summarized(corpus: Path) -> None:
    seen: list[str] = []
    report = asyncio.run(
        run_batch(
            corpus,
            ModelSpec.offline().summarizer(),
            concurrency=2,
            on_entry=lambda e: seen.append(e.source),
        )
    )
    by_source = {e.source: e for e in report.entries}
    broken = by_source[str(corpus / "broken.jsonl")]
    assert broken.error is not None and "broken.jsonl" in broken.error
    assert broken.summary_tokens is None
    ok = [e for e in report.entries if e.ok]
    assert len(ok) == 4
    for entry in ok:
        assert entry.summary_tokens and entry.summary_tokens > 0
        assert entry.attempts == 1
        assert entry.retention is not None and 0 <= entry.retention <= 1
        assert entry.fallback is False
    real = by_source[str(corpus / "export-session.json")]
    assert real.messages == 4
    from goose_tui.session.loader import load_session

    session = load_session(corpus / "export-session.json")
    assert real.tokens_before == TokenCounter().total(session.messages)
    assert report.totals.sessions == 5
    assert (report.totals.succeeded, report.totals.failed) == (4, 1)
    assert report.totals.tokens_before == sum(e.tokens_before for e in ok)
    assert sorted(seen) == sorted(by_source)
    markdown = to_markdown(report)
    assert "| broken.jsonl" not in markdown  # sources are full paths
    assert f"| {corpus / 'broken.jsonl'} |" in markdown
    assert "5 sessions: 4 compacted, 1 failed" in markdown
    json.dumps(report.to_json_dict())


class Gate:
    """A summarizer that counts how many calls are in flight at once, and rejects one
    session's history as too long for its window (the ladder then runs out of rungs)."""

    name = "gate"

    def __init__(self) -> None:
        self.active = 0
        self.peak = 0
        self.reply = '```json\n{"user_intent": ["do the thing"]}\n```'

    async def complete(self, messages: list[ChatMessage], on_chunk: OnChunk | None = None):
        self.active += 1
        self.peak = max(self.peak, self.active)
        try:
            # The first call waits for a second to be in flight (so a run that allows two
            # shows two, however slow the machine is at building the next prompt); after
            # that, calls overlap as they come. Bounded, so a run of one never hangs.
            for _ in range(3000):
                if self.peak >= 2:
                    break
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.02)
            if "make test" in str(messages[0].content):
                raise ContextLengthExceeded("too long for the window")
            return Completion(text=self.reply)
        finally:
            self.active -= 1


def test_concurrency_is_bounded_and_a_model_failure_is_recorded(corpus: Path) -> None:
    gate = Gate()
    report = asyncio.run(run_batch(corpus, gate, concurrency=2))
    assert gate.peak == 2
    failed = {e.source: e for e in report.entries if not e.ok}
    db_failure = failed[f"{corpus / 'sessions.db'}#20251002_1"]
    assert db_failure.error == NOTHING_TO_REMOVE  # the message, not the class name
    assert db_failure.attempts == 1  # no tool responses to remove: one request, then give up
    assert report.totals.failed == 2  # and the broken file


def test_bad_concurrency_is_refused(corpus: Path) -> None:
    with pytest.raises(ValueError):
        asyncio.run(run_batch(corpus, ModelSpec.offline().summarizer(), concurrency=0))


def test_cli_batch_writes_json_and_markdown(corpus: Path, tmp_path: Path, capsys) -> None:
    from tests.analysis.test_retention import run_command

    out_path = tmp_path / "report.json"
    code = run_command(["batch", str(corpus), "--model", "offline", "-o", str(out_path)])
    assert code == 1  # one session failed; the report still covers all five
    out = capsys.readouterr().out
    assert "5 sessions: 4 compacted, 1 failed" in out
    data = json.loads(out_path.read_text())
    assert data["totals"]["failed"] == 1
    assert len(data["entries"]) == 5
    assert "| session | messages |" in (tmp_path / "report.md").read_text()


def test_cli_batch_all_good_exits_zero(tmp_path: Path, capsys) -> None:
    from tests.analysis.test_retention import run_command

    db = make_db(tmp_path / "sessions.db")
    assert run_command(["batch", str(db), "--model", "offline", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [e["session_id"] for e in data["entries"]] == ["20251002_1", "20251001_1"]


def test_cli_batch_refuses_an_empty_folder_and_writing_over_an_input(
    corpus: Path, tmp_path: Path, capsys
) -> None:
    from tests.analysis.test_retention import run_command

    empty = tmp_path / "empty"
    empty.mkdir()
    assert run_command(["batch", str(empty), "--model", "offline"]) == 2
    target = corpus / "export-text.json"
    before = target.read_bytes()
    assert run_command(["batch", str(corpus), "--model", "offline", "-o", str(target)]) == 2
    assert target.read_bytes() == before
    assert "refusing" in capsys.readouterr().err


def test_a_summary_not_smaller_than_its_history_is_flagged(tmp_path: Path, capsys) -> None:
    """Issue 14: on export-text.json the offline summary is larger than the two messages it
    replaces; batch says so in the row, the totals, the text table and the Markdown."""
    from tests.analysis.test_retention import run_command
    from tests.conftest import SAMPLES

    folder = tmp_path / "corpus"
    folder.mkdir()
    shutil.copy(REALDATA / "export-text.json", folder / "tiny.json")
    shutil.copy(SAMPLES / "long_session.jsonl", folder / "long.jsonl")
    out_path = tmp_path / "report.json"
    code = run_command(["batch", str(folder), "--model", "offline", "-o", str(out_path)])
    assert code == 0
    data = json.loads(out_path.read_text())
    rows = {Path(e["source"]).name: e for e in data["entries"]}
    tiny, long = rows["tiny.json"], rows["long.jsonl"]
    assert tiny["summary_tokens"] >= tiny["tokens_before"] and tiny["not_smaller"] is True
    assert long["summary_tokens"] < long["tokens_before"] and long["not_smaller"] is False
    assert data["totals"]["not_smaller"] == 1
    out = capsys.readouterr().out
    assert f"{tiny['summary_tokens']:,} !" in out
    assert "! 1 summary is not smaller than the history it replaces" in out
    markdown = (tmp_path / "report.md").read_text()
    assert f"| {tiny['summary_tokens']:,} (not smaller) |" in markdown
    assert "1 summary is not smaller" in markdown


def test_cli_batch_all_sessions_compacts_every_session_of_a_database(
    tmp_path: Path, capsys
) -> None:
    # `--all-sessions` picked the jobs for the checks, then the batch listed the database
    # again without it: the sessions `goose session list` hides were never compacted.
    from tests.analysis.test_retention import run_command
    from tests.session.test_goose_listing import V13

    assert run_command(["batch", str(V13), "--model", "offline", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["entries"]) == 2
    assert run_command(["batch", str(V13), "--model", "offline", "--json", "--all-sessions"]) == 0
    entries = json.loads(capsys.readouterr().out)["entries"]
    assert len(entries) == 5 == len(collect_jobs(V13, all_sessions=True))


def test_cli_batch_reports_load_warnings_and_the_sub_folders_it_skips(
    tmp_path: Path, capsys
) -> None:
    # A walk-through: a session with a broken line was compacted without a word of it, and
    # a sub-folder of sessions was passed over in silence.
    from tests.analysis.test_retention import run_command
    from tests.conftest import SAMPLES

    folder = tmp_path / "corpus"
    (folder / "older").mkdir(parents=True)
    shutil.copy(SAMPLES / "short.jsonl", folder / "older" / "kept-aside.jsonl")
    lines = (SAMPLES / "short.jsonl").read_text().splitlines(keepends=True)
    (folder / "damaged.jsonl").write_text("".join([*lines[:2], "{broken line\n", *lines[2:]]))
    out_path = tmp_path / "report.json"
    assert run_command(["batch", str(folder), "--model", "offline", "-o", str(out_path)]) == 0
    captured = capsys.readouterr()
    [entry] = json.loads(out_path.read_text())["entries"]
    assert entry["error"] is None
    [warning] = entry["warnings"]
    assert warning["line"] == 3 and "line skipped" in warning["message"]
    assert "1 load warning" in captured.err and "line 3" in captured.err
    assert "WARN" in captured.out  # the table's column
    assert f"skipped the sub-folder {folder / 'older'}" in captured.err
    assert "| warnings |" in (tmp_path / "report.md").read_text()


def test_batch_counts_the_summary_as_the_app_projects_it(tmp_path: Path) -> None:
    # A walk-through: batch said SUMMARY 383 for short.jsonl where the app's gauge said
    # "after compaction: 390 tokens". Batch counted the summary's text alone against the
    # history's messages; the app counts the message that replaces the history, as the
    # history is counted.
    from goose_tui.compaction.summarize import summarize
    from goose_tui.compaction.templates import load_templates
    from goose_tui.session.loader import load_session
    from tests.conftest import SAMPLES

    folder = tmp_path / "one"
    folder.mkdir()
    shutil.copy(SAMPLES / "short.jsonl", folder / "short.jsonl")
    summarizer = ModelSpec.offline().summarizer()
    [entry] = asyncio.run(run_batch(folder, summarizer)).entries
    session = load_session(folder / "short.jsonl")
    result = asyncio.run(summarize(session.messages, summarizer, load_templates(None)))
    counter = TokenCounter()
    assert entry.summary_tokens == counter.total([result.summary_message])
    assert entry.tokens_before == counter.total(session.messages)


def test_the_report_written_into_the_folder_is_not_read_as_a_session(
    tmp_path: Path, capsys
) -> None:
    # A walk-through: `batch F -o F/report.json` a second time was refused ("refusing to
    # write over an input file"), --overwrite or not, and a plain `batch F` then failed on
    # report.json ("not a Goose export"): the first run's report was listed as a session.
    from tests.analysis.test_retention import run_command
    from tests.conftest import SAMPLES

    folder = tmp_path / "corpus"
    folder.mkdir()
    shutil.copy(SAMPLES / "short.jsonl", folder / "short.jsonl")
    report = folder / "report.json"
    command = ["batch", str(folder), "--model", "offline", "-o", str(report)]
    assert run_command(command) == 0
    first = report.read_bytes()
    capsys.readouterr()
    # Not replaced without being told to, and not because it is an input.
    assert run_command(command) == 2
    err = capsys.readouterr().err
    assert "already exists (pass --overwrite" in err and "input" not in err
    assert report.read_bytes() == first
    assert run_command([*command, "--overwrite"]) == 0
    err = capsys.readouterr().err
    assert f"left out {report} (a goose-tui batch report, not a session)" in err
    [entry] = json.loads(report.read_text())["entries"]
    assert entry["source"] == str(folder / "short.jsonl")
    assert not list(folder.glob(".*.tmp"))  # replaced atomically
    # A plain run of the folder: the report is no session and fails nothing.
    assert run_command(["batch", str(folder), "--model", "offline", "--json"]) == 0
    assert [e["source"] for e in json.loads(capsys.readouterr().out)["entries"]] == [
        str(folder / "short.jsonl")
    ]
    # Named on its own it is still an input, and a session named as -o is never written.
    assert run_command(["batch", str(report), "--model", "offline", "-o", str(report)]) == 2
    session = folder / "short.jsonl"
    before = session.read_bytes()
    assert (
        run_command(["batch", str(folder), "--model", "offline", "-o", str(session), "--overwrite"])
        == 2
    )
    assert "refusing to write over an input file" in capsys.readouterr().err
    assert session.read_bytes() == before


def test_a_failed_row_says_what_went_wrong_without_the_class_name(corpus: Path, capsys) -> None:
    # A walk-through: the failure column read "SessionLoadError: …/broken.jsonl: …".
    from goose_tui.session.loader import SessionLoadError, load_session
    from tests.analysis.test_retention import run_command

    report = asyncio.run(run_batch(corpus, ModelSpec.offline().summarizer()))
    broken = next(e for e in report.entries if e.source.endswith("broken.jsonl"))
    with pytest.raises(SessionLoadError) as raised:
        load_session(corpus / "broken.jsonl")
    assert broken.error == str(raised.value)
    assert run_command(["batch", str(corpus), "--model", "offline"]) == 1
    assert "SessionLoadError" not in capsys.readouterr().out


def test_a_bug_in_a_failed_row_keeps_its_type(corpus: Path) -> None:
    # Only errors worded for the user lose their class name; a bug of ours is named.
    class Broken:
        name = "broken"

        async def complete(self, messages: list[ChatMessage], on_chunk: OnChunk | None = None):
            raise KeyError("choices")

    report = asyncio.run(run_batch(corpus / "export-text.json", Broken()))
    assert report.entries[0].error == "KeyError: 'choices'"


@pytest.mark.parametrize(
    ("given", "json_name", "md_name"),
    [
        ("report.md", "report.json", "report.md"),
        ("report.json", "report.json", "report.md"),
        ("report", "report", "report.md"),
    ],
)
def test_batch_output_says_where_each_report_file_went(
    cli, tmp_path: Path, given: str, json_name: str, md_name: str
) -> None:
    # `-o report.md` must not write the JSON to report.json and say nothing, where --help
    # reads "write the report as JSON here".
    from tests.conftest import SAMPLES

    folder = tmp_path / "corpus"
    folder.mkdir()
    shutil.copy(SAMPLES / "short.jsonl", folder / "short.jsonl")
    out = tmp_path / "out"
    out.mkdir()
    command = ["batch", str(folder), "--model", "offline", "-o", str(out / given)]
    done = cli(*command)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == sorted({json_name, md_name})
    assert json.loads((out / json_name).read_text())["totals"]["sessions"] == 1
    assert (out / md_name).read_text().startswith("# Batch compaction")
    assert done.stderr.splitlines()[-1] == (
        f"goose-tui: wrote the report as JSON to {out / json_name} "
        f"and as a Markdown table to {out / md_name}"
    )
    # Either file already there refuses the run before any work, naming that file.
    (out / md_name).unlink()
    again = cli(*command)
    assert again.returncode == 2
    assert f"{out / json_name}: already exists" in again.stderr
    assert not (out / md_name).exists()
    (out / json_name).unlink()
    (out / md_name).write_text("keep\n")
    again = cli(*command)
    assert again.returncode == 2
    assert f"{out / md_name}: already exists" in again.stderr
    assert (out / md_name).read_text() == "keep\n" and not (out / json_name).exists()


def test_batch_help_says_which_output_file_is_which(cli) -> None:
    done = cli("batch", "--help")
    text = " ".join(done.stdout.split())
    assert "a REPORT ending in .md gets the Markdown table" in text
