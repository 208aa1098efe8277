"""The bundled sample sessions: they load cleanly, have the promised shapes, and the build
script recreates them byte for byte."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from goose_tui.session.loader import list_sessions, load_session
from goose_tui.session.models import content_type
from goose_tui.tokens import context_usage
from tests.conftest import SAMPLES
from tests.session.test_support import untouched

FILES = ("short.jsonl", "long_session.jsonl", "export.json", "sessions.db")


def test_every_sample_loads_without_warnings() -> None:
    with untouched(SAMPLES):
        for name in FILES:
            session = load_session(SAMPLES / name)
            assert session.messages, name
            assert session.warnings == [], name


def test_formats() -> None:
    kinds = {name: load_session(SAMPLES / name).source_format for name in FILES}
    assert kinds == {
        "short.jsonl": "jsonl",
        "long_session.jsonl": "jsonl",
        "export.json": "export",
        "sessions.db": "sqlite",
    }


def test_db_has_three_sessions() -> None:
    infos = list_sessions(SAMPLES / "sessions.db")
    assert [i.id for i in infos] == ["20251015_1", "20251013_1", "20251009_3"]
    for info in infos:
        assert len(load_session(SAMPLES / "sessions.db", info.id).messages) == info.message_count


def test_long_session_is_real_agent_work_over_the_threshold() -> None:
    session = load_session(SAMPLES / "long_session.jsonl")
    usage = context_usage(session)
    assert usage.limit_source == "session" and usage.limit == 16384
    assert usage.used_source == "estimated"
    assert 0.8 < usage.fraction < 1.0 and usage.compaction_due
    kinds = {content_type(item) for m in session.messages for item in m.content}
    assert {"text", "toolRequest", "toolResponse", "thinking", "redactedThinking", "image"} <= kinds
    tools = {
        item["toolCall"]["value"]["name"]
        for m in session.messages
        for item in m.content
        if content_type(item) == "toolRequest"
    }
    assert tools == {"developer__shell", "developer__text_editor"}
    errors = [
        item["toolResult"]["value"]
        for m in session.messages
        for item in m.content
        if content_type(item) == "toolResponse" and item["toolResult"]["value"]["isError"]
    ]
    assert any("Traceback" in e["content"][0]["text"] for e in errors)
    assert any("3 failed, 3 passed" in e["content"][0]["text"] for e in errors)
    last = session.messages[-1]
    assert last.role == "user" and "CHANGELOG" in last.content[0]["text"]  # still pending
    assert (SAMPLES / "long_session.jsonl").stat().st_size < 300_000


def test_build_script_is_deterministic(tmp_path: Path) -> None:
    copy = tmp_path / "sample_sessions"
    shutil.copytree(SAMPLES, copy, ignore=shutil.ignore_patterns("__pycache__"))
    for name in FILES:
        (copy / name).unlink()
    result = subprocess.run(
        [sys.executable, str(copy / "build_samples.py")], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    for name in FILES:
        assert (copy / name).read_bytes() == (SAMPLES / name).read_bytes(), name
