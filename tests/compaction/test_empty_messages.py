"""A message with no content reaches Goose's summarizer input, written with no parts.

Goose's reader drops ``conversationCompacted`` items (``deserialize_sanitized_content``,
crates/goose/src/conversation/message.rs), so a message whose only item was one has no
content. ``do_compact`` (crates/goose/src/context_mgmt/mod.rs) hands the summarizer
``Conversation::agent_visible_messages()``, which at block/goose @bc55f686 (and @08dc4786)
is ``self.filtered_messages(|meta| meta.agent_visible)`` (crates/goose/src/conversation/
mod.rs): metadata only, the message stays. Then ``format_message_for_compacting``
(crates/goose-context-management/src/format.rs) writes it:

- released Goose, ``goose-sdk-wheel`` (format.rs as the goose-sdk wheels build it):
  ``if content_parts.is_empty() { format!("[{}]: <empty message>", role_str) }``;
- ``goose-pr-11845`` (format.rs @27ced780): ``serde_json::json!({"role": role_str,
  "content": content_parts})``, so ``{"role":"assistant","content":[]}``.

A message whose every item is for the user only is another case: the audience cut and the
drop of what it leaves empty come together (``.map(Message::agent_visible_content)
.filter(|message| !message.content.is_empty())``), so that message is not sent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from goose_tui.compaction.profiles import PROFILES, format_for_profile
from goose_tui.compaction.summarize import build_request
from goose_tui.compaction.templates import load_templates
from goose_tui.compaction.visibility import summarizer_messages
from goose_tui.session.loader import load_session
from goose_tui.session.models import Message

WRITTEN = {
    "goose-sdk-wheel": "[user]: fix it\n[assistant]: <empty message>\n[user]: thanks",
    "goose-pr-11845": '{"role":"user","content":["fix it"]}\n'
    '{"role":"assistant","content":[]}\n'
    '{"role":"user","content":["thanks"]}',
}


def message(role: str, *content: dict[str, Any]) -> Message:
    return Message.model_validate({"role": role, "created": 1, "content": list(content)})


def text(body: str, **annotations: Any) -> dict[str, Any]:
    item: dict[str, Any] = {"type": "text", "text": body}
    if annotations:
        item["annotations"] = annotations
    return item


@pytest.fixture
def compacted_marker_session(tmp_path: Path) -> Path:
    """A legacy session whose assistant message holds only a conversationCompacted item."""
    path = tmp_path / "s.jsonl"
    path.write_text(
        '{"description":"x"}\n'
        '{"role":"user","created":1,"content":[{"type":"text","text":"fix it"}]}\n'
        '{"role":"assistant","created":2,"content":[{"type":"conversationCompacted",'
        '"msg":"Conversation compacted"}]}\n'
        '{"role":"user","created":3,"content":[{"type":"text","text":"thanks"}]}\n',
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize("profile", PROFILES)
def test_a_message_left_without_content_is_written_with_no_parts(
    profile: Any, compacted_marker_session: Path
) -> None:
    messages = load_session(compacted_marker_session).messages
    assert messages[1].content == []  # the reader dropped the marker, as Goose's does
    sent = summarizer_messages(messages)
    assert len(sent) == 3
    assert format_for_profile(sent, profile) == WRITTEN[profile]
    prompt = build_request(messages, load_templates(None), profile=profile).system_prompt
    assert WRITTEN[profile] in prompt


@pytest.mark.parametrize("profile", PROFILES)
def test_a_message_for_the_user_only_is_not_sent(profile: Any) -> None:
    messages = [
        message("user", text("fix it")),
        message("assistant", text("shown to the user", audience=["user"])),
        message("user", text("thanks")),
    ]
    sent = summarizer_messages(messages)
    assert [m.content[0]["text"] for m in sent] == ["fix it", "thanks"]
    assert "shown to the user" not in format_for_profile(sent, profile)
