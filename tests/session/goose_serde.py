"""A model of what today's Goose's session import accepts, written from its source for the
tests (not used by goose-tui, so a test does not check the writer against itself).

``import_session`` (crates/goose/src/session/storage.rs, block/goose commit 865e4a03) is
``serde_json::from_str::<Session>``, so these are serde's rules for:
- ``Session``, crates/goose/src/session/model.rs @865e4a03: no ``#[serde(default)]`` on
  ``id``, ``working_dir``, ``name`` (alias ``description``), ``created_at``, ``updated_at``,
  ``extension_data``, ``message_count``; ``Option`` fields may be missing; ``user_set_name``,
  ``session_type``, ``goose_mode``, ``archived_at``, ``project_id`` default.
- ``SessionType`` (same file) and ``GooseMode`` (crates/goose/src/config/goose_mode.rs),
  snake_case unit enums.
- ``ExtensionData`` (crates/goose/src/session/extension_data.rs): a flattened map.
- ``Recipe`` (crates/goose/src/recipe/mod.rs): ``title`` and ``description`` required.
- ``ModelConfig`` (crates/goose-providers/src/model.rs): ``model_name`` and ``toolshim``
  required.
- ``Message``, ``MessageMetadata`` and ``deserialize_sanitized_content``
  (crates/goose/src/conversation/message/mod.rs @865e4a03), ``MessageContent`` and its
  variants (message/content_types.rs @865e4a03), ``tool_result_serde``
  (crates/goose/src/conversation/tool_result_serde.rs).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

SESSION_TYPES = {"user", "scheduled", "sub_agent", "hidden", "terminal", "gateway", "acp"}
GOOSE_MODES = {"auto", "approve", "smart_approve", "chat"}
NOTIFICATION_TYPES = {"thinkingMessage", "inlineMessage", "creditsExhausted"}
ACTION_TYPES = {"toolConfirmation", "elicitation", "elicitationResponse"}
I32 = (-(2**31), 2**31 - 1)


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _opt(data: dict[str, Any], key: str, check: Any) -> bool:
    return data.get(key) is None or check(data[key])


def _str(value: Any) -> bool:
    return isinstance(value, str)


def _i32(value: Any) -> bool:
    return _int(value) and I32[0] <= value <= I32[1]


def _datetime(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    return parsed.tzinfo is not None  # chrono's DateTime<Utc> needs an offset


def session_problems(data: Any) -> list[str]:
    """Why Goose's import would fail on ``data``; empty when it would read it."""
    if not isinstance(data, dict):
        return ["not an object"]
    problems = []
    required = ("id", "working_dir", "created_at", "updated_at", "extension_data", "message_count")
    problems += [f"missing {key}" for key in required if key not in data]
    if ("name" in data) == ("description" in data):
        problems.append("needs exactly one of name / description (its alias)")
    for key in ("id", "working_dir"):
        if key in data and not _str(data[key]):
            problems.append(f"{key} is not a string")
    name = data.get("name", data.get("description"))
    if not _str(name):
        problems.append("name is not a string")
    for key in ("created_at", "updated_at"):
        if key in data and not _datetime(data[key]):
            problems.append(f"{key} is not an RFC 3339 time")
    if "user_set_name" in data and not isinstance(data["user_set_name"], bool):
        problems.append("user_set_name is not a bool")
    if "session_type" in data and data["session_type"] not in SESSION_TYPES:
        problems.append(f"unknown session_type {data['session_type']!r}")
    if "goose_mode" in data and data["goose_mode"] not in GOOSE_MODES:
        problems.append(f"unknown goose_mode {data['goose_mode']!r}")
    if "extension_data" in data and not isinstance(data["extension_data"], dict):
        problems.append("extension_data is not an object")
    for key in (
        "total_tokens",
        "input_tokens",
        "output_tokens",
        "accumulated_total_tokens",
        "accumulated_input_tokens",
        "accumulated_output_tokens",
    ):
        if not _opt(data, key, _i32):
            problems.append(f"{key} is not an i32")
    cost = data.get("accumulated_cost")
    if cost is not None and (isinstance(cost, bool) or not isinstance(cost, int | float)):
        problems.append("accumulated_cost is not a number")
    for key in ("schedule_id", "provider_name", "project_id"):
        if not _opt(data, key, _str):
            problems.append(f"{key} is not a string")
    if not _opt(data, "archived_at", _datetime):
        problems.append("archived_at is not a time")
    if not _opt(data, "message_count", lambda v: _int(v) and v >= 0):
        problems.append("message_count is not a usize")
    if not _opt(data, "recipe", _recipe):
        problems.append("recipe is not a Recipe")
    values = data.get("user_recipe_values")
    if values is not None and not (
        isinstance(values, dict) and all(_str(v) for v in values.values())
    ):
        problems.append("user_recipe_values is not a map of strings")
    if not _opt(data, "model_config", _model_config):
        problems.append("model_config is not a ModelConfig")
    conversation = data.get("conversation")
    if conversation is not None:
        if not isinstance(conversation, list):
            problems.append("conversation is not an array")
        else:
            for index, message in enumerate(conversation):
                problems += [f"conversation[{index}]: {p}" for p in message_problems(message)]
    return problems


