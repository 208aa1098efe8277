"""Reading the tool call and tool result shapes inside content items.

Goose serializes a Rust ``Result`` as ``{status, value}`` or ``{status, error}``; formatting,
token counting and the analyses all read a tool response's texts the same way.
"""

from __future__ import annotations

from typing import Any

from goose_tui.session.models import ContentItem, content_type


def ok_value(result: Any) -> tuple[bool, Any]:
    """(succeeded, value) of a serialized Rust ``Result``: ``{status, value}``/``{status, error}``.

    A missing status with a value present is read as success, an older/looser shape."""
    if not isinstance(result, dict):
        return False, None
    status = result.get("status")
    if status == "success" or (status is None and "value" in result and "error" not in result):
        return True, result.get("value")
    return False, None


def tool_result_contents(value: Any) -> list[Any]:
    """The content list of a successful tool result: ``{content: [...]}`` or a bare list."""
    if isinstance(value, dict):
        value = value.get("content")
    return value if isinstance(value, list) else []


def tool_response_texts(item: ContentItem) -> list[str] | None:
    """The text items of a tool response; None when the call failed."""
    ok, value = ok_value(item.get("toolResult"))
    if not ok:
        return None
    return [
        part["text"]
        for part in tool_result_contents(value)
        if content_type(part) == "text" and isinstance(part.get("text"), str)
    ]
