"""SPEC §8: token estimates (tiktoken o200k_base, offline), context windows, the threshold.
STUB (issue 2, part 5)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel

from goose_tui.session.models import Message, Session

DEFAULT_THRESHOLD = 0.8
DEFAULT_CONTEXT_LIMIT = 128_000

LimitSource = Literal["session", "model-map", "cli", "assumed"]
UsedSource = Literal["reported", "estimated"]


def count_tokens(text: str) -> int:
    raise NotImplementedError


def message_tokens(message: Message) -> int:
    """Goose's estimate for one message: +4 per message, tool requests as id:name:arguments,
    tool-response text joined by newlines."""
    raise NotImplementedError


class TokenCounter:
    """Per-message counts cached by message identity and content, so an edit recounts only
    the message that changed."""

    def count(self, message: Message) -> int:
        raise NotImplementedError

    def total(self, messages: Sequence[Message]) -> int:
        """Sum over agent-visible messages, +3 reply primer."""
        raise NotImplementedError


class ContextUsage(BaseModel):
    used: int
    used_source: UsedSource
    limit: int
    limit_source: LimitSource
    threshold: float
    model: str | None

    @property
    def fraction(self) -> float:
        return self.used / self.limit if self.limit else 0.0

    @property
    def auto_compact_enabled(self) -> bool:
        return 0 < self.threshold < 1

    @property
    def compaction_due(self) -> bool:
        return self.auto_compact_enabled and self.fraction > self.threshold


def resolve_threshold(cli_value: float | None = None) -> float:
    """--threshold, else GOOSE_AUTO_COMPACT_THRESHOLD, else 0.8."""
    raise NotImplementedError


def context_window(
    session: Session, model: str | None = None, context_limit: int | None = None
) -> tuple[int, LimitSource]:
    raise NotImplementedError


def context_usage(
    session: Session,
    *,
    model: str | None = None,
    context_limit: int | None = None,
    threshold: float | None = None,
    counter: TokenCounter | None = None,
) -> ContextUsage:
    raise NotImplementedError
