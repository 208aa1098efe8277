"""The CLI contract, run as a user runs it, on real files: its entry point in this process
(the ``cli`` fixture), and a real process where the process is what is checked: ``--help``
of every command, a reply piped on standard input."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_child import run_cli_cases
from tests.conftest import REALDATA, ROOT, SAMPLES

SHORT = SAMPLES / "short.jsonl"
LONG = SAMPLES / "long_session.jsonl"
DB = SAMPLES / "sessions.db"

GOOD_REPLY = """<analysis>
- the user wants a greeting file
</analysis>

```json
{"user_intent": ["create greeting.txt"], "files": [{"path": "greeting.txt",
 "summary": "created with the word hello", "key_code": "hello"}],
 "current_work": "done", "mood": "fine"}
```
"""


def run(*args: str, stdin: str | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "goose_tui.cli", *args],
        capture_output=True,
        text=True,
        input=stdin,
        cwd=cwd,
        timeout=120,
    )


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_help_lists_every_subcommand() -> None:
    # Every help in one child process (tests/cli_child.py): its streams are no terminal.
    commands = ("compact", "retention", "batch", "schema")
    cases = {"": (["--help"], {})} | {c: ([c, "--help"], {}) for c in commands}
    helps = run_cli_cases(cases, cwd=ROOT, env=dict(os.environ))
    assert helps[""].returncode == 0
    for command in ("format", "prompt", "parse", "render", "usage", "sessions", "compact"):
        assert f"  {command} ".encode() in helps[""].stdout
    sub = helps["compact"].stdout.decode()
    assert "--replay" in sub and "--api-base" in sub and "-o" in sub
    # Each command's help says what it does and ends with the exit codes, as the top one.
    for command in commands:
        help_text = helps[command].stdout.decode()
        assert help_text.split("\n\n")[1].strip() and "exit codes: 0 success" in help_text


def test_format_prints_the_conversation_text(cli) -> None:
    out = cli("format", str(REALDATA / "export-session.json"))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "[user]: Create greeting.txt containing the word hello"
    assert any(line.startswith("[assistant]: tool_request(write): {") for line in lines)
    assert "[user]: tool_response: Created /tmp/greeting.txt (1 lines)" in lines


def test_prompt_embeds_the_formatted_messages(cli, tmp_path: Path) -> None:
    formatted = cli("format", str(SHORT)).stdout.rstrip("\n")
    prompt = cli("prompt", str(SHORT))
    assert prompt.returncode == 0, prompt.stderr
    assert formatted in prompt.stdout
    (tmp_path / "compaction.md").write_text("BEGIN\n{{ messages }}\nEND\n")
    custom = cli("prompt", str(SHORT), "--prompts-dir", str(tmp_path))
    assert custom.stdout == f"BEGIN\n{formatted}\nEND\n"


def test_parse_json_reports_every_step(cli, tmp_path: Path) -> None:
    reply = tmp_path / "reply.txt"
    reply.write_text(GOOD_REPLY)
    out = cli("parse", str(reply), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["fallback"] is False and data["fallback_reason"] is None
    assert data["analysis"].strip() == "- the user wants a greeting file"
    assert data["structured"]["user_intent"] == ["create greeting.txt"]
    assert data["structured"]["mood"] == "fine"  # extras are kept
    assert data["summary"].startswith("# Conversation Summary\n\n## User Intent\n- create")
    assert "### greeting.txt\ncreated with the word hello\n```\nhello\n```" in data["summary"]


def test_parse_falls_back_to_the_raw_reply() -> None:
    reply = "I could not summarize this, sorry. {not json"
    out = run("parse", "-", "--json", stdin=reply)
    data = json.loads(out.stdout)
    assert data["fallback"] is True and data["structured"] is None
    assert data["summary"] == reply and data["fallback_reason"]


def test_render_reads_a_hand_written_summary(cli) -> None:
    out = cli("render", "-", stdin='{"next_step": "run the tests", "user_intent": "one goal"}')
    assert out.returncode == 0, out.stderr
    assert out.stdout == (
        "# Conversation Summary\n\n## User Intent\n- one goal\n\n## Next Step\nrun the tests\n"
    )


def test_render_names_line_and_column_of_bad_json(cli) -> None:
    out = cli("render", "-", stdin='{\n  "user_intent": [1,\n}')
    assert out.returncode == 2
    assert "line 3" in out.stderr and "column" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_usage_json_says_where_each_number_came_from(cli) -> None:
    out = cli("usage", str(LONG), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["compaction_due"] is True  # the long sample is over 0.8 of its window
    assert data["fraction"] > 0.8 and data["threshold"] == 0.8
    assert data["limit_source"] in {"session", "model-map"}
    forced = json.loads(cli("usage", str(LONG), "--json", "--context-limit", "10000000").stdout)
    assert forced["limit"] == 10_000_000 and forced["limit_source"] == "cli"
    assert forced["compaction_due"] is False
    text = cli("usage", str(SHORT), "--threshold", "1")
    assert text.returncode == 0 and "auto compaction is off" in text.stdout


def test_usage_marks_an_assumed_limit(cli, tmp_path: Path) -> None:
    def usage(*args: str) -> str:
        done = cli("usage", str(session), *args)
        assert done.returncode == 0, done.stderr
        return done.stdout

    session = tmp_path / "s.jsonl"
    session.write_text(
        json.dumps({"role": "user", "created": 1, "content": [{"type": "text", "text": "hi"}]})
        + "\n"
    )
    data = json.loads(usage("--json"))
    assert data["limit_source"] == "assumed" and data["used_source"] == "estimated"
    text = usage()
    assert "limit       128,000 tokens (assumed: no model recorded; pass --context-limit)" in text
    assert "(from assumed)" not in text  # the source as a word, said once
    limited = usage("--context-limit", "9000")
    assert "limit       9,000 tokens (from --context-limit)" in limited
    # A summarizer litellm knows no window for: the session's window is still the question.
    unknown = usage("--model", "nosuch/model")
    assert "limit       128,000 tokens (assumed: no model recorded" in unknown
    assert "summarizer  nosuch/model: request " in unknown and "fit unknown (its window" in unknown


def test_sessions_lists_the_database(cli) -> None:
    out = cli("sessions", str(DB), "--json")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert len(rows) == 3
    updated = [r["updated_at"] for r in rows]
    assert updated == sorted(updated, reverse=True)


def test_a_db_session_is_picked_by_id(cli) -> None:
    rows = json.loads(cli("sessions", str(DB), "--json").stdout)
    oldest = rows[-1]["id"]
    out = cli("format", str(DB), "--session", oldest)
    assert out.returncode == 0, out.stderr
    default = cli("format", str(DB))
    assert default.stdout != out.stdout
    missing = cli("format", str(DB), "--session", "no-such-id")
    assert missing.returncode == 2 and "no-such-id" in missing.stderr


def test_compact_offline_out_of_the_box(cli, tmp_path: Path) -> None:
    before = digest(LONG)
    out = cli("compact", str(LONG), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert set(data) >= {
        "model",
        "system_prompt",
        "request",
        "raw_response",
        "analysis",
        "structured",
        "summary",
        "fallback",
        "fallback_reason",
        "attempts",
        "usage",
    }
    assert data["model"] == "offline" and data["fallback"] is False
    assert data["attempts"] == [
        {"removed_percent": 0, "removed_messages": 0, "outcome": "ok", "tokens_sent": ANY_INT}
    ]
    usage = data["usage"]
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"] > 0
    # Every section of the default template has something to say about the long session.
    for heading in (
        "## User Intent",
        "## Technical Concepts",
        "## Files + Code",
        "## Errors + Fixes",
        "## Problem Solving",
        "## User Messages",
        "## Pending Tasks",
        "## Current Work",
        "## Next Step",
    ):
        assert heading in data["summary"], heading
    assert digest(LONG) == before


class _AnyInt:
    def __eq__(self, other: object) -> bool:
        return isinstance(other, int) and not isinstance(other, bool) and other > 0


ANY_INT = _AnyInt()


def test_compact_writes_output_atomically_and_never_over_the_input(cli, tmp_path: Path) -> None:
    target = tmp_path / "summary.md"
    out = cli("compact", str(SHORT), "-o", str(target))
    assert out.returncode == 0, out.stderr
    assert target.read_text().startswith("# Conversation Summary")
    assert [p.name for p in tmp_path.iterdir()] == ["summary.md"]  # no temp file left
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(SHORT.read_bytes())
    refused = cli("compact", str(copy), "-o", str(copy))
    assert refused.returncode == 2 and "refusing" in refused.stderr
    assert copy.read_bytes() == SHORT.read_bytes()


def test_compact_with_a_replay_file(cli, tmp_path: Path) -> None:
    reply = tmp_path / "reply.txt"
    reply.write_text(GOOD_REPLY)
    data = json.loads(cli("compact", str(SHORT), "--replay", str(reply), "--json").stdout)
    assert data["raw_response"] == GOOD_REPLY
    assert data["structured"]["current_work"] == "done"


@pytest.mark.parametrize(
    ("reply", "saved"),
    [
        # The raw-text fallback keeps the reply unchanged (docs/pipeline.md §6): a reply ending in a
        # newline was saved with a second one ("\n\n").
        ("I could not summarize.\n", "I could not summarize.\n"),
        ("I could not summarize.\r\n", "I could not summarize.\r\n"),
        # A text file ends in a newline: one is added where the summary has none.
        ("I could not summarize.", "I could not summarize.\n"),
        (GOOD_REPLY, None),  # rendered (never ends in one): its text and a newline
    ],
    ids=["raw-newline", "raw-crlf", "raw-no-newline", "rendered"],
)
def test_compact_output_holds_the_summary_with_one_final_newline(
    tmp_path: Path, reply: str, saved: str | None, capfdbinary: pytest.CaptureFixture[bytes]
) -> None:
    # In this process: the bytes on file descriptor 1 are what a shell's redirection gets.
    from goose_tui.cli import main

    reply_file = tmp_path / "reply.txt"
    reply_file.write_bytes(reply.encode("utf-8"))
    compact = ["compact", str(SHORT), "--replay", str(reply_file)]
    assert main([*compact, "--json"]) == 0
    summary = json.loads(capfdbinary.readouterr().out)["summary"]
    expected = (summary + "\n" if saved is None else saved).encode("utf-8")
    assert not summary.endswith("\n") if saved is None else summary == reply
    target = tmp_path / "out.md"
    assert main([*compact, "-o", str(target)]) == 0
    assert capfdbinary.readouterr().out == b""
    assert target.read_bytes() == expected
    # What stdout gets is the same text (`compact > out.md` and `-o out.md` agree).
    assert main(compact) == 0
    assert capfdbinary.readouterr().out == expected


def test_the_ladder_is_visible_offline(cli) -> None:
    out = cli("compact", str(LONG), "--offline-context-limit", "4000", "--json")
    if out.returncode == 0:
        attempts = json.loads(out.stdout)["attempts"]
        assert attempts[0]["outcome"] == "context_length_exceeded"
        assert attempts[-1]["outcome"] == "ok"
        percents = [a["removed_percent"] for a in attempts]
        assert percents == [0, 10, 20, 50, 100][: len(percents)]
    else:
        assert out.returncode == 1
        assert "even after removing all tool responses" in out.stderr


def test_compaction_failure_exits_1_with_goose_sentence_then_advice(cli) -> None:
    # Line 1 is Goose's own error (crates/goose-context-management/src/summarize.rs), the
    # advice is on a line of its own.
    out = cli("compact", str(SHORT), "--offline-context-limit", "1")
    assert out.returncode == 1
    lines = out.stderr.strip().splitlines()
    assert lines[0] == (
        "goose-tui: Failed to compact: context limit exceeded even after removing all tool "
        "responses"
    )
    assert len(lines) == 2 and lines[1].startswith("Use a model")


@pytest.mark.parametrize(
    "args",
    [
        ("format", "no/such/file.jsonl"),
        ("usage", "no/such/file.jsonl"),
        ("parse", "no/such/reply.txt"),
        ("compact", "no/such/file.jsonl"),
        ("no/such/file.jsonl",),
        # A model string litellm knows no provider for: tests/cli/test_litellm_in_process.py.
        ("compact", str(SHORT), "--model", "REPLAY:reply.txt"),
    ],
)
def test_unusable_input_exits_2_with_one_line(cli, args: tuple[str, ...]) -> None:
    out = cli(*args)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("goose-tui: ")


def test_a_template_that_is_a_folder_is_unusable_input(cli, tmp_path: Path) -> None:
    # It exited 0 with the built-in template, saying nothing.
    (tmp_path / "compaction.md").mkdir()
    out = cli("prompt", str(SHORT), "--prompts-dir", str(tmp_path))
    assert out.returncode == 2
    assert out.stderr == (f"goose-tui: {tmp_path / 'compaction.md'}: is a folder, not a file\n")


def test_a_broken_line_is_reported_and_skipped(cli, tmp_path: Path) -> None:
    good = {"role": "user", "created": 1, "content": [{"type": "text", "text": "keep me"}]}
    session = tmp_path / "broken.jsonl"
    session.write_text(json.dumps(good) + "\n{not json\n" + json.dumps(good) + "\n")
    out = cli("format", str(session))
    assert out.returncode == 0
    assert out.stdout.count("[user]: keep me") == 2
    assert "line 2" in out.stderr


def test_a_mistyped_command_is_named_as_one(cli) -> None:
    # It opened the app's parser on a file "retenton": "unrecognized arguments: ...".
    out = cli("retenton", str(SHORT))
    assert out.returncode == 2
    assert "did you mean `goose-tui retention`?" in out.stderr and "unrecognized" not in out.stderr
    assert "no such file or folder" in cli("nosuchthing").stderr  # nothing close: as before


@pytest.mark.parametrize(
    "reply", ["", "  \n", "<!DOCTYPE html><html><body>502 Bad Gateway</body></html>"]
)
def test_parse_of_a_reply_that_is_no_summary_shows_it_and_fails(
    cli, reply: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The README lists an empty, blank or HTML reply as a failure (exit 1); parse printed the
    # fallback and exited 0, where compact refuses the same reply.
    out = cli("parse", "-", "--json", stdin=reply)
    assert out.returncode == 1, out.stderr
    assert json.loads(out.stdout)["fallback"] is True  # what was read is still shown
    assert "no summary" in out.stderr or "HTML page" in out.stderr
    # Said once: "raw-text fallback: no JSON object found" came before "the model sent an
    # empty reply: no summary", two lines for one verdict.
    from goose_tui.cli import main

    (tmp_path / "reply.txt").write_text(reply)
    assert main(["parse", str(tmp_path / "reply.txt")]) == 1
    said = [line for line in capsys.readouterr().err.splitlines() if line]
    assert len(said) == 1 and "raw-text fallback" not in said[0], said


def test_sessions_in_a_folder_says_which_files_it_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A corrupt sessions.db or an unreadable session file was dropped without a word, and a
    # folder of only such files said "no sessions found", exit 0.
    from goose_tui.cli import main

    folder = tmp_path / "sessions"
    folder.mkdir()
    (folder / "sessions.db").write_bytes(b"SQLite format 3\x00" + b"\xff" * 200)
    (folder / "empty.jsonl").write_bytes(b"")
    assert main(["sessions", str(folder)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3, err
    assert err[0].startswith(f"goose-tui: left out {folder / 'empty.jsonl'}: ")
    assert err[1].startswith(f"goose-tui: left out {folder / 'sessions.db'}: ")
    assert err[2] == "goose-tui: no session could be read (2 files left out, above)"

    (folder / "short.jsonl").write_bytes((SAMPLES / "short.jsonl").read_bytes())
    assert main(["sessions", str(folder), "--json"]) == 0
    captured = capsys.readouterr()
    assert len(json.loads(captured.out)) == 1
    assert captured.err.count("left out") == 2


def test_the_app_without_a_terminal_says_so_and_ends_at_once(tmp_path: Path) -> None:
    # Textual draws to stdout and reads keys from stdin: with both redirected it drew escape
    # codes into the pipe and spun on a stdin at its end until killed.
    result = subprocess.run(
        [sys.executable, "-m", "goose_tui", str(SAMPLES / "short.jsonl")],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert result.returncode == 2, result
    assert result.stdout == ""
    assert result.stderr == (
        "goose-tui: the app needs a terminal (stdin and stdout); the commands work without"
        " one: goose-tui --help lists them\n"
    )
