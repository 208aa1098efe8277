"""What the summarizer receives and how sessions are read, as Goose does it (issue 10, parts 1
and 2). Each test names the Goose source it follows; the fixtures in tests/fixtures/goose/
are in the shapes Goose writes (tests/fixtures/make_goose_fixtures.py)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest

from goose_tui.cli import main
from goose_tui.compaction.format import format_messages
from goose_tui.compaction.summarize import (
    CompactionFailed,
    build_request,
    summarize,
)
from goose_tui.compaction.templates import load_templates
from goose_tui.compaction.visibility import summarizer_messages
from goose_tui.llm.base import ChatMessage, Completion, ContextLengthExceeded
from goose_tui.session.loader import list_sessions, load_session
from goose_tui.session.models import Message
from goose_tui.session.serde import compact_json

FIXTURES = Path(__file__).parents[1] / "fixtures" / "goose"
V13 = FIXTURES / "sessions-v13.db"
V5 = FIXTURES / "sessions-v5.db"
SHELL_OUTPUT = "test_ledger.py::test_totals PASSED\ntest_ledger.py::test_rounding FAILED"
# crates/goose-context-management/src/summarize.rs (and context_mgmt/mod.rs before it).
GOOSE_EXHAUSTED = "Failed to compact: context limit exceeded even after removing all tool responses"


def text(body: str, **annotations: object) -> dict:
    item: dict = {"type": "text", "text": body}
    if annotations:
        item["annotations"] = annotations
    return item


def response(*content: dict) -> dict:
    return {
        "type": "toolResponse",
        "id": "call_1",
        "toolResult": {"status": "success", "value": {"content": list(content), "isError": False}},
    }


def user(*content: dict, **metadata: bool) -> Message:
    return Message.model_validate({"role": "user", "content": list(content), "metadata": metadata})


# --- 1. audience (crates/goose/src/conversation/message.rs, agent_visible_content) ---------


def test_doubled_shell_output_reaches_the_summarizer_once() -> None:
    """The developer extension answers with an assistant copy and a user copy (priority 0.0);
    Goose's filter_for_audience(Assistant) drops the user copy inside the tool result."""
    doubled = response(
        text("ok 3 passed", audience=["assistant"]),
        text("ok 3 passed", audience=["user"], priority=0.0),
    )
    formatted = format_messages(summarizer_messages([user(doubled)]))
    assert formatted == "[user]: tool_response: ok 3 passed"
    prompt = build_request([user(doubled)], load_templates(None)).system_prompt
    assert prompt.count("ok 3 passed") == 1


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        # A message left without content is not sent (Conversation::agent_visible_messages).
        (text("for the user", audience=["user"]), ""),
        (text("for both", audience=["user", "assistant"]), "[user]: for both"),
        (text("no audience", priority=1.0), "[user]: no audience"),
        (text("nobody", audience=[]), ""),
        (
            {
                "type": "image",
                "data": "AA==",
                "mimeType": "image/png",
                "annotations": {"audience": ["user"]},
            },
            "",
        ),
        # A response cut to nothing stays (Goose keeps it for providers that need it).
        (
            response(text("shown only", audience=["user"])),
            "[user]: tool_response: [non-text content]",
        ),
        # Items Goose filters by audience are text and image; a document's annotations are
        # not read (the `_ => Some(self.clone())` arm).
        (
            {
                "type": "document",
                "data": "",
                "mimeType": "text/plain",
                "annotations": {"audience": ["user"]},
            },
            "[user]: [document: text/plain]",
        ),
    ],
)
def test_audience_filter_per_item(item: dict, expected: str) -> None:
    assert format_messages(summarizer_messages([user(item)])) == expected


