"""What today's Goose keeps when it imports a session, and what it cannot read.

Goose's import (``import_session`` in crates/goose/src/session/storage.rs, which
``SessionManager::import_session`` in session_manager.rs calls; block/goose commit 865e4a03)
is one ``serde_json::from_str::<Session>``: one field or content item it cannot read fails
the whole import. It then creates a new session from ``working_dir``, ``name``,
``session_type`` and ``goose_mode``, sets ``extension_data``, the token counts,
``accumulated_cost``, ``schedule_id``, ``recipe`` and ``user_recipe_values`` (and the name as
the user's when ``user_set_name``), and replaces the conversation. ``provider_name`` and
``model_config`` are read but not kept.

The values here are serde's: ``SessionType`` and ``GooseMode`` are snake_case enums
(crates/goose/src/session/model.rs, crates/goose/src/config/goose_mode.rs), ``MessageContent``
is tagged by ``type`` in camelCase (crates/goose/src/conversation/message/content_types.rs),
and ``deserialize_sanitized_content`` (message/mod.rs) drops ``conversationCompacted`` items
and turns ``reasoning`` into ``thinking`` before reading the rest.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from goose_tui.session.models import Message, Session, content_type

# crates/goose/src/session/model.rs, enum SessionType (serde rename_all snake_case).
SESSION_TYPES = ("user", "scheduled", "sub_agent", "hidden", "terminal", "gateway", "acp")
# crates/goose/src/config/goose_mode.rs, enum GooseMode; Session.goose_mode defaults to auto.
GOOSE_MODES = ("auto", "approve", "smart_approve", "chat")
# crates/goose/src/conversation/message/content_types.rs, enum MessageContent.
CONTENT_TYPES = frozenset(
    {
        "text",
        "image",
        "toolRequest",
        "toolResponse",
        "toolConfirmationRequest",
        "actionRequired",
        "frontendToolRequest",
        "thinking",
        "redactedThinking",
        "systemNotification",
    }
)
# Read, then dropped or converted, by deserialize_sanitized_content before the enum.
MIGRATED_CONTENT_TYPES = frozenset({"conversationCompacted", "reasoning"})
ROLES = ("user", "assistant")  # rmcp's Role


def readable_message(message: Message) -> tuple[Message | None, Counter[str]]:
    """The message with the content items today's Goose cannot deserialize left out (each
    counted by type), or None when nothing Goose reads is left in it (a message whose only
    item was ``summarizationRequested``) or its role is not one Goose has."""
    dropped: Counter[str] = Counter()
    if message.role not in ROLES:
        dropped[f"role {message.role!r}"] += 1
        return None, dropped
    kept = []
    for item in message.content:
        kind = content_type(item)
        if kind in CONTENT_TYPES or kind in MIGRATED_CONTENT_TYPES:
            kept.append(item)
        else:
            dropped[kind or "item without a type"] += 1
    if not dropped:
        return message, dropped
    if not kept:
        return None, dropped
    return message.model_copy(update={"content": kept}), dropped


def readable_messages(messages: Sequence[Message]) -> tuple[list[Message], list[str]]:
    """Every message as today's Goose can read it, and one note naming what was left out."""
    out: list[Message] = []
    dropped: Counter[str] = Counter()
    emptied = 0
    for message in messages:
        kept, lost = readable_message(message)
        dropped += lost
        if kept is None:
            emptied += 1
        else:
            out.append(kept)
    notes = []
    if dropped:
        names = ", ".join(f"{count} {kind}" for kind, count in sorted(dropped.items()))
        whole = (
            f" ({emptied} message(s) with nothing else in them left out whole)" if emptied else ""
        )
        notes.append(
            f"left out content today's Goose cannot read (its import would fail on it): "
            f"{names}{whole}"
        )
    return out, notes


def _extra(session: Session, name: str) -> Any:
    return (session.model_extra or {}).get(name)


def session_state(session: Session) -> tuple[dict[str, Any], list[str]]:
    """The session's own state, as Goose's import keeps it, and a note for each value that
    Goose could not read (left out, so Goose uses its default and the import succeeds)."""
    notes: list[str] = []
    state: dict[str, Any] = {}

    kind = _extra(session, "session_type")
    if kind is None or kind in SESSION_TYPES:
        state["session_type"] = kind or "user"
    else:
        state["session_type"] = "user"
        notes.append(f"session_type {kind!r} is not one today's Goose knows: written as 'user'")

    mode = _extra(session, "goose_mode")
    if mode in GOOSE_MODES:
        state["goose_mode"] = mode
    elif mode is not None:
        notes.append(
            f"goose_mode {mode!r} is not one today's Goose knows: left out (Goose uses 'auto', "
            "which approves every tool call)"
        )

    extension_data = _extra(session, "extension_data")
    if isinstance(extension_data, dict):
        state["extension_data"] = extension_data
    else:
        state["extension_data"] = {}
        if extension_data is not None:
            notes.append("extension_data is not a JSON object: written as {}")

    schedule_id = _extra(session, "schedule_id")
    state["schedule_id"] = schedule_id if isinstance(schedule_id, str) else None

    recipe = _extra(session, "recipe")
    # Recipe's title and description are required strings (crates/goose/src/recipe/mod.rs).
    if isinstance(recipe, dict) and all(
        isinstance(recipe.get(key), str) for key in ("title", "description")
    ):
        state["recipe"] = recipe
    else:
        state["recipe"] = None
        if recipe is not None:
            notes.append("recipe has no title and description Goose can read: left out")

    values = _extra(session, "user_recipe_values")
    if isinstance(values, dict) and all(isinstance(v, str) for v in values.values()):
        state["user_recipe_values"] = values
    else:
        state["user_recipe_values"] = None
        if values is not None:
            notes.append("user_recipe_values is not a map of strings: left out")

    # The sqlite loader reads these columns into recipe and user_recipe_values; under their
    # column names they come from an export written by hand, and Goose's import ignores them.
    for column in ("recipe_json", "user_recipe_values_json"):
        if _extra(session, column) is not None:
            notes.append(
                f"{column} is a sessions.db column, not a field of Goose's export "
                f"({column.removesuffix('_json')} is): left out"
            )

    cost = _extra(session, "accumulated_cost")
    if isinstance(cost, int | float) and not isinstance(cost, bool):
        state["accumulated_cost"] = cost
    return state, notes


def model_config(session: Session, *, for_goose: bool = False) -> dict[str, Any] | None:
    """The session's ``model_config`` as a saved file carries it: the fields that are set, or
    None when none is. ``for_goose``: as Goose's ``ModelConfig`` reads it
    (crates/goose-providers/src/model.rs: ``model_name`` and ``toolshim`` have no default),
    or None without a model name; a missing ``toolshim`` is Goose's own default, false."""
    config = session.model_config_.model_dump(mode="json", exclude_none=True)
    if not for_goose:
        return config or None
    if not isinstance(config.get("model_name"), str):
        return None
    if isinstance(config.get("toolshim"), bool):
        return config
    return {**config, "toolshim": False}
