"""Fake API keys for the tests that prove keys never leave the process except in the request
to the model, and the server replies that echo them back in their error text, as some
providers do."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.loopback import Reply

if TYPE_CHECKING:
    from goose_tui.llm.litellm_worker import Worker

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


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both provider keys set to the fake ones, for the test."""
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)


@pytest.fixture(scope="session")
def keyed_worker_process() -> Iterator[Worker]:
    """One litellm worker started with both fake keys in its environment (a worker reads them
    when it starts), for every test that calls a model with them: litellm imports once. The
    environment of the tests is left as it was."""
    from goose_tui.llm.litellm_worker import Worker

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OPENAI_API_KEY", OPENAI_KEY)
        patch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
        worker = Worker()
    yield worker
    worker.close()


@contextlib.contextmanager
def worker_in_use(worker: Worker) -> Iterator[None]:
    """While open, the process's litellm worker is ``worker``; the worker of other tests is
    set aside, not killed (it has paid litellm's import), and comes back."""
    from goose_tui.llm import litellm_worker

    with litellm_worker._pool_lock:
        kept, litellm_worker._worker = litellm_worker._worker, worker
    try:
        yield
    finally:
        with litellm_worker._pool_lock:
            # One started meanwhile, if ``worker`` broke, ends here.
            started, litellm_worker._worker = litellm_worker._worker, kept
        if started is not None and started is not worker:
            started.close()


@pytest.fixture
def keyed_worker(keyed_worker_process: Worker) -> Iterator[None]:
    """For the test, the process's litellm worker is the one with the fake keys."""
    with worker_in_use(keyed_worker_process):
        yield
