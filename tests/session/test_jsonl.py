"""Goose legacy JSONL sessions (docs/pipeline.md §1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goose_tui.session.loader import SessionLoadError, detect_format, list_sessions, load_session
from goose_tui.session.models import content_type
from tests.session.test_support import untouched

META = {
    "working_dir": "/home/dev/proj",
    "description": "Fix the parser",
    "schedule_id": None,
    "message_count": 2,
    "total_tokens": 5200,
    "input_tokens": 5000,
    "output_tokens": 200,
    "accumulated_total_tokens": 9100,
    "accumulated_input_tokens": 8700,
    "accumulated_output_tokens": 400,
}


def msg(role: str, text: str, **extra: object) -> dict:
    return {
        "id": extra.pop("id", None),
        "role": role,
        "created": 1_760_000_000,
        "content": [{"type": "text", "text": text}],
        "metadata": {"userVisible": True, "agentVisible": True},
        **extra,
    }


def write_lines(path: Path, values: list[object]) -> Path:
    path.write_text("".join(json.dumps(v) + "\n" for v in values), encoding="utf-8")
    return path


def test_metadata_line_and_messages(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "20251009_1.jsonl", [META, msg("user", "hi"), msg("assistant", "yo")]
    )
    with untouched(path):
        session = load_session(path)
    assert detect_format(path) == "jsonl"
    assert session.source_format == "jsonl"
    assert session.id == "20251009_1"
    assert session.description == "Fix the parser"
    assert session.working_dir == "/home/dev/proj"
    assert session.usage.total_tokens == 5200
    assert session.usage.input_tokens == 5000
    assert session.accumulated_usage.total_tokens == 9100
    assert [m.role for m in session.messages] == ["user", "assistant"]
    assert session.messages[0].content[0]["text"] == "hi"
    assert session.warnings == []
    assert session.title == "Fix the parser"


def test_first_line_that_is_a_message_is_kept(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "s.jsonl", [msg("user", "first"), msg("assistant", "second")])
    session = load_session(path)
    assert [m.content[0]["text"] for m in session.messages] == ["first", "second"]
    assert session.description is None


def test_metadata_model_config_is_read(tmp_path: Path) -> None:
    meta = {**META, "model_config": {"model_name": "gpt-4o-mini", "context_limit": 32000}}
    session = load_session(write_lines(tmp_path / "s.jsonl", [meta, msg("user", "x")]))
    assert session.model_name == "gpt-4o-mini"
    assert session.model_config_.context_limit == 32000


def test_bad_lines_warn_with_line_numbers_and_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    lines = [
        json.dumps(META),
        json.dumps(msg("user", "ok 1")),
        "{not json",
        "[1, 2, 3]",
        json.dumps({"content": [{"type": "text", "text": "no role"}]}),
        json.dumps(msg("assistant", "ok 2")),
    ]
    path.write_text("\n".join(lines) + "\n")
    session = load_session(path)
    assert [m.content[0]["text"] for m in session.messages] == ["ok 1", "ok 2"]
    assert [w.line for w in session.warnings] == [3, 4, 5]
    assert "invalid JSON" in session.warnings[0].message
    assert "not a JSON object" in session.warnings[1].message
    assert "role" in session.warnings[2].message
    assert str(session.warnings[0]).startswith("line 3: ")


def test_unknown_content_types_are_kept_untouched(tmp_path: Path) -> None:
    odd = {"type": "hologram", "payload": {"nested": [1, 2]}}
    legacy = {"type": "contextLengthExceeded", "msg": "too long"}
    message = {**msg("assistant", "x"), "content": [odd, legacy]}
    session = load_session(write_lines(tmp_path / "s.jsonl", [META, message]))
    assert session.messages[0].content == [odd, legacy]
    assert [content_type(i) for i in session.messages[0].content] == [
        "hologram",
        "contextLengthExceeded",
    ]
    assert session.warnings == []


def test_message_fields_read_leniently(tmp_path: Path) -> None:
    lenient = {"id": 7, "role": "user", "created": 1.7e9, "content": "plain string", "metadata": 3}
    no_content = {"role": "assistant"}
    session = load_session(write_lines(tmp_path / "s.jsonl", [META, lenient, no_content]))
    first, second = session.messages
    assert first.id == "7"
    assert first.created == 1_700_000_000
    assert first.content == [{"type": "text", "text": "plain string"}]
    assert first.metadata.agent_visible is True
    assert second.content == []
    assert [w.line for w in session.warnings] == [2]


def test_metadata_visibility_flags(tmp_path: Path) -> None:
    hidden = {**msg("user", "hidden"), "metadata": {"userVisible": False, "agentVisible": True}}
    session = load_session(write_lines(tmp_path / "s.jsonl", [META, hidden]))
    assert session.messages[0].metadata.user_visible is False
    assert session.messages[0].metadata.agent_visible is True


def test_extension_does_not_decide_the_format(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "session.txt", [META, msg("user", "hi")])
    assert detect_format(path) == "jsonl"
    assert len(load_session(path).messages) == 1


def test_only_metadata_loads_an_empty_session(tmp_path: Path) -> None:
    session = load_session(write_lines(tmp_path / "s.jsonl", [META]))
    assert session.messages == []
    assert session.description == "Fix the parser"


def test_not_a_session_at_all(tmp_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_text("hello\nworld\n")
    with pytest.raises(SessionLoadError) as err:
        load_session(path)
    assert str(path) in str(err.value)
    assert "line 1" in str(err.value)


def test_session_id_must_match_a_single_session_file(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "abc.jsonl", [META, msg("user", "hi")])
    assert load_session(path, "abc").id == "abc"
    with pytest.raises(SessionLoadError, match="not found"):
        load_session(path, "other")


def test_folder_listing(tmp_path: Path) -> None:
    write_lines(tmp_path / "a.jsonl", [META, msg("user", "1"), msg("assistant", "2")])
    write_lines(tmp_path / "b.jsonl", [msg("user", "only")])
    (tmp_path / "broken.jsonl").write_text("garbage\n")
    (tmp_path / "README.md").write_text("# not a session\n")
    with untouched(tmp_path):
        infos = list_sessions(tmp_path)
    assert sorted((i.id, i.message_count) for i in infos) == [("a", 2), ("b", 1)]
    assert all(i.updated_at is not None for i in infos)


def test_list_sessions_none_uses_goose_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    sessions = tmp_path / "data" / "sessions"
    sessions.mkdir(parents=True)
    write_lines(sessions / "x.jsonl", [META, msg("user", "hi")])
    monkeypatch.setenv("GOOSE_PATH_ROOT", str(tmp_path))
    assert [i.id for i in list_sessions()] == ["x"]


def test_list_sessions_missing_dir_is_clear(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GOOSE_PATH_ROOT", str(tmp_path / "nowhere"))
    with pytest.raises(SessionLoadError, match="no such file or folder"):
        list_sessions()


def test_a_raw_control_character_is_worded_once(tmp_path: Path) -> None:
    # json's own message ends in "at" ("Invalid control character at"): the warning read
    # "invalid JSON (Invalid control character at at column 66)".
    path = tmp_path / "s.jsonl"
    line = json.dumps(msg("user", "tab here")).replace("tab here", "tab\there")
    path.write_text(json.dumps(META) + "\n" + line + "\n")
    session = load_session(path)
    [warning] = session.warnings
    assert "Invalid control character at column" in warning.message, warning.message
    assert " at at " not in warning.message