def test_messages_without_content_and_thinking_only_ones_are_empty_messages() -> None:
    """agent_visible_messages filters on metadata (block/goose @bc55f686), so a message
    without content is sent; it and a message holding only thinking are then written
    <empty message> (tests/compaction/test_empty_messages.py)."""
    thinking = {"type": "thinking", "thinking": "hmm", "signature": ""}
    messages = [user(), user(text("kept")), user(thinking)]
    assert format_messages(summarizer_messages(messages)) == (
        "[user]: <empty message>\n[user]: kept\n[user]: <empty message>"
    )


# --- 2. `goose-tui format` prints what the summarizer receives ----------------------------


def test_format_prints_exactly_the_summarizer_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["format", str(V13), "--session", "20251009_1"]) == 0
    out = capsys.readouterr().out
    session = load_session(V13, "20251009_1")
    # Hidden history (agentVisible false) and the turn-context message are left out, the
    # shell output appears once.
    assert "The rounding test fails, can you look?" not in out
    assert "<turn-context>" not in out
    assert out.count("test_rounding FAILED") == 1
    assert out == format_messages(summarizer_messages(session.messages)) + "\n"
    prompt = build_request(session.messages, load_templates(None)).system_prompt
    assert out.rstrip("\n") in prompt


# --- 3. conversationCompacted, turnContext -------------------------------------------------


def test_conversation_compacted_items_are_dropped_when_read() -> None:
    """deserialize_sanitized_content (message.rs) drops them on every read."""
    session = load_session(FIXTURES / "legacy-2024.jsonl")
    types = [item["type"] for m in session.messages for item in m.content]
    assert "conversationCompacted" not in types
    assert "text" in types  # the rest of that message stays


def test_turn_context_messages_are_left_out_of_the_summarizer_input() -> None:
    """do_compact (crates/goose/src/context_mgmt/mod.rs) filters `!msg.is_turn_context()`;
    the flag is MessageMetadata.turn_context, serialized `turnContext`."""
    session = load_session(V13, "20251009_1")
    flagged = [m for m in session.messages if m.metadata.turn_context]
    assert len(flagged) == 1 and flagged[0].metadata.agent_visible
    assert flagged[0] not in summarizer_messages(session.messages)
    dumped = flagged[0].model_dump(by_alias=True)["metadata"]
    assert dumped["turnContext"] is True
    plain = session.messages[3].model_dump(by_alias=True)["metadata"]
    assert "turnContext" not in plain  # written only when set, as Goose writes it


# --- 4. legacy JSONL name -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "title"),
    [
        ("legacy-2024.jsonl", "Port the ledger CLI to click"),
        ("legacy-2025.jsonl", "Add CSV export to the ledger"),
    ],
)
def test_legacy_session_name_comes_from_description(name: str, title: str) -> None:
    """legacy.rs load_session reads line 1 into Session, whose `name` takes `description`
    as an alias; the id is the file name."""
    session = load_session(FIXTURES / name)
    assert session.name == title
    assert session.id == Path(name).stem


# --- 5. sessions.db: timestamps, what is listed ---------------------------------------------


def test_most_recent_compares_parsed_times_not_text() -> None:
    """The user session was updated at 09:58 by add_message (SQLite's datetime('now')
    text), the scheduled one at 09:05 by the legacy import (RFC 3339 text, chrono via sqlx).
    As text the scheduled one sorts first ('T' > ' '); by time it is second."""
    assert "2025-10-09T09:05:00.250000+00:00" > "2025-10-09 09:58:00"
    infos = list_sessions(V13)
    assert [i.id for i in infos] == ["20251009_1", "20251009_2"]
    assert load_session(V13).id == "20251009_1"


