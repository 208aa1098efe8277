"""Hostile and damaged session input (issue 5): each case loads what can be loaded, says
clearly what was wrong and where, and never writes to the input."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goose_tui.session.loader import SessionLoadError, load_session
from goose_tui.session.schema import create_schema, insert_session
from tests.session.test_support import untouched

META = json.dumps({"working_dir": "/w", "description": "d", "message_count": 2})


def line(text: str, role: str = "user") -> str:
    return json.dumps({"role": role, "created": 1, "content": [{"type": "text", "text": text}]})


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def load_untouched(path: Path):
    with untouched(path):
        return load_session(path)


def error_of(path: Path) -> str:
    with untouched(path), pytest.raises(SessionLoadError) as err:
        load_session(path)
    text = str(err.value)
    assert str(path) in text and "\n" not in text
    # The reason alone: the path holds the test's name ("test_empty_jsonl0"), so a check
    # on the whole text could pass whatever the reason said.
    return err.value.reason


def test_truncated_last_line(tmp_path: Path) -> None:
    whole = f"{META}\n{line('one')}\n{line('two')}\n"
    path = write(tmp_path / "s.jsonl", whole[: len(whole) - 20].encode())
    session = load_untouched(path)
    assert [m.content[0]["text"] for m in session.messages] == ["one"]
    assert session.warnings[-1].line == 3
    assert "truncated" in session.warnings[-1].message


def test_a_complete_last_line_is_not_called_truncated(tmp_path: Path) -> None:
    # `{"a":1}` (a whole line, with its newline, that is no message) and a last line of
    # broken JSON that ends in a newline were both said to be "maybe truncated or still
    # being written".
    for data in (
        f"{META}\n{line('one')}\n" + '{"a": 1}\n',
        f"{META}\n{line('one')}\n" + "{not json}\n",
    ):
        session = load_untouched(write(tmp_path / "s.jsonl", data.encode()))
        assert session.warnings[-1].line == 3
        assert "truncated" not in session.warnings[-1].message, session.warnings[-1]


def test_an_empty_array_is_called_empty(tmp_path: Path) -> None:
    # `[]` was "no element has a usable role", of an array with no element.
    path = write(tmp_path / "s.json", b"[]")
    with pytest.raises(SessionLoadError) as err:
        load_session(path)
    assert err.value.reason == "an empty JSON array: no messages to read"


def test_invalid_utf8_line(tmp_path: Path) -> None:
    data = f"{META}\n{line('ok')}\n".encode() + b'{"role": "user", "content": "\xff\xfe"}\n'
    session = load_untouched(write(tmp_path / "s.jsonl", data + (line("after") + "\n").encode()))
    assert [m.content[0]["text"] for m in session.messages] == ["ok", "after"]
    assert session.warnings[0].line == 3
    assert "invalid UTF-8" in session.warnings[0].message


def test_bom_and_crlf(tmp_path: Path) -> None:
    data = b"\xef\xbb\xbf" + f"{META}\r\n{line('a')}\r\n{line('b')}\r\n".encode()
    session = load_untouched(write(tmp_path / "s.jsonl", data))
    assert session.description == "d"
    assert [m.content[0]["text"] for m in session.messages] == ["a", "b"]
    assert session.warnings == []


def test_bom_on_export(tmp_path: Path) -> None:
    body = json.dumps({"id": "e", "working_dir": "/w", "conversation": []}, indent=2)
    session = load_untouched(write(tmp_path / "e.json", b"\xef\xbb\xbf" + body.encode()))
    assert session.id == "e" and session.source_format == "export"


@pytest.mark.parametrize("content", [b"", b"\n\n  \n"], ids=["zero-bytes", "blank-lines"])
def test_empty_jsonl(tmp_path: Path, content: bytes) -> None:
    assert "empty" in error_of(write(tmp_path / "s.jsonl", content))


def test_zero_byte_sessions_db(tmp_path: Path) -> None:
    assert "empty" in error_of(write(tmp_path / "sessions.db", b""))


def test_corrupt_sessions_db(tmp_path: Path) -> None:
    header = b"SQLite format 3\x00" + b"\x10\x00\x01\x01" + b"\x00" * 80
    path = write(tmp_path / "sessions.db", header + b"garbage" * 1000)
    assert "database" in error_of(path)


def test_sessions_db_that_is_not_sqlite(tmp_path: Path) -> None:
    assert "not a SQLite database" in error_of(write(tmp_path / "sessions.db", b"\x00\x01junk"))


def test_sqlite_without_goose_tables(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE notes (x)")
    connection.commit()
    connection.close()
    assert "missing table(s) sessions, messages" in error_of(path)


def test_sqlite_with_no_sessions(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    connection = sqlite3.connect(path)
    create_schema(connection)
    connection.commit()
    connection.close()
    assert "no sessions" in error_of(path)


LOCKER = """
import sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN EXCLUSIVE")
c.execute("UPDATE sessions SET name = 'x'")
print("locked", flush=True)
sys.stdin.readline()
c.execute("ROLLBACK")
"""


def test_db_locked_by_a_writer(tmp_path: Path) -> None:
    """A rollback-journal db under an exclusive lock held by another process: a clear error
    after a short wait, not a hang."""
    path = tmp_path / "sessions.db"
    connection = sqlite3.connect(path)
    create_schema(connection)
    insert_session(connection, {"id": "s", "working_dir": "/w"}, [])
    connection.commit()
    connection.close()
    locker = subprocess.Popen(
        [sys.executable, "-c", LOCKER, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert locker.stdout is not None and locker.stdout.readline().strip() == "locked"
        started = time.monotonic()
        with pytest.raises(SessionLoadError) as err:
            load_session(path)
        assert time.monotonic() - started < 10
        assert "database is locked" in str(err.value) and str(path) in str(err.value)
    finally:
        assert locker.stdin is not None
        locker.stdin.write("\n")
        locker.stdin.flush()
        locker.wait(timeout=10)
    assert load_session(path).id == "s"  # and once the writer is done, it loads


def test_missing_fields(tmp_path: Path) -> None:
    data = "\n".join(
        [
            json.dumps({"working_dir": "/w"}),
            json.dumps({"role": "user"}),
            json.dumps({"role": "assistant", "content": [{"type": "text"}, {"no_type": 1}]}),
        ]
    )
    session = load_untouched(write(tmp_path / "s.jsonl", data.encode()))
    assert [m.content for m in session.messages] == [[], [{"type": "text"}, {"no_type": 1}]]
    assert session.messages[0].id is None and session.messages[0].created is None
    assert session.description is None and session.working_dir == "/w"


def test_unknown_content_types(tmp_path: Path) -> None:
    item = {"type": "futureThing", "blob": {"deep": [1, {"x": None}]}}
    data = json.dumps({"role": "assistant", "content": [item]}) + "\n"
    session = load_untouched(write(tmp_path / "s.jsonl", data.encode()))
    assert session.messages[0].content == [item] and session.warnings == []


def test_ten_megabyte_tool_output(tmp_path: Path) -> None:
    big = "x" * 9 + "\n"
    output = big * (1024 * 1024)  # 10 MiB of text in one tool response
    response = {
        "role": "user",
        "content": [
            {
                "type": "toolResponse",
                "id": "t1",
                "toolResult": {
                    "status": "success",
                    "value": {"content": [{"type": "text", "text": output}], "isError": False},
                },
            }
        ],
    }
    data = f"{META}\n{json.dumps(response)}\n{line('done', 'assistant')}\n"
    session = load_untouched(write(tmp_path / "s.jsonl", data.encode()))
    text = session.messages[0].content[0]["toolResult"]["value"]["content"][0]["text"]
    assert len(text) == 10 * 1024 * 1024
    assert len(session.messages) == 2 and session.warnings == []


def test_deeply_nested_json_line(tmp_path: Path) -> None:
    nested = '{"role": "user", "content": [' + "[" * 100_000 + "]" * 100_000 + "]}"
    data = f"{META}\n{nested}\n{line('survivor')}\n"
    session = load_untouched(write(tmp_path / "s.jsonl", data.encode()))
    assert [m.content[0]["text"] for m in session.messages] == ["survivor"]
    assert session.warnings[0].line == 2
    assert "nested too deeply" in session.warnings[0].message


def test_deeply_nested_export(tmp_path: Path) -> None:
    body = '{"id": "e", "conversation": ' + "[" * 100_000 + "]" * 100_000 + "}"
    assert "nested too deeply" in error_of(write(tmp_path / "e.json", body.encode()))


def test_deeply_nested_db_row(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    connection = sqlite3.connect(path)
    create_schema(connection)
    insert_session(connection, {"id": "s", "working_dir": "/w"}, [])
    connection.execute(
        "INSERT INTO messages (session_id, role, content_json, created_timestamp)"
        " VALUES ('s', 'user', ?, 1)",
        ("[" * 100_000 + "]" * 100_000,),
    )
    connection.commit()
    connection.close()
    session = load_untouched(path)
    assert session.messages == [] and "nested too deeply" in session.warnings[0].message


@pytest.mark.parametrize("value", ["42", '"text"', "null", "true", "[]"])
def test_non_object_line(tmp_path: Path, value: str) -> None:
    data = f"{META}\n{value}\n{line('fine')}\n"
    session = load_untouched(write(tmp_path / "s.jsonl", data.encode()))
    assert [m.content[0]["text"] for m in session.messages] == ["fine"]
    assert session.warnings[0].line == 2 and "not a JSON object" in session.warnings[0].message


def test_invalid_utf8_in_export_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path / "e.json", b'{\n  "id": "e",\n  "name": "\xff"\n}')
    assert "line 3: invalid UTF-8" in error_of(path)


def test_missing_file_and_folder(tmp_path: Path) -> None:
    with pytest.raises(SessionLoadError, match="no such file"):
        load_session(tmp_path / "absent.jsonl")
    with pytest.raises(SessionLoadError, match="is a folder"):
        load_session(tmp_path)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.binary(max_size=400))
def test_any_bytes_load_or_fail_cleanly(tmp_path: Path, data: bytes) -> None:
    """Whatever the bytes, the result is a Session or a one-line SessionLoadError."""
    path = write(tmp_path / "fuzz.jsonl", data)
    try:
        session = load_session(path)
    except SessionLoadError as err:
        assert "\n" not in str(err)
    else:
        assert session.source_path == path


json_values = st.recursive(
    # NaN, infinities, integers past 64 bits and lone surrogates too (issue 11).
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**64, max_value=10**60)
    | st.floats()
    | st.text(st.characters(codec=None, exclude_categories=()), max_size=8),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(
            st.sampled_from(["role", "content", "id", "created", "metadata", "type", "text"]),
            children,
            max_size=4,
        )
    ),
    max_leaves=12,
)


@pytest.mark.slow
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(json_values, min_size=1, max_size=5))
def test_any_json_lines_load_or_fail_cleanly(tmp_path: Path, values: list[object]) -> None:
    path = write(tmp_path / "fuzz.jsonl", "\n".join(json.dumps(v) for v in values).encode())
    try:
        session = load_session(path)
    except SessionLoadError as err:
        assert "\n" not in str(err)
    else:
        assert all(isinstance(m.role, str) for m in session.messages)


# A message's role is rmcp's Role, user or assistant (serde, case as written): Goose reads no
# other message. The sessions.db loader skipped such a message with a warning; JSONL and
# export files kept it and sent "[system]: …" or "[USER]: …" to the summarizer.
ODD_ROLES = ["system", "tool", "USER", "developer", ""]


@pytest.mark.parametrize("role", ODD_ROLES)
def test_a_message_of_another_role_is_skipped_with_a_warning_in_every_format(
    tmp_path: Path, role: str
) -> None:
    odd = json.loads(line("odd", role=role))
    good = json.loads(line("kept"))
    jsonl = write(tmp_path / "s.jsonl", f"{META}\n{json.dumps(odd)}\n{json.dumps(good)}\n".encode())
    export = write(
        tmp_path / "e.json", json.dumps({"id": "x", "conversation": [odd, good]}).encode()
    )
    db = tmp_path / "sessions.db"
    with sqlite3.connect(db) as conn:
        create_schema(conn)
        insert_session(conn, {"id": "s1", "name": "n", "working_dir": "/w"}, [odd, good])
    for path in (jsonl, export, db):
        session = load_untouched(path)
        assert [m.content[0]["text"] for m in session.messages] == ["kept"], path
        [warning] = session.warnings
        reason = f"role {role!r} is not user or assistant" if role else "message 'role' is empty"
        assert reason in warning.message and "skipped" in warning.message, warning.message


def test_a_null_metadata_is_the_default_with_a_plain_note(tmp_path: Path) -> None:
    # It was skipped with pydantic's words: "invalid message: Input should be a valid
    # dictionary or instance of MessageMetadata".
    message = {**json.loads(line("a")), "metadata": None}
    path = write(tmp_path / "e.json", json.dumps({"id": "x", "conversation": [message]}).encode())
    session = load_untouched(path)
    [kept] = session.messages
    assert kept.metadata.user_visible and kept.metadata.agent_visible
    [warning] = session.warnings
    assert "'metadata' is null, read as visible to both" in warning.message
    assert "pydantic" not in warning.message.lower() and "instance of" not in warning.message


def test_a_folder_takes_the_session_named_with_session(cli, tmp_path: Path) -> None:
    # Every headless command's help said SESSION may be "a folder", and a folder was always
    # refused, --session or not ("is a folder, not a session file (list it instead)").
    import shutil

    from tests.conftest import SAMPLES

    folder = tmp_path / "sessions"
    folder.mkdir()
    shutil.copy(SAMPLES / "short.jsonl", folder / "short.jsonl")
    db = folder / "sessions.db"
    with sqlite3.connect(db) as conn:
        create_schema(conn)
        insert_session(
            conn,
            {"id": "20251013_1", "name": "in the db", "working_dir": "/w"},
            [json.loads(line("from the db"))],
        )
    assert load_untouched(folder / "short.jsonl").messages == load_session(folder, "short").messages
    assert [m.content[0]["text"] for m in load_session(folder, "20251013_1").messages] == [
        "from the db"
    ]
    with pytest.raises(SessionLoadError) as caught:
        load_session(folder)
    assert caught.value.reason == (
        "is a folder of sessions: name one with --session ID "
        f"(`goose-tui sessions {folder}` lists them)"
    )
    with pytest.raises(SessionLoadError) as caught:
        load_session(folder, "nope")
    assert caught.value.reason == (
        f"no session 'nope' in this folder (`goose-tui sessions {folder}` lists them)"
    )
    out = cli("format", str(folder), "--session", "short")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("[user]: ")
