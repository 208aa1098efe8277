"""Which messages and content items the summarizer receives (docs/pipeline.md §1-§2).

Goose compacts only what the agent itself sees (crates/goose/src/context_mgmt/mod.rs,
``do_compact``): messages flagged ``turnContext`` in their metadata are left out first (stale
per-turn state), then messages that are not agent-visible, and every remaining message is cut
down to its ``agent_visible_content`` (crates/goose/src/conversation/message.rs): a content
item whose ``annotations.audience`` lists roles without ``assistant`` is for the user only.
A message the audience cut leaves without content is not sent at all; one that had no
content to begin with is (docs/fidelity.md, "Messages without content").
That is how the developer extension's doubled shell output (one copy for the assistant, one
for the user with priority 0.0) reaches the summarizer once.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from goose_tui.gc_pause import paused_gc
from goose_tui.session.models import ContentItem, Message

# Item types whose own annotations Goose's filter_for_audience reads at the message level;
# every other message-level type is kept whatever it carries.
_AUDIENCE_ITEMS = frozenset({"text", "image"})
# Inside a tool result, the MCP content blocks that carry annotations (content_audience).
_RESULT_AUDIENCE_ITEMS = frozenset({"text", "image", "audio", "resource", "resource_link"})


def for_assistant(item: Any) -> bool:
    """False when the item's ``annotations.audience`` is a list of roles without
    ``assistant``; no annotations, or no audience, means everyone."""
    annotations = item.get("annotations") if isinstance(item, dict) else None
    if not isinstance(annotations, dict):
        return True
    audience = annotations.get("audience")
    return not isinstance(audience, list) or "assistant" in audience


def _filtered_item(item: ContentItem) -> ContentItem | None:
    """The item as the assistant sees it; None when it is for the user only. Written for
    speed: it runs once per content item of the session on every request built."""
    kind = item.get("type") if isinstance(item, dict) else None
    if kind in _AUDIENCE_ITEMS:
        return item if "annotations" not in item or for_assistant(item) else None
    if kind != "toolResponse":
        return item
    result = item.get("toolResult")
    if not isinstance(result, dict) or result.get("status", "success") != "success":
        return item
    value = result.get("value")
    contents = value.get("content") if isinstance(value, dict) else value
    if not isinstance(contents, list):
        return item
    kept = [
        part
        for part in contents
        if not isinstance(part, dict)
        or "annotations" not in part
        or part.get("type") not in _RESULT_AUDIENCE_ITEMS
        or for_assistant(part)
    ]
    if len(kept) == len(contents):
        return item
    # Goose keeps the response even when nothing is left in it (some providers need it).
    new_value: Any = {**value, "content": kept} if isinstance(value, dict) else kept
    return {**item, "toolResult": {**result, "value": new_value}}


def agent_visible_content(message: Message) -> Message:
    """The message with the user-only items removed; the same object when none is."""
    filtered: list[ContentItem] = []
    changed = False
    for item in message.content:
        kept = _filtered_item(item)
        changed = changed or kept is not item
        if kept is not None:
            filtered.append(kept)
    return message.model_copy(update={"content": filtered}) if changed else message


def summarizer_messages(messages: Iterable[Message]) -> list[Message]:
    """What Goose hands its summarizer: no turn-context messages, agent-visible messages
    only, each cut to its agent-visible content (``Conversation::agent_visible_messages``,
    crates/goose/src/conversation/mod.rs). A message the cut leaves empty is dropped with
    the cut; a message stored without content (its only item a ``conversationCompacted``
    the reader dropped) is kept, as Goose's metadata filter keeps it, and is written with
    no parts: ``<empty message>``, as is one whose items the formatter drops (only
    thinking, say; docs/pipeline.md §2)."""
    out = []
    with paused_gc():  # a copy per cut message: see gc_pause
        for message in messages:
            if message.metadata.agent_visible and not message.metadata.turn_context:
                visible = agent_visible_content(message)
                if visible.content or not message.content:
                    out.append(visible)
    return out


def hidden_item_indices(message: Message) -> set[int]:
    """Positions of the items the summarizer does not receive as stored, because of their
    audience: dropped, or a tool response with user-only parts cut (the app shows them)."""
    return {i for i, item in enumerate(message.content) if _filtered_item(item) is not item}