def test_text_order_and_time_order_disagree_here(tmp_path: Path) -> None:
    # The earlier session has the text that sorts later: only a parsed comparison is right.
    path = tmp_path / "sessions.db"
    with sqlite3.connect(path) as db:
        db.executescript(
            "CREATE TABLE sessions (id TEXT PRIMARY KEY, working_dir TEXT, created_at TEXT,"
            " updated_at TEXT, session_type TEXT DEFAULT 'user');"
            "CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT,"
            " content_json TEXT, created_timestamp INTEGER, metadata_json TEXT);"
        )
        db.execute(
            "INSERT INTO sessions VALUES ('early', '/w', '', '2025-10-09T08:00:00+00:00', 'user')"
        )
        db.execute("INSERT INTO sessions VALUES ('late', '/w', '', '2025-10-09 09:00:00', 'user')")
        for sid in ("early", "late"):
            db.execute(
                "INSERT INTO messages (session_id, role, content_json, created_timestamp)"
                " VALUES (?, 'user', '[]', 1)",
                (sid,),
            )
    assert "2025-10-09T08:00:00+00:00" > "2025-10-09 09:00:00"
    assert load_session(path).id == "late"
    assert [i.id for i in list_sessions(path)] == ["late", "early"]


def test_default_listing_is_what_goose_session_list_shows() -> None:
    """list_sessions -> list_sessions_by_types([User, Scheduled]) with an INNER JOIN on
    messages (crates/goose/src/session/session_manager.rs): no subagent, hidden or empty
    sessions, although each of those was updated later."""
    assert {i.id for i in list_sessions(V13)} == {"20251009_1", "20251009_2"}
    every = list_sessions(V13, all_sessions=True)
    assert {i.id for i in every} == {f"20251009_{n}" for n in range(1, 6)}
    assert every[0].id == "20251009_5"  # the empty one is the most recently updated
    assert {i.session_type for i in every} >= {"sub_agent", "hidden", "scheduled", "user"}
    assert load_session(V13, all_sessions=True).id == "20251009_5"


