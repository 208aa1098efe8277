"""A flood of load warnings (an export of 20,000 messages without a role, a JSONL of 20,000
junk lines, a sessions.db of 20,000 broken rows): the first few and the last are kept,
the rest counted, in the loaders (bounded memory), the CLI (bounded output) and the app."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from goose_tui.cli import main
from goose_tui.session.loader import load_session
from goose_tui.session.models import KEPT_WARNINGS, LoadWarnings, warning_count, warnings_note

FLOOD = 20_000


def _export(tmp_path: Path) -> Path:
    path = tmp_path / "flood.json"
    good = {"role": "user", "created": 1, "content": [{"type": "text", "text": "hello"}]}
    conversation = [good, *([{}] * FLOOD)]
    path.write_text(json.dumps({"id": "flood", "working_dir": "/w", "conversation": conversation}))
    return path


def _jsonl(tmp_path: Path, *, truncated: bool = False) -> Path:
    path = tmp_path / "junk.jsonl"
    good = {"role": "user", "created": 1, "content": [{"type": "text", "text": "hello"}]}
    lines = [json.dumps({"id": "junk", "working_dir": "/w"}), json.dumps(good)]
    lines += [f"junk {n}" for n in range(FLOOD)]
    path.write_text("\n".join(lines) + ("" if truncated else "\n"))
    return path


def _sqlite(tmp_path: Path) -> Path:
    from goose_tui.session.schema import create_schema

    path = tmp_path / "sessions.db"
    connection = sqlite3.connect(path)
    create_schema(connection)
    connection.execute(
        "INSERT INTO sessions (id, working_dir, created_at, updated_at) "
        "VALUES ('s1', '/w', '2025-10-01 08:00:00', '2025-10-01 09:00:00')"
    )
    connection.executemany(
        "INSERT INTO messages (session_id, role, content_json, created_timestamp) "
        "VALUES ('s1', 'user', ?, ?)",
        [('[{"type":"text","text":"hello"}]', 0), *(("not json", n + 1) for n in range(FLOOD))],
    )
    connection.commit()
    connection.close()
    return path


@pytest.mark.parametrize("make", [_export, _jsonl, _sqlite], ids=["export", "jsonl", "sqlite"])
def test_a_flood_keeps_the_first_and_the_last_and_counts_the_rest(
    tmp_path: Path, make: object
) -> None:
    path = make(tmp_path)  # type: ignore[operator]
    session = load_session(path)
    assert len(session.messages) == 1
    warnings = session.warnings
    assert len(warnings) == KEPT_WARNINGS + 2
    assert warning_count(warnings) == FLOOD
    assert [w.omitted for w in warnings[KEPT_WARNINGS:]] == [FLOOD - KEPT_WARNINGS - 1, 0]
    omitted = FLOOD - KEPT_WARNINGS - 1
    assert str(warnings[KEPT_WARNINGS]) == f"… {omitted:,} more warnings, not listed"
    assert "skipped" in str(warnings[0]) and "skipped" in str(warnings[-1])
    assert warnings_note(warnings).startswith(f"{FLOOD:,} load warnings (first: ")


def test_the_last_line_of_a_flood_still_says_the_file_may_be_truncated(tmp_path: Path) -> None:
    session = load_session(_jsonl(tmp_path, truncated=True))
    last = session.warnings[-1]
    assert last.line == FLOOD + 2 and "the file may be truncated" in last.message


def test_a_few_warnings_are_all_listed() -> None:
    warnings = LoadWarnings()
    for n in range(KEPT_WARNINGS + 1):
        warnings.add(f"w{n}", n)
    assert [w.message for w in warnings.as_list()] == [f"w{n}" for n in range(KEPT_WARNINGS + 1)]
    warnings.add("one more", 99)
    listed = warnings.as_list()
    assert [w.message for w in listed[-2:]] == ["… 1 more warning, not listed", "one more"]
    assert warning_count(listed) == KEPT_WARNINGS + 2


def test_the_cli_prints_the_first_few_then_a_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _jsonl(tmp_path)
    assert main(["format", str(path)]) == 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == KEPT_WARNINGS + 2
    assert err[0] == (
        f"goose-tui: {path}: line 3: invalid JSON (Expecting value at column 1), line skipped"
    )
    omitted = FLOOD - KEPT_WARNINGS - 1
    assert err[KEPT_WARNINGS] == f"goose-tui: {path}: … {omitted:,} more warnings, not listed"
    assert err[-1].startswith(f"goose-tui: {path}: line {FLOOD + 2}: ")


async def test_the_app_counts_every_warning_of_a_flood(tmp_path: Path) -> None:
    from textual.widgets import Static

    from goose_tui.tui.app import GooseTUI
    from tests.tui.conftest import settle

    path = _export(tmp_path)
    app = GooseTUI(path)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        title = str(app.main.query_one("#session-title", Static).render())
        expected = f"{FLOOD:,} load warnings (first: conversation[1]: "
        assert expected in title, title
        assert any(str(n.message).startswith(expected) for n in app._notifications)
