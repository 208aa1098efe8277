"""Issue 11, "the user's files": `compact -o` never writes over anything it read, never over a
special file or a symbolic link, checks the path before the model is called, keeps the
result when the write still fails, and gives files the modes a user expects. And a reply that
is no summary (empty, blank, an HTML page) is never a successful compaction.

Special files are made in tmp_path (never /dev: an earlier test replaced /dev/null)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import shutil
import signal
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_cli import GOOD_REPLY, digest
from tests.cli_child import CliRun, run_cli_cases
from tests.conftest import ROOT, SAMPLES, own_litellm_worker
from tests.loopback import LoopbackServer, Reply
from tests.special_files import unblocking

SHORT = SAMPLES / "short.jsonl"
INPUT = "refusing to write over an input file"


def one_line(err: str) -> str:
    """The one line on stderr, with every temporary path replaced by PATH: a path holds the
    test's name, so a word checked in the raw line could be found in the path alone."""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "internal error" not in err and "Traceback" not in err
    return re.sub(r"/\S*pytest-of-\S*", "PATH", lines[0])


@pytest.fixture
def replay(tmp_path: Path) -> Path:
    path = tmp_path / "reply.md"
    path.write_text(GOOD_REPLY, encoding="utf-8")
    return path


# --- every input of the run is refused --------------------------------------------------------


def test_compact_output_refuses_the_replay_file(cli, tmp_path: Path, replay: Path) -> None:
    before = digest(replay)
    out = cli("compact", str(SHORT), "--replay", str(replay), "-o", str(replay))
    assert out.returncode == 2
    assert INPUT in one_line(out.stderr)
    assert digest(replay) == before


def test_compact_output_refuses_a_template_override_in_use(cli, tmp_path: Path) -> None:
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    override = prompts / "compaction_summary.md"
    override.write_text("# {{ current_work }}\n", encoding="utf-8")
    before = digest(override)
    out = cli("compact", str(SHORT), "--prompts-dir", str(prompts), "-o", str(override))
    assert out.returncode == 2
    assert INPUT in one_line(out.stderr)
    assert digest(override) == before


@pytest.mark.parametrize("suffix", ["", "-wal", "-shm", "-journal"])
def test_compact_output_refuses_the_sessions_db_and_its_companions(
    cli, tmp_path: Path, suffix: str
) -> None:
    db = tmp_path / "sessions.db"
    shutil.copy(SAMPLES / "sessions.db", db)
    companion = Path(f"{db}{suffix}")
    out = cli("compact", str(db), "-o", str(companion))
    assert out.returncode == 2
    assert INPUT in one_line(out.stderr)
    # The companion was not created (a stray -wal beside a database is read as its log).
    assert suffix == "" or not companion.exists()


def test_an_input_reached_through_a_hard_link_is_refused(tmp_path: Path, replay: Path) -> None:
    from goose_tui.files import check_output_target

    link = tmp_path / "hard.md"
    os.link(replay, link)
    problem = check_output_target(link, [replay]) or ""
    assert INPUT in problem.replace(str(tmp_path), "PATH")


# --- special files, folders and symbolic links --------------------------------------------------


def _special(tmp_path: Path, kind: str) -> Path:
    path = tmp_path / f"special-{kind}"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(path))
        sock.close()
    elif kind == "device":
        if os.geteuid() != 0:
            pytest.skip("making a device node needs root")
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a null device, in tmp_path
    else:
        path.mkdir()
    return path


