"""Differential tests through the real HTTP path (issue 3).

For each run, one loopback server answers both the goose-sdk reference and
``goose-tui compact SESSION --model openai/gpt-4o --api-base URL --prompts-dir DIR --json``
(``goose_tui.cli.main``, what ``goose-tui`` runs, with litellm in its worker process). The
session is a Goose legacy JSONL written from the corpus conversation. Both clients must send
the byte-equal request and end in the byte-equal summary.

A process spends seconds importing litellm, so a module fixture starts every server, runs the
reference against each, and then runs the CLI's entry point in this process once per case,
each with its own arguments, environment, stdout and stderr, its model calls going to the
litellm worker that the tests with the fake keys share (tests/secret_keys.py); the tests
check one run each.
"""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from goose_tui.compaction.summarize import SUMMARIZE_REQUEST
from tests.differential.conftest import Script, ScriptedServer, our_messages, run_reference, serve
from tests.differential.corpus import CASES, Case
from tests.secret_keys import OPENAI_KEY, worker_in_use

goose = pytest.importorskip(
    "goose", reason="goose-sdk (the reference wheel, module `goose`) is not installed"
)
# Under pytest-xdist every test of this module runs on one worker, with the other tests that
# share the litellm worker with the fake keys: the `runs` fixture then runs once.
pytestmark = pytest.mark.xdist_group("secrets-keyed-worker")

REPO = Path(__file__).resolve().parents[2]
API_KEY = OPENAI_KEY  # the key of the shared worker
USAGE = {"prompt_tokens": 4321, "completion_tokens": 87, "total_tokens": 4408}
SUBSET = (
    "full_schema",
    "multiple_json_blocks",
    "summary_quotes_analysis_closer",
    "key_code_four_backticks",
    "raw_control_chars_in_strings",
    "jinja_in_values",
    "unicode_everywhere",
    "empty_messages",
    "fallback_prose_only",
    "fallback_truncated_json",
)
BY_NAME = {c.name: c for c in CASES}
# Run name -> (case, what the server answers).
RUNS: dict[str, tuple[Case, Script]] = {
    name: (BY_NAME[name], Script(reply=BY_NAME[name].reply, usage=USAGE)) for name in SUBSET
}
RUNS["no_usage_reported"] = (BY_NAME["full_schema"], Script(reply=CASES[0].reply, usage=None))
RUNS["context_length_exceeded"] = (BY_NAME["full_schema"], Script(context_error=True))


@dataclass
class Run:
    case: Case
    reference: Any  # CompactionSummary, or the GooseError it raised
    requests: list[dict[str, Any]]  # [reference's, ours]
    returncode: int
    stdout: str
    stderr: str

    def output(self) -> dict[str, Any]:
        assert self.returncode == 0, self.stderr
        return json.loads(self.stdout)


def write_session(case: Case, path: Path) -> Path:
    """Goose legacy JSONL: a metadata line, then one Message per line."""
    messages = our_messages(case)
    meta = {"description": f"differential {case.name}", "message_count": len(messages)}
    lines = [json.dumps(meta)]
    lines += [json.dumps(m.model_dump(by_alias=True, exclude_none=True)) for m in messages]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _reference(server: ScriptedServer, case: Case) -> Any:
    try:
        return run_reference(server, case)
    except goose.GooseError as exc:
        return exc


def compact_argv(session: Path, server: ScriptedServer, prompts_dir: Path) -> list[str]:
    return [
        "compact",
        str(session),
        "--model",
        "openai/gpt-4o",
        "--api-base",
        server.base_url,
        "--prompts-dir",
        str(prompts_dir),
        "--json",
    ]


