"""Issue 11: model errors say what happened (real litellm against the loopback server), keys
never come back in another case or without their prefix, numbers the CLI cannot use are one
clear line, and inputs that would never end (devices, FIFOs, endless replies) are refused or
cut off at once. Special files are made in tmp_path, never written under /dev."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from goose_tui.compaction.summarize import summarize
from goose_tui.compaction.templates import load_templates
from goose_tui.llm.base import ChatMessage, ContextLengthExceeded, ModelError
from goose_tui.llm.litellm_backend import LiteLLMSummarizer, scrub_secrets
from tests.cli.test_output_files import one_line
from tests.cli.test_output_files import run as run_cli
from tests.compaction.test_summarize import session_with_tools
from tests.conftest import LITELLM_GROUP, SAMPLES
from tests.loopback import LoopbackServer, Reply, closed_port

SHORT = SAMPLES / "short.jsonl"
SECRET = "sk-secret-test-3f9c2a7d41b0e8"
MODEL = "openai/gpt-4o-mini"
THRESHOLD = "GOOSE_AUTO_COMPACT_THRESHOLD"
PROMPT = [ChatMessage(role="system", content="be brief"), ChatMessage(role="user", content="hi")]
# The tests that call litellm in the test process run on the worker that has imported it
# (tests/conftest.py): each other worker paid its 5-14 s import for them.
IN_PROCESS_LITELLM = pytest.mark.xdist_group(LITELLM_GROUP)


def run(*args: str, env: dict[str, str] | None = None, timeout: float = 60):
    return run_cli(*args, env=env, timeout=timeout)


@pytest.fixture(autouse=True)
def _secret_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)


def backend(server: LoopbackServer, **kwargs) -> LiteLLMSummarizer:
    return LiteLLMSummarizer(MODEL, api_base=f"{server.url}/v1", **kwargs)


# --- context-length errors of other providers run the ladder -------------------------------------

OVERFLOWS = [
    # Anthropic (and proxies): HTTP 413 request_too_large.
    ("413", Reply.http_error(413, "request too large", code="request_too_large")),
    # Bedrock's ValidationException text.
    ("bedrock", Reply.http_error(400, "Input is too long for requested model.")),
    # Ollama before it had a proper error: HTTP 500 with this text.
    ("ollama-500", Reply.http_error(500, "context length exceeded", err_type="server_error")),
]


@IN_PROCESS_LITELLM
@pytest.mark.parametrize("reply", [o[1] for o in OVERFLOWS], ids=[o[0] for o in OVERFLOWS])
async def test_other_providers_overflow_errors_are_context_length_errors(reply: Reply) -> None:
    with LoopbackServer([reply]) as server:
        with pytest.raises(ContextLengthExceeded):
            await backend(server).complete(PROMPT)


@IN_PROCESS_LITELLM
@pytest.mark.parametrize("reply", [o[1] for o in OVERFLOWS], ids=[o[0] for o in OVERFLOWS])
async def test_other_providers_overflow_errors_run_the_ladder(reply: Reply) -> None:
    with LoopbackServer([reply, reply, Reply.ok("<analysis>a</analysis>the summary")]) as server:
        result = await summarize(session_with_tools(4), backend(server), load_templates(None))
    assert [a.outcome for a in result.attempts] == [
        "context_length_exceeded",
        "context_length_exceeded",
        "ok",
    ]
    assert len(server.requests) == 3


@IN_PROCESS_LITELLM
async def test_a_500_that_is_not_about_the_context_is_still_a_model_error() -> None:
    with LoopbackServer([Reply.server_error()]) as server:
        with pytest.raises(ModelError, match="HTTP 500"):
            await backend(server).complete(PROMPT)


# --- a missing key, a refused connection ------------------------------------------------------


@IN_PROCESS_LITELLM
async def test_a_missing_api_key_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    # No api_base and no key: the openai client refuses before any request is made.
    with pytest.raises(ModelError) as caught:
        await LiteLLMSummarizer(MODEL, timeout=10).complete(PROMPT)
    message = str(caught.value)
    assert "no API key" in message and "OPENAI_API_KEY" in message
    assert "HTTP 500" not in message


@IN_PROCESS_LITELLM
async def test_a_connection_error_names_the_url_it_tried() -> None:
    port = closed_port()
    summarizer = LiteLLMSummarizer(MODEL, api_base=f"http://127.0.0.1:{port}/v1")
    with pytest.raises(ModelError, match="could not connect") as caught:
        await summarizer.complete(PROMPT)
    assert f"http://127.0.0.1:{port}/v1" in str(caught.value)
    assert SECRET not in str(caught.value)


# --- keys in another case, without their prefix --------------------------------------------------


@pytest.mark.parametrize(
    "echo",
    [
        SECRET,
        SECRET.upper(),
        SECRET[len("sk-") :],
        SECRET[len("sk-") :].upper(),
        "Sk-" + SECRET[3:],
    ],
    ids=["as-is", "upper", "no-prefix", "no-prefix-upper", "mixed"],
)
@IN_PROCESS_LITELLM
async def test_a_key_echoed_in_any_case_or_without_its_prefix_is_scrubbed(echo: str) -> None:
    with LoopbackServer([Reply.http_error(401, f"Incorrect API key provided: {echo}.")]) as server:
        with pytest.raises(ModelError) as caught:
            await backend(server).complete(PROMPT)
    message = str(caught.value)
    assert "***" in message
    assert SECRET[len("sk-") :].lower() not in message.lower()


def test_scrub_secrets_handles_case_and_prefix_of_an_explicit_key() -> None:
    key = "sk-proj-AbCdEf0123456789xyz"
    text = f"a {key.lower()} b {key[len('sk-proj-') :]} c {key[len('sk-') :].upper()} d"
    scrubbed = scrub_secrets(text, (key,))
    assert scrubbed == "a *** b *** c *** d"
    assert scrub_secrets("SK-ABCDEFGHIJKLMN here") == "*** here"


# --- numbers the CLI cannot use ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("usage", str(SHORT), "--context-limit", "0"), "--context-limit 0"),
        (("usage", str(SHORT), "--context-limit", "-5"), "--context-limit -5"),
        (("timeline", str(SHORT), "--context-limit", "0"), "--context-limit 0"),
        (("usage", str(SHORT), "--threshold", "-0.5"), "--threshold -0.5"),
        (("usage", str(SHORT), "--threshold", "1.5"), "--threshold 1.5"),
        (("usage", str(SHORT), "--threshold", "nan"), "--threshold nan"),
        (("timeline", str(SHORT), "--threshold", "2"), "--threshold 2"),
        # Just above 1: the message said "--threshold 1: must be in (0, 1]".
        (("usage", str(SHORT), "--threshold", "1.0000001"), "--threshold 1.0000001:"),
        (("compact", str(SHORT), "--offline-context-limit", "0"), "--offline-context-limit 0"),
        # The app itself: refused before it starts.
        ((str(SHORT), "--threshold", "2"), "--threshold 2"),
        ((str(SHORT), "--context-limit", "0"), "--context-limit 0"),
    ],
)
def test_unusable_limits_and_thresholds_exit_2_with_one_line(
    args: tuple[str, ...], words: str
) -> None:
    out = run(*args)
    assert out.returncode == 2
    assert words in one_line(out.stderr)
    assert out.stdout == ""


@pytest.mark.parametrize("value", ["0", "0.0", "1.5", "-1", "1"])
def test_a_threshold_goose_reads_as_off_is_off(value: str) -> None:
    # The variable is Goose's: 0 is how its documentation turns auto compaction off, and its
    # check_if_compaction_needed reads any threshold <= 0 or >= 1 as off (crates/goose/src/
    # context_mgmt/mod.rs). `usage` and `timeline` refused to run with it set so.
    for command in ("usage", "timeline"):
        out = run(command, str(SHORT), env={THRESHOLD: value})
        assert out.returncode == 0, out.stderr
        assert out.stderr == ""
    out = run("usage", str(SHORT), "--json", env={THRESHOLD: value})
    data = json.loads(out.stdout)
    assert data["threshold"] == float(value) and data["auto_compact_enabled"] is False


@pytest.mark.parametrize("value", ["eighty", "", "0.8.1", "nan", "inf"])
def test_a_threshold_goose_cannot_read_is_its_default_with_a_warning(value: str) -> None:
    # Goose ignores a value it cannot parse and uses 0.8; goose-tui does the same and says so.
    out = run("usage", str(SHORT), "--json", env={THRESHOLD: value})
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["threshold"] == 0.8
    assert one_line(out.stderr) == (
        f"goose-tui: $GOOSE_AUTO_COMPACT_THRESHOLD={value!r} is not a number: Goose uses "
        "0.8 then, and so does goose-tui"
    )


def test_a_usable_threshold_and_limit_still_work() -> None:
    out = run("usage", str(SHORT), "--context-limit", "1000", env={THRESHOLD: "1"})
    assert out.returncode == 0, out.stderr
    assert "auto compaction is off" in out.stdout
    # --threshold decides: the environment is not read then.
    forced = run("usage", str(SHORT), "--threshold", "0.5", env={THRESHOLD: "x"})
    assert forced.returncode == 0, forced.stderr
    assert "threshold   0.5" in forced.stdout


# --- inputs that never end -----------------------------------------------------------------------


def test_a_character_device_as_the_session_is_refused_at_once() -> None:
    # Opened read-only by the loader (never written): before the fix it read /dev/zero forever.
    started = time.monotonic()
    out = run("format", "/dev/zero", timeout=30)
    assert out.returncode == 2
    assert "not a regular file" in one_line(out.stderr)
    assert time.monotonic() - started < 20


@pytest.mark.parametrize("command", ["format", "usage", "sessions"])
def test_a_fifo_as_the_session_is_refused_at_once(tmp_path: Path, command: str) -> None:
    fifo = tmp_path / "session.jsonl"
    os.mkfifo(fifo)
    out = run(command, str(fifo), timeout=30)  # before the fix: blocked forever on open
    assert out.returncode == 2
    assert "FIFO" in one_line(out.stderr)


@pytest.mark.parametrize("command", ["parse", "render"])
def test_a_fifo_as_a_reply_or_summary_file_is_refused_at_once(tmp_path: Path, command: str) -> None:
    fifo = tmp_path / "reply.md"
    os.mkfifo(fifo)
    out = run(command, str(fifo), timeout=30)
    assert out.returncode == 2
    assert "not a regular file" in one_line(out.stderr)


def test_a_fifo_as_the_replay_file_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "reply.md"
    os.mkfifo(fifo)
    out = run("compact", str(SHORT), "--replay", str(fifo), timeout=30)
    assert out.returncode == 2
    assert "not a regular file" in one_line(out.stderr)


# Not "was cut off": that read as if the compaction went on with a truncated reply.
TOO_LONG = (
    "the reply passed 2,000,000 characters (far more than any summary), "
    "so the call failed and nothing was produced"
)


@IN_PROCESS_LITELLM
async def test_a_streamed_reply_over_the_cap_fails_the_compaction() -> None:
    from goose_tui.llm.base import MAX_REPLY_CHARS

    endless = "x" * (MAX_REPLY_CHARS + 100_000)
    received: list[int] = []
    with LoopbackServer([Reply.sse(endless, chunk_size=100_000)]) as server:
        with pytest.raises(ModelError) as caught:
            await backend(server).complete(PROMPT, on_chunk=lambda c: received.append(len(c)))
    assert str(caught.value) == TOO_LONG
    assert sum(received) <= MAX_REPLY_CHARS


@IN_PROCESS_LITELLM
async def test_a_whole_reply_over_the_cap_fails_the_compaction() -> None:
    from goose_tui.llm.base import MAX_REPLY_CHARS

    with LoopbackServer([Reply.json_body("y" * (MAX_REPLY_CHARS + 1))]) as server:
        with pytest.raises(ModelError) as caught:
            await backend(server, stream=False).complete(PROMPT)
    assert str(caught.value) == TOO_LONG


@pytest.mark.parametrize("shape", ["plain", "summary after the cap"])
def test_a_replay_file_over_the_cap_fails_the_compaction(tmp_path: Path, shape: str) -> None:
    from goose_tui.llm.base import MAX_REPLY_CHARS

    reply = tmp_path / "huge.md"
    if shape == "plain":
        reply.write_text("z" * (MAX_REPLY_CHARS + 1))
    else:  # a walk-through's reply: a valid summary, past a 5,000,000-character analysis
        block = '```json\n{"user_intent": ["x"], "current_work": "y"}\n```\n'
        reply.write_text("<analysis>" + "x" * 5_000_000 + "</analysis>\n" + block)
    out = run("compact", str(SHORT), "--replay", str(reply))
    assert (out.returncode, out.stdout) == (1, "")
    assert one_line(out.stderr) == f"goose-tui: {TOO_LONG}"


def test_ctrl_c_during_a_model_call_exits_130_and_leaves_no_worker() -> None:
    # Ctrl-C said "cancelled" with exit 130 before the model call and exit 1 during it (a
    # tmux walk-through); the CLI's litellm worker process must end with the CLI.
    import signal
    import subprocess
    import sys

    from tests.conftest import ROOT

    script = (
        "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
        "from goose_tui.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    with LoopbackServer([Reply.hang()]) as server:
        child = subprocess.Popen(
            [sys.executable, "-c", script, "compact", str(SHORT), "--model", MODEL]
            + ["--api-base", f"{server.url}/v1"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            deadline = time.monotonic() + 60
            while not server.requests:  # the request is out: the call is under way
                assert child.poll() is None and time.monotonic() < deadline
                time.sleep(0.05)
            workers = subprocess.run(
                ["pgrep", "-P", str(child.pid)], capture_output=True, text=True
            ).stdout.split()
            assert workers, "the CLI called litellm from no worker process"
            child.send_signal(signal.SIGINT)
            _, stderr = child.communicate(timeout=30)
        finally:
            child.kill()
        assert child.returncode == 130, stderr
        assert stderr.strip().splitlines()[-1] == "goose-tui: cancelled"
        deadline = time.monotonic() + 10
        while any(Path(f"/proc/{pid}").exists() for pid in workers):
            assert time.monotonic() < deadline, "the worker outlived the CLI"
            time.sleep(0.05)


@IN_PROCESS_LITELLM
async def test_a_missing_key_with_a_server_named_does_not_advise_naming_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # anthropic's client wants a key even for a server given with --api-base; the advice
    # said "(or --api-base for a local server)" to a user who had given one.
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    port = closed_port()
    summarizer = LiteLLMSummarizer(
        "anthropic/claude-sonnet-4-5", api_base=f"http://127.0.0.1:{port}", timeout=10
    )
    with pytest.raises(ModelError) as caught:
        await summarizer.complete(PROMPT)
    message = str(caught.value)
    assert "no API key" in message and "ANTHROPIC_API_KEY" in message
    assert "--api-base" not in message
