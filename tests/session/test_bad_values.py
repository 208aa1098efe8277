"""Issue 11, "one bad value never makes a session unreadable": NaN, Infinity, -Infinity, 1e400,
integers of thousands of digits, lone surrogates, in any field of a JSONL file, an export
and a sessions.db; a one-line JSONL over 1 MiB; a sessions.db whose tables are views,
virtual tables or generated columns; a query that runs too long; Ctrl-C during a query.

Every command must still work, and what it writes must be UTF-8 (a real UTF-8 stream, strict,
as a terminal or a file would get it)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goose_tui import cli
from goose_tui.compaction.format import format_messages
from goose_tui.session import sqlite as sqlite_loader
from goose_tui.session.loader import SessionLoadError, detect_format, load_session
from goose_tui.session.schema import create_schema, insert_session
from tests.cli_child import CliRun, run_cli_cases
from tests.conftest import ROOT
from tests.session.test_support import untouched

BIG = "9" * 5000
# A JSONL session with a bad value in every kind of field Goose writes.
HOSTILE_LINES = [
    '{"working_dir": "/w", "description": "title \\ud800 end", "total_tokens": NaN,'
    ' "input_tokens": Infinity, "output_tokens": -Infinity, "message_count": 1e400,'
    ' "model_config": {"model_name": "m", "context_limit": ' + BIG + "}}",
    '{"role": "user", "created": NaN, "content": [{"type": "text", "text": "hi \\ud800 there"}]}',
    '{"role": "assistant", "created": 1e400, "tokens": Infinity,'
    ' "content": [{"type": "text", "text": "second"}]}',
    '{"role": "user", "created": ' + BIG + ', "content": [{"type": "text", "text": "third"}]}',
    '{"role": "assistant", "created": 1, "content": [{"type": "toolRequest", "id": "\\udfff",'
    ' "toolCall": {"status": "success", "value": {"name": "run",'
    ' "arguments": {"n": NaN, "big": ' + BIG + ', "f": -1e999}}}}]}',
    '{"role": "user", "created": -Infinity, "id": 123456789012345678901234567890,'
    ' "metadata": {"userVisible": NaN}, "content": [{"type": "text", "text": "last"}]}',
]


def hostile_jsonl(folder: Path) -> Path:
    path = folder / "hostile.jsonl"
    path.write_text("\n".join(HOSTILE_LINES) + "\n", encoding="utf-8")
    return path


def hostile_export(folder: Path) -> Path:
    messages = ",\n".join(HOSTILE_LINES[1:])
    body = (
        '{"id": "exp", "working_dir": "/w", "name": "n \\ud800", "created_at": NaN,'
        ' "updated_at": ' + BIG + ', "total_tokens": Infinity,'
        ' "conversation": [\n' + messages + "\n]}"
    )
    path = folder / "hostile.json"
    path.write_text(body, encoding="utf-8")
    return path


def hostile_db(folder: Path) -> Path:
    path = folder / "sessions.db"
    connection = sqlite3.connect(path)
    create_schema(connection)
    insert_session(
        connection,
        {"id": "s1", "working_dir": "/w", "description": "d", "updated_at": "2025-01-01"},
        [],
    )
    rows = [
        ("user", '[{"type": "text", "text": "a \\ud800 b"}]', 1, None, '{"userVisible": NaN}'),
        ("assistant", '[{"type": "text", "text": "x", "n": 1e400}]', float("inf"), None, None),
        ("user", '[{"type": "text", "text": "big", "n": ' + BIG + "}]", BIG, float("inf"), None),
        ("assistant", '[{"type": "text", "text": "ok"}]', float("-inf"), 7, None),
    ]
    connection.executemany(
        "INSERT INTO messages (session_id, role, content_json, created_timestamp, tokens,"
        " metadata_json) VALUES ('s1', ?, ?, ?, ?, ?)",
        rows,
    )
    # Text that is not UTF-8 at all in a text column (sqlite3 refuses to read it by default).
    connection.execute(
        "INSERT INTO messages (session_id, role, content_json, created_timestamp)"
        " VALUES ('s1', 'user', CAST(X'5B7B2274797065223A2274657874222C2274657874223A22FF22'"
        " || '7D5D' AS TEXT), 2)"
    )
    connection.execute(
        "UPDATE sessions SET total_tokens = 1e999, name = CAST(X'6E616D65FF' AS TEXT)"
    )
    connection.commit()
    connection.close()
    return path


MAKERS = {"jsonl": hostile_jsonl, "export": hostile_export, "sessions.db": hostile_db}


@pytest.mark.parametrize("kind", list(MAKERS))
def test_a_session_with_bad_values_loads_and_says_where(tmp_path: Path, kind: str) -> None:
    path = MAKERS[kind](tmp_path)
    with untouched(path):
        session = load_session(path)
    texts = [item.get("text") for m in session.messages for item in m.content]
    assert len(session.messages) >= 4
    assert any("\\ud800" in (t or "") for t in texts)  # shown, as visible text
    warnings = [str(w) for w in session.warnings]
    assert warnings, "every change is reported"
    if kind == "jsonl":
        assert "line 2: created: number NaN cannot be used, kept as text" in warnings
        assert "line 2: content[0].text: lone surrogate" in " ".join(warnings)
        assert any(
            w.startswith("line 5: content[0].toolCall.value.arguments.big:") for w in warnings
        )
    if kind == "sessions.db":
        assert any("not UTF-8" in w for w in warnings)
    # Nothing in the session is unencodable any more: every downstream step can write it.
    format_messages(session.messages).encode("utf-8")
    session.model_dump_json()


COMMANDS = [
    ("format",),
    ("prompt",),
    ("usage",),
    ("usage", "--json"),
    ("sessions",),
    ("sessions", "--json"),
    ("compact",),
    ("compact", "--json"),
    ("timeline",),
    ("timeline", "--json"),
    ("retention",),
]


@pytest.fixture(scope="module")
def bad_value_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, CliRun]:
    """Every command on every kind of hostile session, run by goose-tui's entry point in one
    child process (tests/cli_child.py): 33 fresh interpreters took ~15 s of CPU."""
    cases = {}
    for kind, make in MAKERS.items():
        path = make(tmp_path_factory.mktemp(kind.replace(".", "-")))
        for command in COMMANDS:
            cases[f"{' '.join(command)}-{kind}"] = ([command[0], str(path), *command[1:]], {})
    return run_cli_cases(cases, cwd=ROOT, env=dict(os.environ))


# The module fixture above runs once: every test that uses it on one worker.
@pytest.mark.xdist_group("bad_value_runs")
@pytest.mark.parametrize("kind", list(MAKERS))
@pytest.mark.parametrize("command", COMMANDS, ids=[" ".join(c) for c in COMMANDS])
def test_every_command_works_on_a_session_with_bad_values(
    bad_value_runs: dict[str, CliRun], kind: str, command: tuple[str, ...]
) -> None:
    out = bad_value_runs[f"{' '.join(command)}-{kind}"]
    assert out.returncode == 0, out.stderr.decode("utf-8", "replace")
    assert b"internal error" not in out.stderr
    out.stdout.decode("utf-8")  # strict: every byte is UTF-8
    out.stderr.decode("utf-8")
    if "--json" in command:
        json.loads(out.stdout, parse_constant=_no_constants)  # valid JSON, no NaN


def _no_constants(name: str) -> Any:
    raise AssertionError(f"{name} in JSON output")


def test_a_one_line_jsonl_over_one_mebibyte_is_jsonl(tmp_path: Path) -> None:
    text = "x" * (1 << 20) + " end"
    path = tmp_path / "long.jsonl"
    message = {"role": "user", "created": 1, "content": [{"type": "text", "text": text}]}
    path.write_text(json.dumps(message) + "\n")
    assert detect_format(path) == "jsonl"
    session = load_session(path)
    assert session.messages[0].content[0]["text"] == text


# --- sessions.db: only real tables, bounded in time, Ctrl-C --------------------------------------


def _db(path: Path, sql: str) -> Path:
    connection = sqlite3.connect(path)
    connection.executescript(sql)
    connection.commit()
    connection.close()
    return path


ENDLESS = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)"
TRAPS = {
    "sessions-view-recursive-cte": (
        "CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT,"
        " content_json TEXT);"
        f" CREATE VIEW sessions AS {ENDLESS} SELECT x AS id, x AS updated_at FROM c;"
    ),
    "messages-view-zeroblob": (
        "CREATE TABLE sessions (id TEXT, updated_at TEXT);"
        " INSERT INTO sessions VALUES ('s', '2025-01-01');"
        " CREATE VIEW messages AS SELECT 's' AS session_id, 'user' AS role,"
        " zeroblob(2000000000) AS content_json, 1 AS id;"
    ),
    "virtual-table": (
        "CREATE VIRTUAL TABLE sessions USING fts5(id, updated_at);"
        " CREATE TABLE messages (session_id TEXT, role TEXT, content_json TEXT);"
    ),
}


@pytest.mark.parametrize("trap", list(TRAPS))
@pytest.mark.parametrize("operation", ["load", "list"])
def test_a_sessions_db_of_views_or_virtual_tables_is_refused_at_once(
    tmp_path: Path, trap: str, operation: str
) -> None:
    path = _db(tmp_path / "sessions.db", TRAPS[trap])
    started = time.monotonic()
    with pytest.raises(SessionLoadError, match="not a table") as caught:
        if operation == "load":
            load_session(path)
        else:
            sqlite_loader.list_sqlite(path)
    assert time.monotonic() - started < 5
    assert "\n" not in str(caught.value)


def test_a_generated_column_is_never_evaluated(tmp_path: Path) -> None:
    # Reading (and ordering by) this updated_at costs most of a second per row.
    slow = "length(replace(hex(zeroblob(20000000)), '0', 'ab'))"
    path = _db(
        tmp_path / "sessions.db",
        f"CREATE TABLE sessions (id TEXT, name TEXT,"
        f" updated_at TEXT GENERATED ALWAYS AS ({slow}) VIRTUAL);"
        " INSERT INTO sessions (id, name) SELECT 's' || value, 'n' FROM json_each('[0,1,2,3,4,"
        "5,6,7,8,9]');"
        " CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT,"
        " content_json TEXT, created_timestamp INTEGER,"
        " tokens INTEGER GENERATED ALWAYS AS (zeroblob(900000000)) VIRTUAL);"
        " INSERT INTO messages (session_id, role, content_json, created_timestamp)"
        ' VALUES (\'s0\', \'user\', \'[{"type": "text", "text": "hi"}]\', 1);',
    )
    started = time.monotonic()
    session = load_session(path, "s0")
    assert [m.content[0]["text"] for m in session.messages] == ["hi"]
    assert session.messages[0].tokens is None
    infos = sqlite_loader.list_sqlite(path, all_sessions=True)  # the empty ones too
    assert len(infos) == 10 and all(info.updated_at is None for info in infos)
    assert time.monotonic() - started < 5


def test_every_query_is_bounded_in_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = hostile_db(tmp_path)
    monkeypatch.setattr(sqlite_loader, "QUERY_SECONDS", 0.5)
    started = time.monotonic()
    with pytest.raises(SessionLoadError, match=r"took longer than 0.5 s"):
        with sqlite_loader.connect_read_only(path) as connection:
            connection.execute(f"{ENDLESS} SELECT count(*) FROM c").fetchone()
    assert time.monotonic() - started < 5


# Ctrl-C in a terminal: a process of its own with Python's default SIGINT handler, so the
# test does not depend on the signal state its pytest worker was started with or that other
# tests left (in-process, this test once ran its query the full 20 s in a full-suite run).
_CTRL_C_CHILD = """
import signal, sys
from pathlib import Path
signal.signal(signal.SIGINT, signal.default_int_handler)
from goose_tui.session import sqlite as sqlite_loader
print("ready", flush=True)
try:
    with sqlite_loader.connect_read_only(Path(sys.argv[1])) as connection:
        connection.execute(sys.argv[2] + " SELECT count(*) FROM c").fetchone()
