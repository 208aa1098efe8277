"""A plain JSON array of OpenAI-style chat messages, mapped onto Goose's shapes.

- ``content`` as a string or a list of parts (``text``, ``image_url`` with a data URL);
  other parts are kept as they are (unknown types survive a load).
- ``tool_calls`` on an assistant message become ``toolRequest`` items.
- ``role: "tool"`` messages become ``toolResponse`` items in a user message, as Goose stores
  them; consecutive ones share one user message.
- ``system``/``developer`` messages are not part of a Goose conversation (Goose keeps its
  system prompt outside the history), so they are not messages here: their text is kept
  on ``Session.system_prompt`` and a warning says so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from goose_tui.session._common import build_message, to_epoch_seconds
from goose_tui.session.errors import SessionLoadError
from goose_tui.session.models import ContentItem, LoadWarnings, Message, Session

_SYSTEM_ROLES = ("system", "developer")


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            part.get("text", "") if isinstance(part, dict) else str(part) for part in content
        )
    return "" if content is None else json.dumps(content)


def _parts(content: Any) -> list[ContentItem]:
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    if not isinstance(content, list):
        return [{"type": "text", "text": json.dumps(content)}]
    items: list[ContentItem] = []
    for part in content:
        if isinstance(part, str):
            items.append({"type": "text", "text": part})
        elif not isinstance(part, dict):
            continue
        elif part.get("type") in ("text", "input_text", "output_text"):
            items.append({"type": "text", "text": str(part.get("text", ""))})
        elif part.get("type") == "image_url":
            items.append(_image(part))
        else:
            items.append(part)
    return items


def _image(part: dict[str, Any]) -> ContentItem:
    url = part.get("image_url")
    url = url.get("url") if isinstance(url, dict) else url
    if isinstance(url, str) and url.startswith("data:") and ";base64," in url:
        header, data = url[5:].split(";base64,", 1)
        return {"type": "image", "data": data, "mimeType": header or "image/png"}
    return part  # A remote URL has no Goose equivalent: keep the part as it is.


def _tool_request(call: Any) -> ContentItem:
    call = call if isinstance(call, dict) else {}
    function = call.get("function") if isinstance(call.get("function"), dict) else {}
    name = str(function.get("name", ""))
    raw = function.get("arguments", {})
    result: dict[str, Any] = {"status": "success", "value": {"name": name, "arguments": raw}}
    if isinstance(raw, str):
        try:
            result["value"]["arguments"] = json.loads(raw) if raw.strip() else {}
        except (RecursionError, ValueError) as exc:
            result = {"status": "error", "error": f"invalid arguments for {name}: {exc}"}
    return {"type": "toolRequest", "id": str(call.get("id", "")), "toolCall": result}


def _tool_response(message: dict[str, Any]) -> ContentItem:
    content = _parts(message.get("content"))
    return {
        "type": "toolResponse",
        "id": str(message.get("tool_call_id", "")),
        "toolResult": {"status": "success", "value": {"content": content, "isError": False}},
    }


def load_chat(path: Path, data: list[Any]) -> Session:
    messages: list[Message] = []
    warnings = LoadWarnings()
    system_texts: list[str] = []
    for index, raw in enumerate(data):
        where = f"message {index + 1}"
        if not isinstance(raw, dict) or not isinstance(raw.get("role"), str):
            problem = "not a JSON object" if not isinstance(raw, dict) else "no 'role'"
            warnings.add(f"{where}: {problem}, skipped")
            continue
        role = raw["role"]
        if role in _SYSTEM_ROLES:
            system_texts.append(_text_of(raw.get("content")))
            warnings.add(
                f"{where}: {role} message kept as the session's system prompt, "
                "not as a conversation message"
            )
            continue
        if role == "tool":
            item = _tool_response(raw)
            previous = messages[-1] if messages else None
            if previous is not None and previous.role == "user" and previous.has_tool_response():
                previous.content.append(item)
                continue
            obj: dict[str, Any] = {"role": "user", "content": [item]}
        elif role in ("user", "assistant"):
            content = _parts(raw.get("content"))
            if isinstance(raw.get("reasoning_content"), str) and raw["reasoning_content"]:
                content.insert(0, {"type": "thinking", "thinking": raw["reasoning_content"]})
            calls = raw.get("tool_calls")
            if role == "assistant" and isinstance(calls, list):
                content.extend(_tool_request(call) for call in calls)
            obj = {"role": role, "content": content}
        else:
            warnings.add(f"{where}: unknown role {role!r}, skipped")
            continue
        if isinstance(raw.get("id"), str):
            obj["id"] = raw["id"]
        obj["created"] = to_epoch_seconds(raw.get("created"))
        message, note = build_message(obj)
        if message is None:  # pragma: no cover - obj is always well-formed here
            warnings.add(f"{where}: {note}, skipped")
            continue
        messages.append(message)
    if not data:
        raise SessionLoadError(path, "an empty JSON array: no messages to read")
    if not messages and not system_texts:
        raise SessionLoadError(path, "not a chat-message array: no element has a usable role")
    extras: dict[str, Any] = {}
    if system_texts:
        extras["system_prompt"] = "\n\n".join(system_texts)
    return Session(
        id=path.stem,
        messages=messages,
        source_path=path,
        source_format="chat",
        warnings=warnings.as_list(),
        **extras,
    )
