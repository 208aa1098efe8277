"""Saving a compacted session for Goose (issue 15, part 2).

The shapes checked here are the ones Goose's source defines:
- the conversation after a compaction: ``compact_messages`` in
  block/goose crates/goose/src/context_mgmt/mod.rs (old messages
  ``metadata.with_agent_invisible()``, the summary ``MessageMetadata::agent_only()`` with
  role user, then an agent-only assistant message that tells the agent to go on:
  ``MANUAL_COMPACT_CONTINUATION_TEXT``, a compaction the user asked for, as every save is);
- a Message: ``struct Message {id: Option<String>, role, created: i64, content,
  metadata}`` with ``MessageMetadata {user_visible, agent_visible}`` renamed camelCase, in
  crates/goose/src/conversation/message.rs;
- the legacy file: crates/goose/src/session/legacy.rs ``read_messages`` (line 1 parsed as
  ``SessionMetadata``, every other line a Message); ``SessionMetadata``'s reader in
  crates/goose/src/session/storage.rs requires ``description: String`` and
  ``message_count: usize``, the rest optional;
- the export: ``struct Session`` in crates/goose/src/session/session_manager.rs (``id``,
  ``working_dir``, ``name`` with alias ``description``, ``created_at``/``updated_at`` as
  RFC 3339, ``extension_data``, optional token counts, ``conversation``,
  ``message_count``), read back by its ``import_session``.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from datetime import datetime
from pathlib import Path

import pytest

from goose_tui.compaction.summarize import summarize
from goose_tui.compaction.templates import load_templates
from goose_tui.files import OverwriteRefused
from goose_tui.llm import make_summarizer
from goose_tui.session.loader import load_session
from goose_tui.session.writer import (
    agent_visible,
    check_target,
    compacted_session_text,
    save_compacted_session,
)
from tests.conftest import SAMPLES

SAMPLE = SAMPLES / "long_session.jsonl"
RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$")
MESSAGE_KEYS = {"id", "role", "created", "content", "metadata"}


def _offline_summary(session) -> str:
    result = asyncio.run(summarize(session.messages, make_summarizer("offline"), load_templates()))
    return result.summary


@pytest.fixture(scope="module")
def sample():
    session = load_session(SAMPLE)
    return session, _offline_summary(session)


def _check_goose_message(obj: dict) -> None:
    assert set(obj) == MESSAGE_KEYS
    assert obj["id"] is None or isinstance(obj["id"], str)
    assert obj["role"] in ("user", "assistant")
    assert isinstance(obj["created"], int) and not isinstance(obj["created"], bool)
    assert isinstance(obj["content"], list)
    assert all(
        isinstance(item, dict) and isinstance(item.get("type"), str) for item in obj["content"]
    )
    assert isinstance(obj["metadata"]["userVisible"], bool)
    assert isinstance(obj["metadata"]["agentVisible"], bool)


# crates/goose/src/context_mgmt/mod.rs, MANUAL_COMPACT_CONTINUATION_TEXT (commit 331a842).
GOOSE_CONTINUATION = (
    "Your context was compacted at the user's request. The previous message contains a "
    "summary of the conversation so far.\nDo not mention that you read a summary or that "
    "conversation summarization occurred.\nJust continue the conversation naturally based "
    "on the summarized context."
)


def _check_conversation(messages: list[dict], original, summary: str) -> None:
    # A walk-through: the saved session ended at the summary, without the message Goose
    # adds after it, so the agent that resumed it read something Goose never leaves.
    assert len(messages) == len(original.messages) + 2
    for saved, old in zip(messages, original.messages, strict=False):
        _check_goose_message(saved)
        assert saved["metadata"]["agentVisible"] is False
        assert saved["metadata"]["userVisible"] is old.metadata.user_visible
        assert saved["content"] == old.content and saved["role"] == old.role
    summary_message, continuation = messages[-2:]
    _check_goose_message(summary_message)
    assert summary_message["role"] == "user"
    assert summary_message["metadata"] == {"userVisible": False, "agentVisible": True}
    assert summary_message["content"] == [{"type": "text", "text": summary}]
    _check_goose_message(continuation)
    assert continuation["role"] == "assistant"
    assert continuation["metadata"] == {"userVisible": False, "agentVisible": True}
    assert continuation["content"] == [{"type": "text", "text": GOOSE_CONTINUATION}]
    assert continuation["created"] >= summary_message["created"]


def test_jsonl_has_the_legacy_shape_goose_reads(sample, tmp_path: Path) -> None:
    session, summary = sample
    target = save_compacted_session(tmp_path / "out.jsonl", session, summary, "jsonl")
    lines = target.read_text(encoding="utf-8").splitlines()
    meta = json.loads(lines[0])
    assert "role" not in meta and "content" not in meta
    assert isinstance(meta["description"], str) and meta["description"]
    assert meta["message_count"] == len(lines) - 1
    assert isinstance(meta["working_dir"], str)
    # The last call's counts describe the context before compaction: Goose would compact
    # again at once if it read them (check_if_compaction_needed uses session.total_tokens).
    assert meta["total_tokens"] is None and meta["input_tokens"] is None
    for key in ("accumulated_total_tokens", "accumulated_input_tokens", "schedule_id"):
        assert meta[key] is None or isinstance(meta[key], (int, str))
    _check_conversation([json.loads(line) for line in lines[1:]], session, summary)


def test_export_has_the_session_shape_goose_imports(sample, tmp_path: Path) -> None:
    session, summary = sample
    target = save_compacted_session(tmp_path / "out.json", session, summary)  # by suffix
    data = json.loads(target.read_text(encoding="utf-8"))
    assert isinstance(data["id"], str) and data["id"]
    assert isinstance(data["working_dir"], str)
    assert isinstance(data["name"], str) and data["name"]
    assert "description" not in data  # an alias of name: both at once is a duplicate field
    assert RFC3339.match(data["created_at"]) and RFC3339.match(data["updated_at"])
    assert isinstance(data["extension_data"], dict)
    assert data["session_type"] == "user"
    for key in ("total_tokens", "input_tokens", "output_tokens"):
        assert data[key] is None
    assert data["message_count"] == len(data["conversation"])
    _check_conversation(data["conversation"], session, summary)


@pytest.mark.parametrize("fmt", ["jsonl", "json"])
def test_reloads_with_the_summary_as_the_one_message_the_agent_sees(
    sample, tmp_path: Path, fmt: str
) -> None:
    session, summary = sample
    target = save_compacted_session(tmp_path / f"out.{fmt}", session, summary, fmt)  # type: ignore[arg-type]
    loaded = load_session(target)
    assert loaded.source_format == ("jsonl" if fmt == "jsonl" else "export")
    assert loaded.warnings == []
    visible = agent_visible(loaded.messages)
    assert [m.role for m in visible] == ["user", "assistant"]
    assert visible[0].content == [{"type": "text", "text": summary}]
    assert visible[1].content == [{"type": "text", "text": GOOSE_CONTINUATION}]
    assert not any(m.metadata.user_visible for m in visible)
    # The history is all there, for the user's eyes, in order.
    assert [m.content for m in loaded.messages[:-2]] == [m.content for m in session.messages]


def test_compacting_the_saved_session_again_summarizes_only_what_the_agent_sees(
    sample, tmp_path: Path
) -> None:
    """What Goose does on its next compaction (do_compact keeps agent-visible messages)."""
    from goose_tui.compaction.format import format_messages

    session, summary = sample
    target = save_compacted_session(tmp_path / "out.jsonl", session, summary)
    loaded = load_session(target)
    text = format_messages(agent_visible(loaded.messages))
    assert text == f"[user]: {summary}\n[assistant]: {GOOSE_CONTINUATION}"


def test_created_is_always_an_integer(tmp_path: Path) -> None:
    chat = tmp_path / "chat.json"
    chat.write_text(
        json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}])
    )
    session = load_session(chat)
    assert all(m.created is None for m in session.messages)
    text = compacted_session_text(session, "summary", "jsonl", now=1_700_000_000)
    lines = [json.loads(line) for line in text.splitlines()[1:]]
    # The two messages, the summary and Goose's continuation message.
    assert [m["created"] for m in lines] == [1_700_000_000] * 4


def test_refuses_goose_own_folder_and_database(sample, tmp_path: Path, monkeypatch) -> None:
    session, summary = sample
    goose_root = tmp_path / "goose-root"
    monkeypatch.setenv("GOOSE_PATH_ROOT", str(goose_root))
    for target in (
        goose_root / "data" / "sessions" / "mine.jsonl",
        Path.home() / ".local" / "share" / "goose" / "sessions" / "x.json",
        tmp_path / "elsewhere" / "sessions.db",
    ):
        with pytest.raises(OverwriteRefused, match="refusing"):
            save_compacted_session(target, session, summary)
        assert not target.exists()


def test_never_replaces_without_asking(sample, tmp_path: Path) -> None:
    session, summary = sample
    target = tmp_path / "out.jsonl"
    target.write_text("keep me")
    with pytest.raises(OverwriteRefused, match="already exists"):
        save_compacted_session(target, session, summary)
    assert target.read_text() == "keep me"
    save_compacted_session(target, session, summary, overwrite=True)
    assert agent_visible(load_session(target).messages)[0].content[0]["text"] == summary


def test_never_writes_over_an_input_or_a_special_file(sample, tmp_path: Path) -> None:
    session, summary = sample
    with pytest.raises(OverwriteRefused, match="input"):
        check_target(SAMPLE, [SAMPLE], overwrite=True)
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(OverwriteRefused, match="not a regular file"):
        save_compacted_session(fifo, session, summary, overwrite=True)
    assert fifo.is_fifo()
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


def test_cli_compact_save_session(cli, tmp_path: Path) -> None:
    target = tmp_path / "compacted.json"
    done = cli("compact", str(SAMPLE), "--save-session", str(target), "--save-format", "json")
    assert done.returncode == 0, done.stderr
    loaded = load_session(target)
    visible = agent_visible(loaded.messages)
    assert len(visible) == 2 and visible[0].content[0]["text"] == done.stdout.rstrip("\n")
    datetime.fromisoformat(json.loads(target.read_text())["created_at"])

    again = cli("compact", str(SAMPLE), "--save-session", str(target))
    assert again.returncode == 2 and "already exists" in again.stderr
    assert again.stdout == ""  # refused before compacting
    forced = cli("compact", str(SAMPLE), "--save-session", str(target), "--overwrite")
    assert forced.returncode == 0, forced.stderr

    refused = cli("compact", str(SAMPLE), "--save-session", str(tmp_path / "sessions.db"))
    assert refused.returncode == 2 and "sessions.db" in refused.stderr


def test_cli_compact_never_saves_the_session_over_a_template_override(cli, tmp_path: Path) -> None:
    """`compact` goes through the core Inspector, whose inputs include the templates in use:
    an override is refused as a --save-session target even with --overwrite, before the
    model is called, and the override is left as it was. (Before, the CLI kept its own list
    of inputs, without the templates, and replaced the override with the session.)"""
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    override = prompts / "compaction_summary.md"
    text = "# Summary\n\n{{ user_intent }}\n"
    override.write_text(text)
    for fmt in ("jsonl", "json"):
        done = cli(
            "compact",
            str(SAMPLE),
            "--prompts-dir",
            str(prompts),
            "--save-session",
            str(override),
            "--save-format",
            fmt,
            "--overwrite",
        )
        assert done.returncode == 2, done.stderr
        assert "refusing to write over an input file" in done.stderr
        assert done.stdout == ""  # refused before compacting
        assert override.read_text() == text
    summary = tmp_path / "summary.md"
    kept = cli(
        "compact", str(SAMPLE), "-o", str(summary), "--save-session", str(summary), "--overwrite"
    )
    assert kept.returncode == 2 and "-o and --save-session name the same file" in kept.stderr
    assert not summary.exists()


def test_the_app_never_proposes_a_target_in_goose_own_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from goose_tui.saving import default_target
    from goose_tui.session.models import Session

    sessions = Path.home() / ".local" / "share" / "goose" / "sessions"
    monkeypatch.chdir(tmp_path)
    db = Session(id="20260101_1", source_path=sessions / "sessions.db", source_format="sqlite")
    assert default_target(db, "session") == tmp_path / "20260101_1.compacted.jsonl"
    (tmp_path / "work").mkdir()  # the session's own folder, writable
    mine = Session(id="x", source_path=tmp_path / "work" / "a.jsonl", source_format="jsonl")
    assert default_target(mine, "export") == tmp_path / "work" / "a.compacted.json"


def test_cli_compact_o_never_replaces_an_existing_file_without_overwrite(
    cli, tmp_path: Path
) -> None:
    # `-o notes.md` replaced the user's notes without a word (a walk-through), while
    # --save-session already asked for --overwrite. Both now do, before the model is called.
    notes = tmp_path / "notes.md"
    notes.write_text("precious notes\n")
    refused = cli("compact", str(SAMPLE), "-o", str(notes))
    assert refused.returncode == 2 and "already exists" in refused.stderr
    assert "--overwrite" in refused.stderr and refused.stdout == ""
    assert notes.read_text() == "precious notes\n"
    forced = cli("compact", str(SAMPLE), "-o", str(notes), "--overwrite")
    assert forced.returncode == 0, forced.stderr
    assert notes.read_text().startswith("# Conversation Summary")


def test_cli_batch_never_replaces_the_report_or_its_markdown_twin(cli, tmp_path: Path) -> None:
    # `-o out/summary.json` also wrote out/summary.md, replacing a file the user never named.
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    (sessions / "a.jsonl").write_bytes(SAMPLE.read_bytes())
    out = tmp_path / "out"
    out.mkdir()
    twin = out / "summary.md"
    twin.write_text("IMPORTANT meeting notes\n")
    refused = cli("batch", str(sessions), "--model", "offline", "-o", str(out / "summary.json"))
    assert refused.returncode == 2 and str(twin) in refused.stderr
    assert "already exists" in refused.stderr and "--overwrite" in refused.stderr
    assert twin.read_text() == "IMPORTANT meeting notes\n"
    assert not (out / "summary.json").exists()
    forced = cli(
        "batch", str(sessions), "--model", "offline", "-o", str(out / "summary.json"), "--overwrite"
    )
    assert forced.returncode == 0, forced.stderr
    assert twin.read_text().startswith("# Batch compaction")


def test_cli_save_session_where_no_folder_can_be_made_is_refused_first(cli, tmp_path: Path) -> None:
    # A file where the target's folder would be: the save failed after the compaction, as an
    # "internal error", and the summary was lost (nothing on stdout).
    blocker = tmp_path / "afile.txt"
    blocker.write_text("hi\n")
    refused = cli("compact", str(SAMPLE), "--save-session", str(blocker / "sub" / "x.jsonl"))
    assert refused.returncode == 2, refused.stderr
    assert "not a folder" in refused.stderr and "internal error" not in refused.stderr
    assert refused.stdout == ""  # refused before compacting


def test_a_session_save_that_fails_after_the_compaction_still_prints_the_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from goose_tui.cli import main
    from goose_tui.session import writer

    def fails(*args: object, **kwargs: object) -> Path:
        raise PermissionError(13, "Permission denied", str(tmp_path / "x.jsonl"))

    monkeypatch.setattr(writer, "save_compacted_session", fails)
    code = main(["compact", str(SAMPLE), "--save-session", str(tmp_path / "x.jsonl")])
    out, err = capsys.readouterr()
    assert code == 1
    assert out.startswith("# Conversation Summary")
    assert "cannot write" in err and "Permission denied" in err and "internal error" not in err


def _no_file_can_be_created(monkeypatch: pytest.MonkeyPatch) -> None:
    """Creating the temporary file fails as it does in /proc (as root, who passes the
    access check): the error names the temporary file."""
    from goose_tui import files

    def refused(target: Path) -> tuple[int, Path]:
        tmp = target.with_name(".goose-tui-789fe3ead71f.tmp")
        raise FileNotFoundError(2, "No such file or directory", str(tmp))

    monkeypatch.setattr(files, "_temp_beside", refused)


def test_a_failed_write_names_the_target_not_the_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from goose_tui.files import atomic_write_text, write_error

    _no_file_can_be_created(monkeypatch)
    target = tmp_path / "x.json"
    with pytest.raises(FileNotFoundError) as raised:
        atomic_write_text(target, "{}")
    assert raised.value.filename == str(target) and ".goose-tui-" not in str(raised.value)
    assert write_error(target, raised.value) == (
        f"{target}: cannot write: No such file or directory (no file can be created in {tmp_path})"
    )


def test_cli_compact_o_that_fails_names_the_target_and_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from goose_tui.cli import main

    _no_file_can_be_created(monkeypatch)
    target = tmp_path / "x.md"
    assert main(["compact", str(SAMPLE), "-o", str(target)]) == 1
    assert capsys.readouterr().err == (
        f"goose-tui: {target}: cannot write: No such file or directory (no file can be "
        f"created in {tmp_path}); the summary is printed on stdout instead\n"
    )


# --- a file that appears while the model runs is never replaced without --overwrite -----------


def test_a_no_replace_write_leaves_a_file_that_appeared_and_no_temporary(tmp_path: Path) -> None:
    from goose_tui.files import atomic_write_text

    target = tmp_path / "out.md"
    atomic_write_text(target, "first\n", replace=False)
    with pytest.raises(FileExistsError):
        atomic_write_text(target, "second\n", replace=False)
    assert target.read_text() == "first\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.md"]
    atomic_write_text(target, "third\n")  # replacing, when asked to
    assert target.read_text() == "third\n"


@pytest.mark.parametrize("option", ["-o", "--save-session"])
def test_cli_compact_never_replaces_a_file_made_while_the_model_ran(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    option: str,
) -> None:
    # Checked before the model is called (no paid compaction for a refused path), and the
    # file appears during the call: the write must refuse too, and keep the summary.
    from goose_tui.cli import main, pipeline

    target = tmp_path / ("out.md" if option == "-o" else "out.jsonl")
    real = pipeline.run_compaction

    def meanwhile(coroutine):  # type: ignore[no-untyped-def]
        target.write_text("the user's own file\n")
        return real(coroutine)

    monkeypatch.setattr(pipeline, "run_compaction", meanwhile)
    code = main(["compact", str(SAMPLES / "short.jsonl"), option, str(target)])
    captured = capsys.readouterr()
    assert code == 1, captured.err
    assert target.read_text() == "the user's own file\n"
    assert "already exists" in captured.err
    assert "# Conversation Summary" in captured.out
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]


def test_cli_batch_keeps_a_report_file_made_while_the_models_ran(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from goose_tui.cli import batch, main

    sessions = tmp_path / "sessions"
    sessions.mkdir()
    (sessions / "a.jsonl").write_bytes((SAMPLES / "short.jsonl").read_bytes())
    report = tmp_path / "report.json"
    real = batch.run_compaction

    def meanwhile(coroutine):  # type: ignore[no-untyped-def]
        report.write_text("the user's own file\n")
        return real(coroutine)

    monkeypatch.setattr(batch, "run_compaction", meanwhile)
    code = main(["batch", str(sessions), "--model", "offline", "-o", str(report)])
    captured = capsys.readouterr()
    assert code == 1, captured.err
    assert report.read_text() == "the user's own file\n"
    assert "already exists" in captured.err and "the report is printed on stdout" in captured.err
    assert "1 compacted" in captured.out  # the run's report, not lost
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json", "sessions"]


def test_cli_compact_refuses_one_file_for_both_outputs_saying_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # It said "refusing to write over an input file" of a file that did not exist.
    from goose_tui.cli import main

    target = tmp_path / "same.md"
    code = main(["compact", str(SAMPLE), "-o", str(target), "--save-session", str(target)])
    err = capsys.readouterr().err
    assert code == 2
    assert "-o and --save-session name the same file" in err and "input" not in err
    assert not target.exists()


@pytest.mark.parametrize(
    ("name", "says"),
    [("", "an empty path"), ("x" * 300 + ".md", "cannot be written: File name too long")],
    ids=["empty", "too-long"],
)
def test_cli_output_names_that_cannot_be_are_refused_for_what_they_are(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, says: str
) -> None:
    # "" was "-o .: is a folder"; a name too long was "cannot follow the symbolic link".
    from goose_tui.cli import main

    target = str(tmp_path / name) if name else name
    try:
        code = main(["compact", str(SAMPLE), "-o", target])
    except SystemExit as exc:  # argparse refuses the empty name itself
        code = int(exc.code or 0)
    err = capsys.readouterr().err
    assert code == 2
    assert says in err and "symbolic link" not in err and "folder" not in err


@pytest.mark.parametrize("fmt", ["jsonl", "json"])
def test_the_saved_session_keeps_its_model_and_window(tmp_path: Path, fmt: str) -> None:
    # A walk-through: the JSONL header lost provider_name and model_config, so the saved
    # session reopened with "limit 128,000 tokens (assumed)", "model unknown", where the
    # original had ollama's 16,384-token window.
    from tests.conftest import SAMPLES

    session = load_session(SAMPLES / "long_session.jsonl")
    assert session.model_config_.context_limit == 16384 and session.provider_name == "ollama"
    target = save_compacted_session(tmp_path / f"out.{fmt}", session, "the summary", fmt)  # type: ignore[arg-type]
    loaded = load_session(target)
    assert loaded.provider_name == "ollama"
    # The JSON adds toolshim, which Goose's ModelConfig requires (see tests/session/).
    assert loaded.model_config_.model_name == session.model_config_.model_name
    assert loaded.model_config_.context_limit == 16384
