"""SPEC §5: the structured summary, read leniently. STUB (issue 2, part 4)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

LIST_FIELDS = (
    "user_intent",
    "technical_concepts",
    "errors_and_fixes",
    "problem_solving",
    "user_messages",
    "pending_tasks",
)
FIELD_ORDER = (
    "user_intent",
    "technical_concepts",
    "files",
    "errors_and_fixes",
    "problem_solving",
    "user_messages",
    "pending_tasks",
    "current_work",
    "next_step",
)


class FileEntry(BaseModel):
    path: str = ""
    summary: str = ""
    key_code: str | None = None


class StructuredSummary(BaseModel):
    user_intent: list[str] = Field(default_factory=list)
    technical_concepts: list[str] = Field(default_factory=list)
    files: list[FileEntry] = Field(default_factory=list)
    errors_and_fixes: list[str] = Field(default_factory=list)
    problem_solving: list[str] = Field(default_factory=list)
    user_messages: list[str] = Field(default_factory=list)
    pending_tasks: list[str] = Field(default_factory=list)
    current_work: str | None = None
    next_step: str | None = None
    # Unknown top-level keys, in the order written, values as parsed (not stringified).
    extras: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def parse(cls, value: Any) -> StructuredSummary | None:
        """Lenient read of a parsed JSON value; None when it is not an object. Not normalized."""
        raise NotImplementedError

    @classmethod
    def parse_json_text(cls, text: str) -> StructuredSummary:
        """Parse JSON text (raw control characters in strings allowed, duplicate keys: last
        wins) and read it; raises ``ValueError`` with line and column when it is not JSON or
        not an object."""
        raise NotImplementedError

    def normalized(self) -> StructuredSummary:
        raise NotImplementedError

    def is_usable(self) -> bool:
        """At least one of the nine fields non-empty after normalizing; extras never count."""
        raise NotImplementedError

    def template_context(self) -> dict[str, Any]:
        """Every field as a top-level template variable, extras included."""
        raise NotImplementedError

    def to_json_dict(self) -> dict[str, Any]:
        """The nine fields then the extras, as a summary JSON a user can edit and re-read."""
        raise NotImplementedError


def stringify(value: Any) -> str:
    raise NotImplementedError
