"""SPEC §2: each message becomes ``[{role}]: `` + its parts. STUB (issue 2, part 2)."""

from __future__ import annotations

from collections.abc import Iterable

from goose_tui.session.models import ContentItem, Message


def format_content_item(item: ContentItem) -> str | None:
    """The text of one content item, or None when the summarizer never sees it (thinking)."""
    raise NotImplementedError


def format_message_for_compacting(message: Message) -> str:
    raise NotImplementedError


def format_messages(messages: Iterable[Message]) -> str:
    """The text that fills ``{{ messages }}``: formatted messages joined by ``\\n``."""
    raise NotImplementedError
