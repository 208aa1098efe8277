"""Summarizer backends behind one small protocol (litellm, replay, offline), chosen by a
``ModelSpec`` (goose_tui/llm/spec.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from goose_tui.llm.spec import REPLAY_PREFIX, ModelSpec

if TYPE_CHECKING:
    from goose_tui.llm.base import Summarizer

__all__ = ["REPLAY_PREFIX", "ModelSpec", "make_summarizer"]


def make_summarizer(
    spec: str,
    api_base: str | None = None,
    *,
    api_key: str | None = None,
    timeout: float | None = None,
    offline_context_limit: int | None = None,
) -> Summarizer:
    """The summarizer for a model typed as text (``ModelSpec.parse``). Raises ``ValueError``
    for an unusable spec."""
    parsed = ModelSpec.parse(spec, api_base=api_base, offline_context_limit=offline_context_limit)
    return parsed.summarizer(api_key=api_key, timeout=timeout)
