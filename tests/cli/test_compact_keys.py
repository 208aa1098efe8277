"""API keys never leave the process except in the request to the model: the whole path a
user takes with the ``compact`` command (stdout and stderr at the file-descriptor level, every
log record, the ``-o`` file and the ``--json`` export) against a loopback server answering
401, 500 or a normal reply, with both provider keys set to distinctive fake values and the
server echoing them back in its error text. tests/llm/test_litellm_errors.py proves the
backend's errors are scrubbed."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from tests.conftest import write_two_message_session
from tests.loopback import LoopbackServer
from tests.secret_keys import (
    MODEL,
    OPENAI_KEY,
    REPLIES,
    assert_no_key,
)


@pytest.fixture
def session(tmp_path: Path) -> Path:
    return write_two_message_session(tmp_path / "session.jsonl")


# One pytest worker for the three cases and tests/llm/test_echoed_keys.py: the litellm worker
# with the fake keys that they share (tests/secret_keys.py, keyed_worker) imports litellm once.
@pytest.mark.xdist_group("secrets-keyed-worker")
@pytest.mark.parametrize("case", list(REPLIES))
def test_compact_command_never_prints_or_saves_a_key(
    case: str,
    keyed_worker: None,
    keys: None,
    session: Path,
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    from goose_tui.cli import main

    caplog.set_level(logging.DEBUG)  # whatever litellm or we log, at any level
    out_file = tmp_path / "summary.md"
    with LoopbackServer([REPLIES[case]]) as server:
        args = ["compact", str(session), "--model", MODEL, "--api-base", f"{server.url}/v1"]
        code = main([*args, "--json", "-o", str(out_file)])
    # The key did go where it belongs: the model server's Authorization header.
    assert server.requests[0].headers.get("authorization") == f"Bearer {OPENAI_KEY}"
    out, err = capfd.readouterr()  # file-descriptor level: C extensions and threads too
    saved = out_file.read_text(encoding="utf-8") if out_file.exists() else ""
    assert_no_key(out, err, saved, caplog.text)
    if case == "ok":
        assert code == 0, err
        assert json.loads(out)["structured"]["user_intent"] == ["ship the fix"]
        assert "ship the fix" in saved
    else:
        assert code == 1
        assert f"HTTP {case}" in err and not saved
        assert "***" in err  # the echoed key was replaced, not the whole message lost
