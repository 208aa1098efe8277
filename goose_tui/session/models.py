"""The one in-memory shape every session format loads into.

Content items stay plain JSON dicts (``{"type": ..., ...}``): Goose adds content
types over time, an unknown one must survive a load untouched, and a 50 MB
session must not pay for a model object per item. ``content_type`` and the
formatting code read them by key.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
)

ContentItem = dict[str, Any]
SessionFormat = Literal["jsonl", "sqlite", "export", "chat"]


class MessageMetadata(BaseModel):
    model_config = ConfigDict(populate_by_name=True, extra="allow")

    user_visible: bool = Field(default=True, alias="userVisible")
    agent_visible: bool = Field(default=True, alias="agentVisible")
    # A per-turn context event the agent appended; Goose keeps it out of the summary
    # (crates/goose/src/conversation/message.rs, MessageMetadata.turn_context).
    turn_context: bool = Field(default=False, alias="turnContext")

    @model_serializer(mode="wrap")
    def _omit_false_turn_context(self, handler: SerializerFunctionWrapHandler) -> Any:
        # Goose writes the flag only when it is set; a saved message keeps that shape.
        data = handler(self)
        if not self.turn_context and isinstance(data, dict):
            data.pop("turnContext", None)
            data.pop("turn_context", None)
        return data


class Message(BaseModel):
    """One Goose message: ``role`` is ``user`` or ``assistant``; tool responses live in user
    messages, as Goose stores them."""

    model_config = ConfigDict(extra="allow")

    id: str | None = None
    role: str
    created: int | None = None
    content: list[ContentItem] = Field(default_factory=list)
    metadata: MessageMetadata = Field(default_factory=MessageMetadata)
    # Tokens Goose recorded for this message (sessions.db only), not an estimate.
    tokens: int | None = None

    def has_tool_response(self) -> bool:
        return any(content_type(item) == "toolResponse" for item in self.content)


class Usage(BaseModel):
    model_config = ConfigDict(extra="allow")

    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None


class ModelConfig(BaseModel):
    model_config = ConfigDict(extra="allow", protected_namespaces=())

    model_name: str | None = None
    context_limit: int | None = None


class LoadWarning(BaseModel):
    """Something in the input that was skipped or kept as-is; ``line`` is 1-based."""

    message: str
    line: int | None = None

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line is not None else self.message


def warnings_note(warnings: Sequence[LoadWarning]) -> str:
    """ "3 load warnings (first: line 7: …)", or "" for none. A warning says itself whether its
    line was skipped or kept as it could be."""
    if not warnings:
        return ""
    noun = "load warning" if len(warnings) == 1 else "load warnings"
    return f"{len(warnings):,} {noun} (first: {warnings[0]})"


class Session(BaseModel):
    model_config = ConfigDict(extra="allow", protected_namespaces=())

    id: str | None = None
    name: str | None = None
    description: str | None = None
    working_dir: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    provider_name: str | None = None
    model_config_: ModelConfig = Field(default_factory=ModelConfig, alias="model_config")
    usage: Usage = Field(default_factory=Usage)
    accumulated_usage: Usage = Field(default_factory=Usage)
    messages: list[Message] = Field(default_factory=list)

    source_path: Path | None = None
    source_format: SessionFormat | None = None
    warnings: list[LoadWarning] = Field(default_factory=list)

    @property
    def model_name(self) -> str | None:
        return self.model_config_.model_name

    @property
    def title(self) -> str:
        return (
            self.name
            or self.description
            or self.id
            or (self.source_path.name if self.source_path else "session")
        )


class SessionInfo(BaseModel):
    """One row of a session listing (``goose-tui sessions``, the picker)."""

    id: str
    name: str | None = None
    description: str | None = None
    updated_at: datetime | None = None
    message_count: int = 0
    total_tokens: int | None = None
    model_name: str | None = None
    path: Path
    session_type: str | None = None  # sessions.db only: user, scheduled, sub_agent, ...


def content_type(item: Any) -> str:
    """The ``type`` of a content item, ``""`` when it has none."""
    if isinstance(item, dict):
        value = item.get("type")
        if isinstance(value, str):
            return value
    return ""