def run_cli(argv: list[str], home: Path) -> tuple[int, bytes, bytes]:
    """The CLI's entry point run here: its exit code and what it wrote, as UTF-8 bytes written
    strictly (as ``PYTHONIOENCODING=utf-8:strict`` makes a pipe)."""
    from goose_tui.cli import main

    def stream() -> io.TextIOWrapper:
        return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict", write_through=True)

    out, err = stream(), stream()
    with pytest.MonkeyPatch.context() as patch:
        for name in [k for k in os.environ if k.startswith(("GOOSE_", "OPENAI_"))]:
            patch.delenv(name)
        # Keep any user-level template overrides out of the run; --prompts-dir wins anyway.
        patch.setenv("XDG_CONFIG_HOME", str(home / "xdg"))
        patch.setenv("OPENAI_API_KEY", API_KEY)
        patch.setattr(sys, "stdout", out)
        patch.setattr(sys, "stderr", err)
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
    return code, out.buffer.getvalue(), err.buffer.getvalue()  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def runs(
    goose_prompts_dir: Path,
    tmp_path_factory: pytest.TempPathFactory,
    keyed_worker_process: Any,
) -> Iterator[dict]:
    results: dict[str, Run] = {}
    with ExitStack() as stack:
        stack.enter_context(worker_in_use(keyed_worker_process))
        for name, (case, script) in RUNS.items():
            server = stack.enter_context(serve(script))
            reference = _reference(server, case)
            home = tmp_path_factory.mktemp(name)
            session = write_session(case, home / "session.jsonl")
            code, stdout, stderr = run_cli(compact_argv(session, server, goose_prompts_dir), home)
            requests = list(server.requests)
            results[name] = Run(
                case, reference, requests, code, stdout.decode("utf-8"), stderr.decode("utf-8")
            )
    yield results


def chat(body: dict[str, Any]) -> list[dict[str, str]]:
    return [{"role": m["role"], "content": m["content"]} for m in body["messages"]]


@pytest.mark.parametrize("name", SUBSET)
def test_cli_compact_matches_reference(name: str, runs: dict[str, Run]) -> None:
    run = runs[name]
    out = run.output()
    assert len(run.requests) == 2
    goose_body, ours_body = run.requests
    assert chat(ours_body) == chat(goose_body)
    assert out["system_prompt"] == goose_body["messages"][0]["content"]
    assert out["request"] == chat(goose_body)
    assert chat(goose_body)[1] == {"role": "user", "content": SUMMARIZE_REQUEST}
    assert not ours_body.get("tools")

    assert out["raw_response"] == run.case.reply
    assert out["summary"] == run.reference.text
    assert out["fallback"] is run.case.fallback
    assert out["usage"] == {
        "input_tokens": run.reference.input_tokens,
        "output_tokens": run.reference.output_tokens,
        "total_tokens": run.reference.total_tokens,
    }
    assert [a["outcome"] for a in out["attempts"]] == ["ok"]


def test_cli_estimates_usage_the_reference_leaves_empty(runs: dict[str, Run]) -> None:
    """Without usage from the server the reference reports None for all three counts; our
    pipeline fills each by docs/pipeline.md §7 (input = system prompt + request, output = raw
    response,
    total = in + out). The summary itself is still byte-equal."""
    from goose_tui.tokens import count_tokens

    run = runs["no_usage_reported"]
    reference = run.reference
    assert (reference.input_tokens, reference.output_tokens, reference.total_tokens) == (
        None,
        None,
        None,
    )
    out = run.output()
    assert out["summary"] == reference.text
    usage = out["usage"]
    system_prompt = run.requests[0]["messages"][0]["content"]
    assert usage["output_tokens"] == count_tokens(run.case.reply)
    # docs/pipeline.md §7 "tokens of system prompt + request": counted over the two texts joined.
    assert usage["input_tokens"] == count_tokens(system_prompt + SUMMARIZE_REQUEST)
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]
    # What the provider reported is kept beside it, and that one equals the reference's.
    assert out["reported_usage"] == {
        "input_tokens": reference.input_tokens,
        "output_tokens": reference.output_tokens,
        "total_tokens": reference.total_tokens,
    }


def test_cli_text_only_overflow_fails_after_one_request_like_reference(
    runs: dict[str, Run],
) -> None:
    """Both clients, given only text messages, stop after one request on a 400
    context_length_exceeded: there is no tool response to remove (docs/pipeline.md §7)."""
    run = runs["context_length_exceeded"]
    assert isinstance(run.reference, goose.GooseError)
    assert "no tool responses to remove" in str(run.reference)
    assert len(run.requests) == 2  # one from each client
    assert run.returncode == 1
    assert "no tool responses to remove" in run.stderr
    assert API_KEY not in run.stderr + run.stdout
