"""The nine fields of a structured summary, in the order Goose's template asks for them.

Spelled out here, apart from ``goose_tui.compaction.structured.FIELD_ORDER``, so the tests
check that order against an oracle the code does not share."""

from __future__ import annotations

SUMMARY_FIELDS = (
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
