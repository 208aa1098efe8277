"""`goose session export --format json` files and plain chat-message arrays (docs/pipeline.md
§1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goose_tui.session.loader import SessionLoadError, detect_format, list_sessions, load_session
from goose_tui.session.models import content_type
from tests.conftest import REALDATA
from tests.session.test_support import untouched

REAL_FILES = sorted(REALDATA.glob("*.json"))


def test_real_exports_are_present() -> None:
    assert [p.name for p in REAL_FILES] == ["export-session.json", "export-text.json"]


@pytest.mark.parametrize("path", REAL_FILES, ids=lambda p: p.name)
def test_real_exports_load(path: Path) -> None:
    raw = json.loads(path.read_text())
    session = load_session(path)
    assert detect_format(path) == "export"
    assert session.source_format == "export"
    assert session.id == raw["id"]
    assert session.name == raw["name"]
    assert session.working_dir == raw["working_dir"]
    assert session.provider_name == "ollama"
    assert session.model_name == raw["model_config"]["model_name"]
    assert session.model_config_.context_limit is None
    assert session.usage.total_tokens == raw["usage"]["total_tokens"]
    assert session.created_at is not None and session.created_at.year == 2026
    assert len(session.messages) == raw["message_count"] == len(raw["conversation"])
    for loaded, original in zip(session.messages, raw["conversation"], strict=True):
        assert loaded.id == original["id"]
        assert loaded.role == original["role"]
        assert loaded.created == original["created"]
        assert loaded.content == original["content"]
    assert session.warnings == []
    assert session.model_extra is not None and session.model_extra["goose_mode"] == "auto"


def test_real_export_tool_call_shapes() -> None:
    session = load_session(REALDATA / "export-session.json")
    kinds = [content_type(m.content[0]) for m in session.messages]
    assert kinds == ["text", "toolRequest", "toolResponse", "text"]
    request = session.messages[1].content[0]
    assert request["toolCall"]["value"]["name"] == "write"
    assert request["_meta"] == {"goose_extension": "developer"}
    assert session.messages[2].has_tool_response()


def test_real_export_folder_listing() -> None:
    infos = list_sessions(REALDATA)
    assert [i.id for i in infos] == ["20260628_3", "20260628_1"]  # most recent first
    assert infos[0].message_count == 4


def test_compact_one_line_export_is_an_export(tmp_path: Path) -> None:
    data = {"id": "x", "working_dir": "/w", "conversation": [{"role": "user", "content": []}]}
    path = tmp_path / "one-line.jsonl"
    path.write_text(json.dumps(data))
    assert detect_format(path) == "export"
    assert load_session(path).id == "x"


def test_old_export_flat_token_fields_and_bad_message(tmp_path: Path) -> None:
    data = {
        "id": "old",
        "description": "older export",
        "working_dir": "/w",
        "total_tokens": 321,
        "accumulated_total_tokens": 999,
        "conversation": [{"role": "user", "content": [{"type": "text", "text": "a"}]}, "junk"],
    }
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data, indent=2))
    session = load_session(path)
    assert session.usage.total_tokens == 321
    assert session.accumulated_usage.total_tokens == 999
    assert len(session.messages) == 1
    assert session.warnings[0].message.startswith("conversation[1]: not a JSON object")


def test_json_object_that_is_not_an_export(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"theme": "dark"}, indent=2))
    with pytest.raises(SessionLoadError, match="no 'conversation'"):
        load_session(path)


def test_chat_messages(tmp_path: Path) -> None:
    data = [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "list files"},
        {
            "role": "assistant",
            "content": None,
            "reasoning_content": "use ls",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "developer__shell", "arguments": '{"command": "ls"}'},
                },
                {"id": "call_2", "type": "function", "function": {"name": "x", "arguments": "{"}},
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "a.py\nb.py"},
        {"role": "tool", "tool_call_id": "call_2", "content": [{"type": "text", "text": "?"}]},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "and this?"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0K"}},
            ],
        },
    ]
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(data))
    with untouched(path):
        session = load_session(path)
    assert detect_format(path) == "chat"
    assert session.source_format == "chat"
    assert [m.role for m in session.messages] == ["user", "assistant", "user", "user"]
    assistant = session.messages[1].content
    assert [content_type(i) for i in assistant] == ["thinking", "toolRequest", "toolRequest"]
    assert assistant[1]["toolCall"] == {
        "status": "success",
        "value": {"name": "developer__shell", "arguments": {"command": "ls"}},
    }
    assert assistant[2]["toolCall"]["status"] == "error"
    responses = session.messages[2].content
    assert [r["id"] for r in responses] == ["call_1", "call_2"]
    assert responses[0]["toolResult"]["value"]["content"] == [
        {"type": "text", "text": "a.py\nb.py"}
    ]
    assert session.messages[3].content[1] == {
        "type": "image",
        "data": "iVBORw0K",
        "mimeType": "image/png",
    }
    assert session.model_extra is not None
    assert session.model_extra["system_prompt"] == "You are terse."
    assert "system prompt" in session.warnings[0].message


def test_chat_array_of_garbage(tmp_path: Path) -> None:
    path = tmp_path / "nums.json"
    path.write_text("[1, 2, 3]")
    with pytest.raises(SessionLoadError, match="not a chat-message array"):
        load_session(path)
