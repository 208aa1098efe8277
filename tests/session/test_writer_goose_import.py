"""The compacted session saved as ``.json`` is what today's Goose imports, with the session's
state carried.

Goose's side, read at block/goose commit 865e4a03 (main, unreleased at that commit; the
same ``import_session`` shape is in the released 1.x line that has ``goose_mode`` on the
session):
- ``import_session`` in crates/goose/src/session/storage.rs (``SessionManager::import_session``
  in session_manager.rs calls it): ``serde_json::from_str::<Session>`` of the whole file,
  then ``create_session(working_dir, name, session_type, goose_mode)`` and an update with
  ``extension_data``, the token counts, ``accumulated_cost``, ``schedule_id``, ``recipe``,
  ``user_recipe_values``; ``user_set_name`` keeps the name as the user's.
- the serde rules of every type it reads are modelled in tests/session/goose_serde.py.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from goose_tui.session.loader import load_session
from goose_tui.session.models import Session
from goose_tui.session.sqlite import list_sqlite, load_sqlite
from goose_tui.session.writer import (
    compacted_session_text,
    format_for,
    save_compacted_session,
    save_notes,
)
from tests.conftest import ROOT, SAMPLES
from tests.session.goose_serde import session_problems

FIXTURES = ROOT / "tests" / "fixtures" / "goose"
FILES = [
    SAMPLES / "export.json",
    SAMPLES / "long_session.jsonl",
    SAMPLES / "short.jsonl",
    *sorted(FIXTURES.glob("*.json")),
    *sorted(FIXTURES.glob("*.jsonl")),
]
DATABASES = [SAMPLES / "sessions.db", *sorted(FIXTURES.glob("*.db"))]


def _every_session() -> list[tuple[str, Session]]:
    sessions = [(path.name, load_session(path)) for path in FILES]
    for db in DATABASES:
        for info in list_sqlite(db, all_sessions=True):
            sessions.append((f"{db.name}:{info.id}", load_sqlite(db, info.id)))
    return sessions


SESSIONS = _every_session()


def _saved(session: Session, summary: str = "the summary") -> dict:
    return json.loads(compacted_session_text(session, summary, "json", now=1_760_100_000))


@pytest.mark.parametrize("name,session", SESSIONS, ids=[name for name, _ in SESSIONS])
def test_every_json_save_passes_goose_import(name: str, session: Session) -> None:
    data = _saved(session)
    assert session_problems(data) == []
    assert data["conversation"][-2]["content"][0]["text"] == "the summary"


# A session with every piece of state Goose keeps set to something other than its default,
# stored as Goose stores it (a row of a schema-13 sessions.db; columns as in
# crates/goose/src/session/storage.rs create_schema and migrations.rs).
STATE = {
    "goose_mode": "smart_approve",
    "session_type": "scheduled",
    "schedule_id": "nightly-ledger",
    "extension_data": {
        "todo.v0": {"content": "- [ ] reconcile March\n- [x] fix totals"},
        "enabled_extensions.v0": {"extensions": [{"type": "builtin", "name": "developer"}]},
    },
    "recipe": {
        "version": "1.0.0",
        "title": "Ledger check",
        "description": "Reconcile the month",
        "instructions": "Check every total",
    },
    "user_recipe_values": {"month": "March"},
    "accumulated_cost": 0.0421,
}


@pytest.fixture
def stateful(tmp_path: Path) -> Session:
    db = tmp_path / "sessions.db"
    shutil.copyfile(FIXTURES / "sessions-v13.db", db)
    with sqlite3.connect(db) as connection:
        connection.execute(
            "INSERT INTO sessions (id, name, working_dir, session_type, goose_mode, schedule_id,"
            " extension_data, recipe_json, user_recipe_values_json, accumulated_cost)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                "20251020_1",
                "ledger",
                "/home/dana/src/ledger",
                STATE["session_type"],
                STATE["goose_mode"],
                STATE["schedule_id"],
                json.dumps(STATE["extension_data"]),
                json.dumps(STATE["recipe"]),
                json.dumps(STATE["user_recipe_values"]),
                STATE["accumulated_cost"],
            ),
        )
        connection.execute(
            "INSERT INTO messages (message_id, session_id, role, content_json,"
            " created_timestamp, metadata_json) VALUES (?, ?, ?, ?, ?, ?)",
            (
                "m1",
                "20251020_1",
                "user",
                json.dumps([{"type": "text", "text": "check March"}]),
                1_760_900_000,
                json.dumps({"userVisible": True, "agentVisible": True}),
            ),
        )
    connection.close()
    return load_sqlite(db, "20251020_1")


@pytest.mark.parametrize("field", sorted(STATE))
def test_the_json_carries_each_piece_of_state_goose_import_keeps(
    stateful: Session, field: str
) -> None:
    # import_session (storage.rs @865e4a03): goose_mode and session_type go to
    # create_session; extension_data, schedule_id, recipe, user_recipe_values and
    # accumulated_cost to the update builder. Without goose_mode Goose uses GooseMode's
    # default, auto: a smart_approve session would come back approving every tool call.
    data = _saved(stateful)
    assert data[field] == STATE[field]
    assert session_problems(data) == []
    assert save_notes(stateful, "json") == []


def test_the_todo_list_and_extensions_survive_a_reload_of_the_save(
    stateful: Session, tmp_path: Path
) -> None:
    # extension_data is what Goose keeps the todo list (todo.v0) and the session's enabled
    # extensions (enabled_extensions.v0) in: crates/goose/src/session/extension_data.rs.
    target = save_compacted_session(tmp_path / "out.json", stateful, "the summary")
    reloaded = load_session(target)
    assert (reloaded.model_extra or {})["extension_data"] == STATE["extension_data"]
    assert (reloaded.model_extra or {})["goose_mode"] == "smart_approve"


def test_user_set_name_keeps_the_name(stateful: Session) -> None:
    # import_session: `if import.user_set_name { builder.user_provided_name(name) }`, so
    # Goose does not rename the session from its first messages.
    data = _saved(stateful)
    assert data["user_set_name"] is True and data["name"] == "ledger"


@pytest.mark.parametrize(
    "field,value,says",
    [
        ("goose_mode", "turbo", "goose_mode 'turbo'"),
        ("session_type", "specialist", "session_type 'specialist'"),
        ("extension_data", [1, 2], "extension_data is not a JSON object"),
        ("recipe", {"title": "no description"}, "recipe has no title and description"),
        ("user_recipe_values", {"n": 3}, "user_recipe_values is not a map of strings"),
    ],
)
def test_state_goose_cannot_read_is_left_out_and_named(
    stateful: Session, field: str, value: object, says: str
) -> None:
    # One value serde cannot read fails the whole import (serde_json::from_str::<Session>);
    # an unknown enum value for goose_mode or session_type is one.
    session = stateful.model_copy(update={field: value})
    data = _saved(session)
    assert session_problems(data) == []
    assert any(says in note for note in save_notes(session, "json"))


@pytest.mark.parametrize("column", ["recipe_json", "user_recipe_values_json"])
def test_a_sessions_db_column_name_in_an_export_is_left_out_and_named(
    stateful: Session, column: str
) -> None:
    # Goose's export is serde's Session (crates/goose/src/session/model.rs @865e4a03): its
    # fields are recipe and user_recipe_values; the *_json names are sessions.db columns,
    # which only a hand-written export carries.
    value = json.dumps(STATE[column.removesuffix("_json")])
    session = stateful.model_copy(update={"recipe": None, "user_recipe_values": None})
    session = Session.model_validate({**session.model_dump(by_alias=True), column: value})
    data = _saved(session)
    assert data[column.removesuffix("_json")] is None and column not in data
    assert any(
        f"{column} is a sessions.db column, not a field of Goose's export" in note
        for note in save_notes(session, "json")
    )


def test_content_current_goose_cannot_read_is_left_out_and_named() -> None:
    # The 2024 legacy file has contextLengthExceeded and summarizationRequested items, which
    # MessageContent (content_types.rs @865e4a03) no longer has: written unchanged, they
    # made the import fail whole. Goose's own legacy reader skips such lines.
    session = load_session(FIXTURES / "legacy-2024.jsonl")
    kinds = {item.get("type") for m in session.messages for item in m.content}
    assert {"contextLengthExceeded", "summarizationRequested"} <= kinds
    data = _saved(session)
    written = {item["type"] for m in data["conversation"] for item in m["content"]}
    assert not written & {"contextLengthExceeded", "summarizationRequested"}
    assert session_problems(data) == []
    (note,) = save_notes(session, "json")
    assert "1 contextLengthExceeded" in note and "1 summarizationRequested" in note
    assert data["message_count"] == len(data["conversation"])


def test_frontend_tool_requests_stay_since_goose_still_reads_them() -> None:
    # FrontendToolRequest is a MessageContent variant at 865e4a03 (content_types.rs).
    session = load_session(SAMPLES / "short.jsonl")
    item = {
        "type": "frontendToolRequest",
        "id": "f1",
        "toolCall": {"status": "success", "value": {"name": "ui__pick", "arguments": {}}},
    }
    message = session.messages[1].model_copy(update={"content": [item]})
    session = session.model_copy(update={"messages": [session.messages[0], message]})
    data = _saved(session)
    assert item in data["conversation"][1]["content"]
    assert session_problems(data) == [] and save_notes(session, "json") == []


def test_a_model_config_without_toolshim_is_completed() -> None:
    # ModelConfig's toolshim has no serde default (crates/goose-providers/src/model.rs):
    # {"model_name", "context_limit"} alone failed the import of the whole file.
    session = load_session(SAMPLES / "long_session.jsonl")
    assert "toolshim" not in session.model_config_.model_dump(exclude_none=True)
    data = _saved(session)
    assert data["model_config"]["toolshim"] is False
    assert data["model_config"]["context_limit"] == 16384
    assert session_problems(data) == []


@pytest.mark.parametrize(
    "name,fmt",
    [("x.json", "json"), ("x", "json"), ("x.goose", "json"), ("x.jsonl", "jsonl")],
)
def test_the_default_format_is_what_todays_goose_imports(name: str, fmt: str) -> None:
    # Current Goose reads .jsonl files only once, when it first creates its sessions.db
    # (storage.rs: import_legacy runs only when there is no schema yet).
    assert format_for(Path(name)) == fmt
    assert format_for(Path("x.json"), "jsonl") == "jsonl"


def test_the_cli_warns_when_the_saved_summary_is_the_offline_extract(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from goose_tui.cli import main

    target = tmp_path / "continued"
    source = FIXTURES / "legacy-2024.jsonl"
    assert main(["compact", str(source), "--save-session", str(target)]) == 0
    err = capsys.readouterr().err
    assert "offline summarizer's extract" in err
    assert "contextLengthExceeded" in err
    assert session_problems(json.loads(target.read_text())) == []