def _recipe(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and _str(value.get("title"))
        and _str(value.get("description"))
        and _opt(value, "version", _str)
        and _opt(value, "instructions", _str)
        and _opt(value, "prompt", _str)
    )


def _model_config(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and _str(value.get("model_name"))
        and isinstance(value.get("toolshim"), bool)
        and _opt(value, "context_limit", lambda v: _int(v) and v >= 0)
        and _opt(value, "max_tokens", _i32)
        and _opt(value, "toolshim_model", _str)
    )


def message_problems(message: Any) -> list[str]:
    if not isinstance(message, dict):
        return ["not an object"]
    problems = []
    if not _opt(message, "id", _str):
        problems.append("id is not a string")
    if message.get("role") not in ("user", "assistant"):
        problems.append(f"role {message.get('role')!r}")
    if not _int(message.get("created")):
        problems.append("created is missing or not an i64")
    metadata = message.get("metadata")
    if not (
        isinstance(metadata, dict)
        and isinstance(metadata.get("userVisible"), bool)
        and isinstance(metadata.get("agentVisible"), bool)
    ):
        problems.append("metadata needs userVisible and agentVisible")
    content = message.get("content")
    if not isinstance(content, list):
        return [*problems, "content is not an array"]
    for index, item in enumerate(content):
        problem = content_problem(item)
        if problem:
            problems.append(f"content[{index}]: {problem}")
    return problems


def _tool_result(value: Any, legacy_list: bool = False) -> bool:
    if not isinstance(value, dict):
        return False
    if value.get("status") == "error":
        return _str(value.get("error"))
    if value.get("status") != "success" or "value" not in value:
        return False
    inner = value["value"]
    if legacy_list and isinstance(inner, list):
        return all(isinstance(c, dict) and _str(c.get("type")) for c in inner)
    if legacy_list:
        return isinstance(inner, dict) and isinstance(inner.get("content"), list)
    return isinstance(inner, dict) and _str(inner.get("name"))


def content_problem(item: Any) -> str | None:
    """Why ``MessageContent``'s deserializer fails on ``item`` (after the migrations of
    ``deserialize_sanitized_content``), or None."""
    if not isinstance(item, dict):
        return "not an object"
    kind = item.get("type")
    if kind == "conversationCompacted":
        return None  # filtered out before the enum is read
    if kind == "reasoning":
        return None  # becomes thinking, or is dropped without text
    checks = {
        "text": lambda i: _str(i.get("text")),
        "image": lambda i: _str(i.get("data")) and _str(i.get("mimeType")),
        "toolRequest": lambda i: _str(i.get("id")) and _tool_result(i.get("toolCall")),
        "toolResponse": lambda i: _str(i.get("id")) and _tool_result(i.get("toolResult"), True),
        "toolConfirmationRequest": lambda i: (
            _str(i.get("id")) and _str(i.get("toolName")) and isinstance(i.get("arguments"), dict)
        ),
        "actionRequired": lambda i: (
            isinstance(i.get("data"), dict) and i["data"].get("actionType") in ACTION_TYPES
        ),
        "frontendToolRequest": lambda i: _str(i.get("id")) and _tool_result(i.get("toolCall")),
        "thinking": lambda i: _str(i.get("thinking")) and _str(i.get("signature")),
        "redactedThinking": lambda i: _str(i.get("data")),
        "systemNotification": lambda i: (
            i.get("notificationType") in NOTIFICATION_TYPES and _str(i.get("msg"))
        ),
    }
    if kind not in checks:
        return f"unknown variant {kind!r}"
    return None if checks[kind](item) else f"{kind} is missing a field or has a wrong type"
