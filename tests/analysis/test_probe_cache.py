"""The probe cache is a convenience: an entry that is damaged, of the wrong shape or not a
regular file is asked again, at once, never a crash or a hang."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from goose_tui.analysis.probe_model import ProbeCache, model_probe_report
from goose_tui.llm.replay import ReplaySummarizer
from goose_tui.session.loader import load_session
from tests.conftest import SAMPLES
from tests.special_files import unblocking

PROBES = json.dumps([{"kind": "recall", "question": "Which file?", "expected": "x", "message": 1}])


def _report(tmp_path: Path, cache: ProbeCache):  # type: ignore[no-untyped-def]
    reply = tmp_path / "reply.md"
    reply.write_text(PROBES)
    session = load_session(SAMPLES / "short.jsonl")
    model = ReplaySummarizer(reply)
    return asyncio.run(model_probe_report(session.messages, "summary", model, cache=cache))


def _entries(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.json"))


@pytest.mark.parametrize(
    "damage",
    [
        {"text": "x", "usage": {"input_tokens": "lots"}},
        {"text": "x", "usage": "none"},
        {"text": 5},
        ["not", "an", "object"],
    ],
    ids=["usage-string", "usage-not-object", "text-number", "list"],
)
def test_a_damaged_entry_is_asked_again(tmp_path: Path, damage: object) -> None:
    cache = ProbeCache(tmp_path / "cache")
    first = _report(tmp_path, cache)
    assert not any(c.cached for c in first.calls)
    for entry in _entries(cache.folder):
        entry.write_text(json.dumps(damage))
    again = _report(tmp_path, cache)  # was: internal error: ValidationError
    assert not any(c.cached for c in again.calls)
    assert [c.stage for c in again.calls] == [c.stage for c in first.calls]
    assert all(c.cached for c in _report(tmp_path, cache).calls)  # rewritten whole


def test_a_fifo_as_an_entry_is_asked_again_without_waiting(tmp_path: Path) -> None:
    cache = ProbeCache(tmp_path / "cache")
    _report(tmp_path, cache)
    entry = _entries(cache.folder)[0]
    entry.unlink()
    os.mkfifo(entry)
    with unblocking(entry) as rescues:
        report = _report(tmp_path, cache)
    assert not rescues  # nothing waited on the FIFO
    assert any(not c.cached for c in report.calls)
    assert entry.is_fifo()  # a special file is not replaced either
