"""Loading Goose sessions (JSONL, sessions.db, export JSON, chat-message JSON)."""

from goose_tui.session.models import (
    ContentItem,
    LoadWarning,
    Message,
    MessageMetadata,
    ModelConfig,
    Session,
    SessionInfo,
    Usage,
    content_type,
)

__all__ = [
    "ContentItem",
    "LoadWarning",
    "Message",
    "MessageMetadata",
    "ModelConfig",
    "Session",
    "SessionInfo",
    "Usage",
    "content_type",
]
