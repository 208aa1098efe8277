"""The app's counts, made in a process of their own (goose_tui/token_worker.py): the same
numbers as counting here, and the app's process never builds the encoder (its build holds
the GIL 0.1-0.4 s: the screen froze that long, docs/performance.md run 16)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from goose_tui import token_worker, tokens
from goose_tui.pieces import Pieces
from goose_tui.session.loader import load_session
from goose_tui.tokens import TokenCounter, count_tokens
from tests.conftest import SAMPLES

# The tests count in a token worker, a process of its own: on one xdist worker, so that the
# module's tests share one (module_worker).
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("token-worker")]

TEXTS = [
    "plain ascii words",
    "émoji 🙂 and CJK 漢字, combining e\u0301",
    "a lone surrogate \ud800 kept as it is",
    "<|endoftext|> counts as one token",
    "x" * 10,
    " word" * 300_000,  # longer than two chunks: counted in chunks on every core
    # Three frames (the prompt's case): counted as they come, cut at the tokenizer's
    # boundaries wherever the frames end.
    "émoji 🙂 漢字,\n  e\u0301 " * 160_000,
]


@contextmanager
def _set_aside() -> Iterator[None]:
    """While open, a token worker of the caller's own; the one before is set aside, not
    stopped, and comes back."""
    with token_worker._lock:
        kept = token_worker._worker, token_worker._failed
        token_worker._worker, token_worker._failed = None, False
    try:
        yield
    finally:
        with token_worker._lock:
            if token_worker._worker is not None:
                token_worker._worker.close()
            token_worker._worker, token_worker._failed = kept


@pytest.fixture(scope="module")
def module_worker() -> Iterator[None]:
    """A token worker of this module's own, started by the first test that counts in it and
    kept for the others, as the app keeps one for its life."""
    with _set_aside():
        yield


@pytest.fixture
def own_worker(module_worker: None) -> Iterator[None]:
    """A token worker of this test's own (one that kills it)."""
    with _set_aside():
        yield


def no_encoder_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any count made in this process from now on fails the test."""

    def refuse() -> None:
        raise AssertionError("the encoder was built in this process")

    monkeypatch.setattr(tokens, "encoder", refuse)
    monkeypatch.setattr(tokens, "_encode_count", lambda text: refuse())


def test_the_worker_counts_what_this_process_counts(
    module_worker: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    here = [count_tokens(text) for text in TEXTS]
    pieces = Pieces(["[user]: ", TEXTS[1], "\n", TEXTS[3]])
    here_pieces = count_tokens(pieces)
    no_encoder_here(monkeypatch)
    with token_worker.counting_in_worker():
        assert [count_tokens(text) for text in TEXTS] == here
        assert count_tokens(pieces) == here_pieces
        assert count_tokens("") == 0
    assert tokens.counts_elsewhere is None  # closed: counts are made here again


def test_a_sessions_counts_come_from_the_worker_in_one_request(
    module_worker: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = load_session(SAMPLES / "long_session.jsonl")
    here = [TokenCounter().count(message) for message in session.messages]
    requests: list[int] = []
    real = token_worker.TokenWorker.count

    def counting(self: token_worker.TokenWorker, texts):  # type: ignore[no-untyped-def]
        requests.append(len(texts))
        return real(self, texts)

    monkeypatch.setattr(token_worker.TokenWorker, "count", counting)
    no_encoder_here(monkeypatch)
    with token_worker.counting_in_worker():
        counter = TokenCounter()
        assert counter.count_all(session.messages) == here
        assert counter.count_all(session.messages) == here  # cached: no request
    assert len(requests) == 1 and requests[0] > len(session.messages) / 2


def test_a_worker_that_dies_leaves_the_counts_to_this_process(own_worker: None) -> None:
    here = [count_tokens(text) for text in TEXTS[:4]]
    with token_worker.counting_in_worker():
        worker = token_worker._worker
        assert worker is not None
        worker.process.kill()
        worker.process.wait()
        # Never a wrong or missing count: made here, as without the worker.
        assert [count_tokens(text) for text in TEXTS[:4]] == here
        assert token_worker._failed and token_worker._worker is None


def test_the_worker_runs_below_the_apps_priority(module_worker: None) -> None:
    # As the app's litellm worker: encoding a big session is seconds of CPU on every core,
    # and the screen's frames come first.
    import os

    with token_worker.counting_in_worker():
        worker = token_worker._worker
        assert worker is not None
        assert count_tokens("ready") == 1  # the worker is past its start
        fields = open(f"/proc/{worker.process.pid}/stat").read().rsplit(")", 1)[1].split()
    assert int(fields[16]) == os.nice(0) + token_worker.WORKER_NICENESS