def test_all_sessions_flag_in_cli(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sessions", str(V13), "--json"]) == 0
    listed = [row["id"] for row in json.loads(capsys.readouterr().out)]
    assert listed == ["20251009_1", "20251009_2"]
    assert main(["sessions", str(V13), "--json", "--all-sessions"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 5
    assert main(["sessions", str(V13), "--all-sessions"]) == 0
    table = capsys.readouterr().out
    assert "TYPE" in table and "sub_agent" in table and "hidden" in table
    assert main(["format", str(V13), "--all-sessions"]) == 0
    assert capsys.readouterr().out == "\n"  # the empty session, the most recent of all
    assert main(["usage", str(V13), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["messages"] == 10


def test_messages_in_goose_order_created_timestamp_then_id(tmp_path: Path) -> None:
    """get_conversation: ORDER BY created_timestamp, id (not the `timestamp` column)."""
    path = tmp_path / "sessions.db"
    with sqlite3.connect(path) as db:
        db.executescript(
            "CREATE TABLE sessions (id TEXT PRIMARY KEY, working_dir TEXT, updated_at TEXT);"
            "CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT,"
            " content_json TEXT, created_timestamp INTEGER, timestamp TEXT);"
            "INSERT INTO sessions VALUES ('s', '/w', '2025-01-01 00:00:00');"
        )
        rows = [("second", 20, "2025-01-01 00:00:00"), ("first", 10, "2025-01-01 00:00:05")]
        for body, created, stamp in rows:
            db.execute(
                "INSERT INTO messages (session_id, role, content_json, created_timestamp,"
                " timestamp) VALUES ('s', 'user', ?, ?, ?)",
                (json.dumps([text(body)]), created, stamp),
            )
    assert [m.content[0]["text"] for m in load_session(path).messages] == ["first", "second"]


def test_schema_v5_database_loads_with_description_as_name() -> None:
    session = load_session(V5)
    assert session.id == "20250612_1"
    assert session.name == "Set up the ledger project"
    assert [i.id for i in list_sessions(V5)] == ["20250612_1"]


# --- 6. numbers in tool arguments -----------------------------------------------------------


@pytest.mark.parametrize(
    ("literal", "serde"),
    [
        ("0.00001", "0.00001"),
        ("1e-7", "1e-7"),
        ("1e-05", "0.00001"),
        ("3.0", "3.0"),
        ("-0", "-0.0"),
        ("100", "100"),
        ("1e16", "1e+16"),
        ("18446744073709551615", "18446744073709551615"),  # u64::MAX stays an integer
        ("18446744073709551616", "1.8446744073709552e+19"),
        ("-9223372036854775809", "-9.223372036854776e+18"),
        ("123456789012345678901234567890", "1.2345678901234568e+29"),
    ],
)
def test_tool_argument_numbers_print_as_serde_json_prints_them(
    tmp_path: Path, literal: str, serde: str
) -> None:
    """format_message_for_compacting writes serde_json::to_string(&arguments); these values
    are what the goose-sdk wheel prints for the same literals (tests/differential/
    test_numbers.py runs generated ones)."""
    path = tmp_path / "s.jsonl"
    request = (
        '{"type":"toolRequest","id":"c","toolCall":{"status":"success","value":'
        f'{{"name":"t","arguments":{{"n":{literal}}}}}}}}}'
    )
    path.write_text('{"description":"x"}\n{"role":"assistant","content":[' + request + "]}\n")
    assert (
        format_messages(load_session(path).messages)
        == f'[assistant]: tool_request(t): {{"n":{serde}}}'
    )
    if literal != "-0":  # Python's own reader makes an int 0 of it; the loader does not
        assert compact_json({"n": json.loads(literal)}) == f'{{"n":{serde}}}'


# --- 7. the exhausted ladder ----------------------------------------------------------------


class Overflowing:
    name = "overflowing"

    async def complete(self, messages: list[ChatMessage], on_chunk=None) -> Completion:
        raise ContextLengthExceeded("too long")


def test_exhausted_ladder_error_is_goose_sentence() -> None:
    session = load_session(V13, "20251009_1")
    with pytest.raises(CompactionFailed) as caught:
        asyncio.run(summarize(session.messages, Overflowing(), load_templates(None)))
    assert str(caught.value) == GOOSE_EXHAUSTED  # the whole text, as Goose's own test has it
    assert caught.value.advice is not None and caught.value.advice.startswith("Use a model")
    assert len(caught.value.attempts) == 5


# --- 9. replies read byte for byte -----------------------------------------------------------


def test_replay_file_keeps_crlf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    reply = tmp_path / "reply.txt"
    reply.write_bytes(b"No JSON here.\r\nSecond line.\r\n")
    assert main(["compact", str(V5), "--replay", str(reply), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["raw_response"] == "No JSON here.\r\nSecond line.\r\n"
    assert result["summary"] == "No JSON here.\r\nSecond line.\r\n"
    assert main(["parse", str(reply), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["summary"] == "No JSON here.\r\nSecond line.\r\n"


def test_batch_takes_what_goose_session_list_shows_unless_all_sessions() -> None:
    from goose_tui.analysis.batch import collect_jobs

    assert [job.session_id for job in collect_jobs(V13)] == ["20251009_1", "20251009_2"]
    assert len(collect_jobs(V13, all_sessions=True)) == 5
    assert len(collect_jobs(FIXTURES)) == 2 + 1 + 4  # both databases' listed, four files


def test_a_database_with_nothing_listable_opens_the_most_recent_with_a_warning(
    tmp_path: Path,
) -> None:
    path = tmp_path / "sessions.db"
    with sqlite3.connect(path) as db:
        db.executescript(
            "CREATE TABLE sessions (id TEXT PRIMARY KEY, working_dir TEXT, updated_at TEXT,"
            " session_type TEXT);"
            "CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT,"
            " content_json TEXT, created_timestamp INTEGER);"
            "INSERT INTO sessions VALUES ('sub', '/w', '2025-01-01 00:00:00', 'sub_agent');"
            "INSERT INTO messages VALUES (1, 'sub', 'user', '[]', 1);"
        )
    session = load_session(path)
    assert session.id == "sub"
    assert "goose session list" in str(session.warnings[0])
    assert list_sessions(path) == []
