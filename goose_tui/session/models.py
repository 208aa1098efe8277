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
    """Something in the input that was skipped or kept as-is; ``line`` is 1-based.
    ``omitted``: on the entry that stands for the warnings ``LoadWarnings`` only counted, how
    many they are."""

    message: str
    line: int | None = None
    omitted: int = 0

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line is not None else self.message


# How many warnings of one file are kept (and printed) before the rest are only counted.
KEPT_WARNINGS = 20


class LoadWarnings:
    """One file's load warnings, bounded: the first ``KEPT_WARNINGS`` and the latest are
    kept, the others only counted, so a file of a million bad lines neither prints a million
    lines nor holds a million warnings. ``as_list`` stands for the counted ones with a single
    entry whose ``omitted`` says how many."""

    def __init__(self) -> None:
        self.first: list[LoadWarning] = []
        self.latest: LoadWarning | None = None  # when more than the first were added
        self.count = 0

    def add(self, message: str, line: int | None = None) -> None:
        self.count += 1
        warning = LoadWarning(message=message, line=line)
        if len(self.first) < KEPT_WARNINGS:
            self.first.append(warning)
        else:
            self.latest = warning

    def last(self) -> LoadWarning | None:
        return self.latest or (self.first[-1] if self.first else None)

    def replace_last(self, warning: LoadWarning) -> None:
        if self.latest is not None:
            self.latest = warning
        elif self.first:
            self.first[-1] = warning

    def as_list(self) -> list[LoadWarning]:
        warnings = list(self.first)
        omitted = self.count - len(self.first) - (self.latest is not None)
        if omitted:
            noun = "warning" if omitted == 1 else "warnings"
            warnings.append(
                LoadWarning(message=f"… {omitted:,} more {noun}, not listed", omitted=omitted)
            )
        if self.latest is not None:
            warnings.append(self.latest)
        return warnings


def warning_count(warnings: Sequence[LoadWarning]) -> int:
    """How many warnings ``warnings`` stands for, the ones only counted included."""
    return sum(warning.omitted or 1 for warning in warnings)


def warnings_note(warnings: Sequence[LoadWarning]) -> str:
    """ "3 load warnings (first: line 7: …)", or "" for none. A warning says itself whether its
    line was skipped or kept as it could be."""
    if not warnings:
        return ""
    count = warning_count(warnings)
    noun = "load warning" if count == 1 else "load warnings"
    return f"{count:,} {noun} (first: {warnings[0]})"


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
