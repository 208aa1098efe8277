"""Differential tests through the real HTTP path (issue 3).

One loopback server answers both the goose-sdk reference and ``goose-tui compact SESSION
--model openai/gpt-4o --api-base URL --prompts-dir DIR --json`` run as a subprocess (litellm
inside). The session is a Goose legacy JSONL written from the corpus conversation. Both
clients must send the byte-equal system prompt and request, and end in the byte-equal
summary. Each subprocess imports litellm (seconds), so this runs a subset of the corpus.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from goose_tui.compaction.summarize import SUMMARIZE_REQUEST
from tests.differential.conftest import Script, ScriptedServer, our_messages, run_reference
from tests.differential.corpus import CASES, Case

goose = pytest.importorskip(
    "goose", reason="goose-sdk (the reference wheel, module `goose`) is not installed"
)

REPO = Path(__file__).resolve().parents[2]
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
    "many_messages",
    "role_lookalikes",
    "fallback_prose_only",
    "fallback_truncated_json",
    "fallback_whitespace_only",
)
BY_NAME = {c.name: c for c in CASES}
HTTP_CASES = [BY_NAME[name] for name in SUBSET]


def write_session(case: Case, path: Path) -> Path:
    """Goose legacy JSONL: a metadata line, then one Message per line."""
    messages = our_messages(case)
    meta = {"description": f"differential {case.name}", "message_count": len(messages)}
    lines = [json.dumps(meta)]
    lines += [json.dumps(m.model_dump(by_alias=True, exclude_none=True)) for m in messages]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run_compact(
    case: Case, server: ScriptedServer, prompts_dir: Path, tmp_path: Path
) -> subprocess.CompletedProcess[str]:
    session = write_session(case, tmp_path / "session.jsonl")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GOOSE_", "OPENAI_"))}
    # Keep any user-level template overrides out of the run; --prompts-dir wins anyway.
    env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    env["OPENAI_API_KEY"] = "sk-differential-test"
    command = [
        sys.executable,
        "-m",
        "goose_tui.cli",
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
    return subprocess.run(
        command, cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=False
    )


def chat(body: dict[str, Any]) -> list[dict[str, str]]:
    return [{"role": m["role"], "content": m["content"]} for m in body["messages"]]


@pytest.mark.parametrize("case", HTTP_CASES, ids=[c.name for c in HTTP_CASES])
def test_cli_compact_matches_reference(
    case: Case, server: ScriptedServer, goose_prompts_dir: Path, tmp_path: Path
) -> None:
    server.script = Script(reply=case.reply, usage=USAGE)
    reference = run_reference(server, case)
    proc = run_compact(case, server, goose_prompts_dir, tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)

    assert len(server.requests) == 2
    goose_body, ours_body = server.requests
    assert chat(ours_body) == chat(goose_body)
    assert out["system_prompt"] == goose_body["messages"][0]["content"]
    assert out["request"] == chat(goose_body)
    assert chat(goose_body)[1] == {"role": "user", "content": SUMMARIZE_REQUEST}
    assert not ours_body.get("tools")

    assert out["raw_response"] == case.reply
    assert out["summary"] == reference.text
    assert out["fallback"] is case.fallback
    assert out["usage"] == {
        "input_tokens": reference.input_tokens,
        "output_tokens": reference.output_tokens,
        "total_tokens": reference.total_tokens,
    }
    assert [a["outcome"] for a in out["attempts"]] == ["ok"]


def test_cli_estimates_usage_the_reference_leaves_empty(
    server: ScriptedServer, goose_prompts_dir: Path, tmp_path: Path
) -> None:
    """Without usage from the server the reference reports None for all three counts; our
    pipeline fills each by SPEC §7 (input = system prompt + request, output = raw response,
    total = in + out). The summary itself is still byte-equal."""
    from goose_tui.tokens import count_tokens

    case = BY_NAME["full_schema"]
    server.script = Script(reply=case.reply, usage=None)
    reference = run_reference(server, case)
    assert (reference.input_tokens, reference.output_tokens, reference.total_tokens) == (
        None,
        None,
        None,
    )
    proc = run_compact(case, server, goose_prompts_dir, tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["summary"] == reference.text

    usage = out["usage"]
    system_prompt = server.requests[0]["messages"][0]["content"]
    assert usage["output_tokens"] == count_tokens(case.reply)
    # SPEC §7 "tokens of system prompt + request": counted over the two texts joined.
    assert usage["input_tokens"] == count_tokens(system_prompt + SUMMARIZE_REQUEST)
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]


def test_cli_text_only_overflow_fails_after_one_request_like_reference(
    server: ScriptedServer, goose_prompts_dir: Path, tmp_path: Path
) -> None:
    """Both clients, given only text messages, stop after one request on a 400
    context_length_exceeded: there is no tool response to remove (SPEC §7)."""
    case = BY_NAME["full_schema"]
    server.script = Script(context_error=True)
    with pytest.raises(goose.GooseError, match="no tool responses to remove"):
        run_reference(server, case)
    assert len(server.requests) == 1

    proc = run_compact(case, server, goose_prompts_dir, tmp_path)
    assert proc.returncode == 1
    assert len(server.requests) == 2
    assert "no tool responses to remove" in proc.stderr
    assert "sk-differential-test" not in proc.stderr + proc.stdout