KINDS = {
    "fifo": "a FIFO (named pipe)",
    "socket": "a socket",
    "device": "a device",
    "folder": "a folder",
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_compact_output_refuses_special_files(cli, tmp_path: Path, kind: str) -> None:
    path = _special(tmp_path, kind)
    mode = path.lstat().st_mode
    with contextlib.ExitStack() as stack:
        # A writer that opened the FIFO would wait for a reader: let it go, and fail.
        rescues = stack.enter_context(unblocking(path, after=10)) if kind == "fifo" else []
        out = cli("compact", str(SHORT), "-o", str(path))
    assert not rescues
    assert out.returncode == 2
    # Without the path: it holds the kind's name too ("special-folder").
    reason = one_line(out.stderr).replace(str(path), "PATH")
    assert f"is {KINDS[kind]}, refusing" in reason
    assert path.lstat().st_mode == mode  # still the FIFO / socket / device / folder


def test_compact_output_writes_through_a_symlink_and_keeps_it(cli, tmp_path: Path) -> None:
    real = tmp_path / "real.md"
    real.write_text("old\n")
    link = tmp_path / "link.md"
    link.symlink_to(real)
    out = cli("compact", str(SHORT), "-o", str(link), "--overwrite")  # real.md exists
    assert out.returncode == 0, out.stderr
    assert link.is_symlink() and link.resolve() == real
    assert real.read_text().startswith("# Conversation Summary")


def test_a_symlink_to_an_input_is_refused(cli, tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    shutil.copy(SHORT, session)
    link = tmp_path / "link.md"
    link.symlink_to(session)
    out = cli("compact", str(session), "-o", str(link))
    assert out.returncode == 2 and INPUT in one_line(out.stderr)
    assert digest(session) == digest(SHORT) and link.is_symlink()


# --- checked before the model is called --------------------------------------------------------


def test_the_output_path_is_checked_before_the_model_is_called(cli, tmp_path: Path) -> None:
    missing = tmp_path / "no-such-folder" / "out.md"
    # A worker of its own, ended with the test: the command starts one (to import litellm
    # while it works), which a process of its own would end when it exits.
    with LoopbackServer([Reply.ok(GOOD_REPLY)]) as server, own_litellm_worker():
        out = cli(
            "compact",
            str(SHORT),
            "--model",
            "openai/test-model",
            "--api-base",
            f"{server.url}/v1",
            "-o",
            str(missing),
            env={"OPENAI_API_KEY": "sk-test-not-a-real-key-123"},
        )
    assert out.returncode == 2
    assert "does not exist" in one_line(out.stderr)
    assert server.requests == []  # no paid compaction for a result that cannot be saved
    assert not missing.parent.exists()


# --- a write that still fails loses nothing ------------------------------------------------------


def _files_of_at_most_64_bytes() -> None:
    # Writing past RLIMIT_FSIZE fails with EFBIG once SIGXFSZ is ignored: a real "disk full"
    # for files only (the stdout pipe is not a file, so it still works).
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))


@pytest.fixture(scope="module")
def failed_writes(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, CliRun]]:
    """``compact -o`` as text and as JSON, in one child process whose files are limited to
    64 bytes; each run writes into a folder of its own (named as the run)."""
    folder = tmp_path_factory.mktemp("failed-writes")
    cases = {}
    for name, extra in (("text", []), ("json", ["--json"])):
        (folder / name).mkdir()
        target = folder / name / "out.md"
        cases[name] = (["compact", str(SHORT), *extra, "-o", str(target)], {})
    runs = run_cli_cases(cases, cwd=ROOT, env=dict(os.environ), preexec=_files_of_at_most_64_bytes)
    return folder, runs


def test_a_failed_write_prints_the_summary_and_says_where_it_went(
    failed_writes: tuple[Path, dict[str, CliRun]],
) -> None:
    folder, runs = failed_writes
    out = runs["text"]
    assert out.returncode == 1
    line = one_line(out.stderr.decode())
    assert "PATH cannot write: File too large" in line and "printed on stdout instead" in line
    assert out.stdout.decode().startswith("# Conversation Summary")
    assert not (folder / "text" / "out.md").exists()
    assert [p.name for p in (folder / "text").iterdir()] == []  # no temporary file left behind


def test_a_failed_write_with_json_keeps_the_summary_in_the_json(
    failed_writes: tuple[Path, dict[str, CliRun]],
) -> None:
    out = failed_writes[1]["json"]
    assert out.returncode == 1
    assert "JSON on stdout" in one_line(out.stderr.decode())
    assert json.loads(out.stdout)["summary"].startswith("# Conversation Summary")


