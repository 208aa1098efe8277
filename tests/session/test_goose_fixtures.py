"""Every fixture in tests/fixtures/goose/ loads, formats and compacts, and the committed files
are what tests/fixtures/make_goose_fixtures.py builds (so the script stays their source)."""

from __future__ import annotations

import asyncio
import importlib.util
import sqlite3
from pathlib import Path

import pytest

from goose_tui.compaction.format import format_messages
from goose_tui.compaction.summarize import summarize
from goose_tui.compaction.templates import load_templates
from goose_tui.compaction.visibility import summarizer_messages
from goose_tui.llm import make_summarizer
from goose_tui.session.loader import detect_format, list_sessions, load_session

FIXTURES = Path(__file__).parents[1] / "fixtures"
GOOSE = FIXTURES / "goose"
FILES = sorted(p for p in GOOSE.iterdir() if p.is_file())


def _script():
    spec = importlib.util.spec_from_file_location(
        "make_goose_fixtures", FIXTURES / "make_goose_fixtures.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _sessions(path: Path) -> list:
    if detect_format(path) == "sqlite":
        return [load_session(path, info.id) for info in list_sessions(path, all_sessions=True)]
    return [load_session(path)]


def test_every_kind_is_there() -> None:
    kinds = sorted(detect_format(p) for p in FILES)
    assert kinds == ["export", "export", "jsonl", "jsonl", "sqlite", "sqlite"]


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_fixture_loads_formats_and_compacts(path: Path) -> None:
    templates = load_templates(None)
    summarizer = make_summarizer("offline")
    for session in _sessions(path):
        assert session.warnings == []
        text = format_messages(summarizer_messages(session.messages))
        if session.messages:
            assert text.startswith("[")
            result = asyncio.run(summarize(session.messages, summarizer, templates))
            assert result.summary


def test_committed_fixtures_are_what_the_script_builds(tmp_path: Path) -> None:
    rebuilt = _script().build(tmp_path)
    assert [p.name for p in rebuilt] == [p.name for p in FILES]
    for fresh in rebuilt:
        committed = GOOSE / fresh.name
        if fresh.suffix == ".db":
            assert _dump(fresh) == _dump(committed)
        else:
            assert fresh.read_bytes() == committed.read_bytes()


def _dump(path: Path) -> list[str]:
    # Table contents and schema; the file's bytes depend on the SQLite version.
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return list(db.iterdump())


def test_exports_old_and_new_read_alike() -> None:
    old = load_session(GOOSE / "export-old.json")
    new = load_session(GOOSE / "export-new.json")
    assert old.usage.total_tokens == new.usage.total_tokens == 5120
    assert old.accumulated_usage.total_tokens == new.accumulated_usage.total_tokens == 9000
    assert old.messages == new.messages
    assert format_messages(summarizer_messages(old.messages)) == format_messages(
        summarizer_messages(load_session(GOOSE / "sessions-v13.db", "20251009_1").messages)
    )
