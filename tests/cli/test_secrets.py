"""API keys never leave the process except in the request to the model (issue 5, "Secrets").

tests/llm/test_litellm.py proves the backend's errors are scrubbed. Here the whole path a user
takes: the ``compact`` command (stdout and stderr at the file-descriptor level, every log
record, the ``-o`` file and the ``--json`` export) against a loopback server answering 401,
500 or a normal reply, with both provider keys set to distinctive fake values and the server
echoing them back in its error text, as some providers do. The app's error modal after a
failed compaction: tests/tui/test_save_keys.py.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import LITELLM_GROUP, keyed_litellm_worker, write_two_message_session
from tests.loopback import LoopbackServer, Reply

OPENAI_KEY = "sk-test-OPENAIFAKE-7f3e9a1c5b2d4e6f8a0b"
ANTHROPIC_KEY = "sk-ant-test-ANTHROPICFAKE-1a2b3c4d5e6f"
KEYS = (OPENAI_KEY, ANTHROPIC_KEY)
# Pieces long enough to identify a key, in case something printed it cut or wrapped.
FRAGMENTS = ("OPENAIFAKE-7f3e9a1c", "ANTHROPICFAKE-1a2b")
MODEL = "openai/gpt-4o-mini"

REPLY = '<analysis>done</analysis>\n```json\n{"user_intent": ["ship the fix"]}\n```'
REPLIES = {
    "401": Reply.http_error(
        401, f"Incorrect API key provided: {OPENAI_KEY}.", code="invalid_api_key"
    ),
    "500": Reply.http_error(
        500, f"upstream failed for keys {OPENAI_KEY} and {ANTHROPIC_KEY}", err_type="server_error"
    ),
    "ok": Reply.ok(REPLY),
}


def assert_no_key(*texts: str) -> None:
    for text in texts:
        for secret in KEYS + FRAGMENTS:
            assert secret not in text


@pytest.fixture(scope="module")
def keyed_worker() -> Iterator[None]:
    """The CLI's litellm worker, started with this module's keys in its environment (a
    worker reads them when it starts: tests/conftest.py, own_litellm_worker)."""
    with keyed_litellm_worker(OPENAI_API_KEY=OPENAI_KEY, ANTHROPIC_API_KEY=ANTHROPIC_KEY):
        yield


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)


@pytest.fixture
def session(tmp_path: Path) -> Path:
    return write_two_message_session(tmp_path / "session.jsonl")


# One pytest worker for the three cases: the worker they share imports litellm once.
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


@pytest.mark.xdist_group(LITELLM_GROUP)  # it calls litellm in the test process
async def test_a_key_in_the_environment_is_scrubbed_from_backend_errors(keys: None) -> None:
    """The Anthropic key is not the one in use, but a server (or proxy) that echoes every
    credential it saw must not get it shown either."""
    from goose_tui.llm import make_summarizer
    from goose_tui.llm.base import ChatMessage, ModelError

    with LoopbackServer([REPLIES["500"]]) as server:
        summarizer = make_summarizer(MODEL, api_base=f"{server.url}/v1")
        with pytest.raises(ModelError) as caught:
            await summarizer.complete([ChatMessage(role="user", content="hello")])
    assert_no_key(str(caught.value), repr(caught.value))