def test_a_count_that_fails_leaves_tokens_sent_null_in_the_json(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The pipeline keeps a summary whose request could not be counted; `compact --json`
    # said "internal error" instead (its report required a figure).
    from goose_tui.cli import main
    from goose_tui.compaction import summarize as pipeline

    def no_room(*_: object) -> int:
        raise MemoryError("no room to count")

    monkeypatch.setattr(pipeline, "request_tokens", no_room)
    assert main(["compact", str(SHORT), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["summary"].startswith("# Conversation Summary")
    assert [a["tokens_sent"] for a in out["attempts"]] == [None]
    assert out["usage"]["input_tokens"] is None


# --- file modes --------------------------------------------------------------------------------


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600)])
def test_a_new_output_file_gets_the_umask_mode(cli, tmp_path: Path, umask: int, mode: int) -> None:
    target = tmp_path / "out.md"
    saved = os.umask(umask)
    try:
        out = cli("compact", str(SHORT), "-o", str(target))
    finally:
        os.umask(saved)
    assert out.returncode == 0, out.stderr
    assert stat.S_IMODE(target.stat().st_mode) == mode


def test_a_replaced_output_file_keeps_its_mode(cli, tmp_path: Path) -> None:
    target = tmp_path / "out.md"
    target.write_text("old\n")
    target.chmod(0o640)
    out = cli("compact", str(SHORT), "-o", str(target), "--overwrite")
    assert out.returncode == 0, out.stderr
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert target.read_text().startswith("# Conversation Summary")


# --- a reply that is no summary ------------------------------------------------------------------

HTML_PAGE = (
    "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>"
    "<body><h1>502 Bad Gateway</h1><hr><center>nginx</center></body></html>\n"
)


@pytest.mark.parametrize(
    "reply", ["", "   \n\t\n", "\u200b\n", HTML_PAGE], ids=["empty", "blank", "zero-width", "html"]
)
@pytest.mark.parametrize("with_output", [False, True], ids=["stdout", "-o"])
def test_a_reply_that_is_no_summary_fails_the_compaction(
    cli, tmp_path: Path, reply: str, with_output: bool
) -> None:
    reply_file = tmp_path / "reply.txt"
    reply_file.write_text(reply, encoding="utf-8")
    target = tmp_path / "out.md"
    extra = ["-o", str(target)] if with_output else []
    out = cli("compact", str(SHORT), "--replay", str(reply_file), *extra)
    assert out.returncode == 1
    assert "not compacted" in one_line(out.stderr)
    assert out.stdout == "" and not target.exists()


# A reply with no content over HTTP: tests/cli/test_litellm_in_process.py.


def test_the_pipeline_itself_still_keeps_an_empty_reply_as_goose_does() -> None:
    """The check is beside the pipeline, not in it: `finish` returns the raw reply, as the
    goose-sdk wheel does (tests/differential)."""
    from goose_tui.compaction.summarize import finish
    from goose_tui.compaction.templates import load_templates

    extraction, summary = finish("", load_templates(None))
    assert summary == "" and extraction.structured is None


@pytest.mark.parametrize(
    "command",
    [
        ("retention",),
        ("probe",),
        ("compare", "--a", "offline", "--b", "replay:{reply}"),
    ],
    ids=["retention", "probe", "compare"],
)
@pytest.mark.parametrize("reply_text", ["", HTML_PAGE], ids=["empty", "html"])
def test_analyses_refuse_a_reply_that_is_no_summary(
    cli, tmp_path: Path, command: tuple[str, ...], reply_text: str
) -> None:
    # compact refused an empty reply or an error page (exit 1); retention, probe and
    # compare took it as the summary and scored it 0% (exit 0): a wrong result.
    reply = tmp_path / "reply.txt"
    reply.write_text(reply_text)
    args = [part.format(reply=reply) for part in command]
    if command[0] != "compare":
        args += ["--replay", str(reply)]
    out = cli(args[0], str(SHORT), *args[1:])
    assert out.returncode == 1, out.stdout + out.stderr
    assert "the history was not compacted" in out.stderr