except KeyboardInterrupt:
    print("KeyboardInterrupt")
"""


def test_ctrl_c_stops_a_running_query(tmp_path: Path) -> None:
    path = hostile_db(tmp_path)
    child = subprocess.Popen(
        [sys.executable, "-c", _CTRL_C_CHILD, str(path), ENDLESS],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == "ready\n"
        time.sleep(0.5)  # the endless query is running
        started = time.monotonic()
        child.send_signal(signal.SIGINT)
        stdout, stderr = child.communicate(timeout=30)
    finally:
        child.kill()
    assert stdout == "KeyboardInterrupt\n", stderr
    assert time.monotonic() - started < 5


# --- properties: any bad value, anywhere, through the loaders and the CLI's output ----------


class Raw(str):
    """JSON text written as it is (json.dumps cannot write these)."""


BAD_NUMBERS = st.sampled_from(
    [Raw("NaN"), Raw("Infinity"), Raw("-Infinity"), Raw("1e400"), Raw("-2e308"), Raw(BIG)]
    + [Raw("-" + "1" * 30), Raw("1" * 25)]
)
ANY_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=6)
LEAVES = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | ANY_TEXT
    | BAD_NUMBERS
)
FIELDS = ["role", "content", "id", "created", "metadata", "type", "text", "tokens", "toolCall"]
VALUES = st.recursive(
    LEAVES,
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.sampled_from(FIELDS) | ANY_TEXT, children, max_size=4)
    ),
    max_leaves=10,
)
MESSAGES = st.fixed_dictionaries(
    {
        "role": st.sampled_from(["user", "assistant"]),
        "created": LEAVES,
        "content": st.lists(
            st.fixed_dictionaries({"type": st.just("text"), "text": ANY_TEXT | BAD_NUMBERS}),
            max_size=2,
        ),
    },
    optional={"metadata": VALUES, "tokens": LEAVES, "id": LEAVES},
)


def to_json(value: Any) -> str:
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, float):
        return json.dumps(value)  # NaN / Infinity as Python writes them
    if isinstance(value, list):
        return "[" + ", ".join(to_json(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)}: {to_json(v)}" for k, v in value.items()) + "}"
    return json.dumps(value)  # a lone surrogate is written as \udXXX (ensure_ascii)


def run_cli_in_utf8(argv: list[str]) -> tuple[int, bytes, bytes]:
    """``cli.main`` with stdout/stderr real UTF-8 text streams (strict), as a file gets them."""
    out, err = io.BytesIO(), io.BytesIO()
    stdout = io.TextIOWrapper(out, encoding="utf-8", errors="strict", write_through=True)
    stderr = io.TextIOWrapper(err, encoding="utf-8", errors="strict", write_through=True)
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = cli.main(argv)
    stdout.flush()
    stderr.flush()
    return code, out.getvalue(), err.getvalue()


PROPERTY = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@PROPERTY
@given(st.lists(MESSAGES | VALUES, min_size=1, max_size=4), VALUES)
def test_any_bad_value_loads_and_every_output_is_utf8(
    tmp_path: Path, lines: list[Any], metadata: Any
) -> None:
    path = tmp_path / "fuzz.jsonl"
    text = "\n".join([to_json(metadata), *(to_json(v) for v in lines)]) + "\n"
    path.write_text(text, encoding="utf-8")
    try:
        session = load_session(path)
    except SessionLoadError as err:
        assert "\n" not in str(err)
        return
    format_messages(session.messages).encode("utf-8")
    for argv in (["format", str(path)], ["usage", str(path), "--json"], ["sessions", str(path)]):
        code, out, err = run_cli_in_utf8(argv)
        assert code == 0, err
        out.decode("utf-8")
        assert b"internal error" not in err


@PROPERTY
@given(st.lists(MESSAGES, min_size=1, max_size=3), st.dictionaries(ANY_TEXT, LEAVES, max_size=3))
def test_any_bad_value_in_an_export_loads_and_compacts(
    tmp_path: Path, messages: list[Any], extra: dict[str, Any]
) -> None:
    path = tmp_path / "fuzz.json"
    body = {"id": "e", "working_dir": "/w", **extra, "conversation": messages}
    path.write_text(to_json(body), encoding="utf-8")
    try:
        load_session(path)
    except SessionLoadError as err:
        assert "\n" not in str(err)
        return
    code, out, err = run_cli_in_utf8(["compact", str(path), "--json"])
    assert code in (0, 1), err  # 1: an empty conversation compacts to nothing
    assert b"internal error" not in err
    if code == 0:
        json.loads(out.decode("utf-8"), parse_constant=_no_constants)