def test_batch_fails_a_session_whose_reply_is_no_summary(cli, tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    shutil.copy(SHORT, sessions / "a.jsonl")
    reply = tmp_path / "reply.txt"
    reply.write_text(HTML_PAGE)
    out = cli("batch", str(sessions), "--model", f"replay:{reply}", "--json")
    assert out.returncode == 1, out.stderr
    (entry,) = json.loads(out.stdout)["entries"]
    assert entry["error"] and "HTML page" in entry["error"] and entry["retention"] is None


def test_a_replay_file_that_is_not_utf8_is_unusable_input(cli, tmp_path: Path) -> None:
    # compact --replay on binary bytes exited 1 with Python's own words ("'utf-8' codec can't
    # decode byte 0xe6 ..."), where parse on the same file says "not UTF-8 text", exit 2.
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(b"ok \xe6\x00\xff binary")
    out = cli("compact", str(SHORT), "--replay", str(garbage))
    assert out.returncode == 2, out.stderr
    assert "not UTF-8 text" in out.stderr and "codec" not in out.stderr and out.stdout == ""


# --- a stdout that cannot be written ---------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [("format", str(SHORT)), ("usage", str(SHORT), "--json"), ("compact", str(SHORT))],
    ids=["format", "usage", "compact"],
)
def test_a_full_stdout_is_one_line_naming_it_not_an_internal_error(
    args: tuple[str, ...], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import errno
    import io

    from goose_tui.cli import main

    class Full(io.StringIO):
        def write(self, text: str) -> int:
            raise OSError(errno.ENOSPC, "No space left on device")

    capsys.readouterr()
    monkeypatch.setattr(sys, "stdout", Full())
    assert main(list(args)) == 1
    err = capsys.readouterr().err
    assert one_line(err) == "goose-tui: cannot write to stdout: No space left on device"


def test_dev_full_as_stdout(tmp_path: Path) -> None:
    with open("/dev/full", "w") as full:
        out = subprocess.run(
            [sys.executable, "-m", "goose_tui.cli", "format", str(SHORT)],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            timeout=120,
        )
    assert out.returncode == 1
    assert one_line(out.stderr) == "goose-tui: cannot write to stdout: No space left on device"


@pytest.mark.parametrize("args", [("--help",), ("compact", "--help"), ("--version",)])
def test_help_and_version_to_a_full_disk_fail(args: tuple[str, ...]) -> None:
    # argparse prints them and ignores an OSError of the write: exit 0, nothing written.
    with open("/dev/full", "w") as full:
        out = subprocess.run(
            [sys.executable, "-m", "goose_tui.cli", *args],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            timeout=120,
        )
    assert (out.returncode, one_line(out.stderr)) == (
        1,
        "goose-tui: cannot write to stdout: No space left on device",
    )


def test_help_to_a_closed_pipe_is_quiet() -> None:
    # `goose-tui --help | head -1`: the reader left, which is no error of ours.
    read, write = os.pipe()
    os.close(read)
    try:
        out = subprocess.run(
            [sys.executable, "-m", "goose_tui.cli", "--help"],
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            timeout=120,
        )
    finally:
        os.close(write)
    assert (out.returncode, out.stderr) == (0, "")


def _close_stdout() -> None:
    os.close(1)


CLOSED = "goose-tui: cannot write to stdout: it is closed"
CLOSED_STDOUT_ARGS = {
    "format": ["format", str(SHORT)],
    "compact": ["compact", str(SHORT)],
    "usage": ["usage", str(SHORT), "--json"],
    "retention": ["retention", str(SHORT)],
    "help": ["--help"],
    "compact-help": ["compact", "--help"],
    "version": ["--version"],
}

# goose-tui's entry point run for several argument lists in one process started as `>&-`
# starts it (sys.stdout None, fd 1 closed); fd 1 is closed again before each run, since the
# run before held /dev/null there. Per run: the exit code, stderr, what fd 1 was after it and
# sys.stdout. The results go to stderr, the one standard stream open.
_CLOSED_STDOUT_DRIVER = r"""
import io, json, os, sys
from goose_tui.cli import main

results = {}
for name, argv in json.loads(sys.argv[1]).items():
    try:
        os.close(1)
    except OSError:
        pass
    sys.stderr = io.StringIO()
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    err, sys.stderr = sys.stderr.getvalue(), sys.__stderr__
    results[name] = [code, err, os.readlink("/proc/self/fd/1"), repr(sys.stdout)]
sys.__stderr__.write(json.dumps(results))
"""


@pytest.fixture(scope="module")
def closed_stdout_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, list]]:
    """Each of ``CLOSED_STDOUT_ARGS`` and ``compact -o FILE`` (named "-o") with stdout
    closed, and where that file is."""
    target = tmp_path_factory.mktemp("closed-stdout") / "c.md"
    cases = {**CLOSED_STDOUT_ARGS, "-o": ["compact", str(SHORT), "-o", str(target)]}
    child = subprocess.run(
        [sys.executable, "-c", _CLOSED_STDOUT_DRIVER, json.dumps(cases)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        preexec_fn=_close_stdout,
    )
    assert child.returncode == 0, child.stderr
    return target, json.loads(child.stderr)


@pytest.mark.parametrize("name", list(CLOSED_STDOUT_ARGS))
def test_a_closed_stdout_is_one_line_naming_it(
    closed_stdout_runs: tuple[Path, dict[str, list]], name: str
) -> None:
    # `goose-tui format s.jsonl >&-`: Python starts with sys.stdout None, and the first write
    # was an AttributeError ("internal error"); help and version went to stderr.
    code, err, _, _ = closed_stdout_runs[1][name]
    assert (code, one_line(err)) == (1, CLOSED)


def test_a_closed_stdout_fails_no_command_that_prints_nothing_there(
    closed_stdout_runs: tuple[Path, dict[str, list]],
) -> None:
    # The summary goes to -o; nothing was to be printed, so nothing failed (it was flushed,
    # on None, after the file was written: "internal error", exit 1).
    target, runs = closed_stdout_runs
    code, err, _, _ = runs["-o"]
    assert (code, err) == (0, "")
    assert target.read_text(encoding="utf-8").startswith("# Conversation Summary")


def test_checked_stdout_passes_a_write_through_whatever_the_stream_returns() -> None:
    # A replaced stdout whose write returns None (allowed of a file-like object) made
    # int(None) fail on every print.
    from goose_tui.cli.common import CheckedStdout

    class Quiet:
        def __init__(self) -> None:
            self.text = ""

        def write(self, text: str) -> None:
            self.text += text

    quiet = Quiet()
    assert CheckedStdout(quiet).write("hello\n") == 6
    assert quiet.text == "hello\n"


def test_a_closed_standard_stream_is_never_the_number_of_a_file_we_open(
    closed_stdout_runs: tuple[Path, dict[str, list]],
) -> None:
    # With fd 1 closed, the next file opened took number 1: what the command or a worker it
    # starts wrote to stdout would have gone into that file (the -o file, a session).
    # Each closed standard stream is /dev/null for the run (sys.stdout stays None: writing
    # there still fails, test_a_closed_stdout_is_one_line_naming_it).
    target, runs = closed_stdout_runs
    code, _, fd1, stdout = runs["-o"]
    assert (code, fd1, stdout) == (0, "/dev/null", "None")
    assert target.read_text(encoding="utf-8").startswith("# Conversation Summary")


def test_probe_refuses_a_summary_and_a_reply_to_compact_together(cli, tmp_path: Path) -> None:
    # --replay was ignored without a word when --summary was given (a walk-through);
    # retention and compact refuse the pair.
    summary = tmp_path / "s.md"
    summary.write_text("# Conversation Summary\n", encoding="utf-8")
    for command in ("probe", "retention"):
        out = cli(command, str(SHORT), "--summary", str(summary), "--replay", str(summary))
        assert out.returncode == 2, (command, out.stderr)
        assert "argument --replay: not allowed with argument --summary" in out.stderr
