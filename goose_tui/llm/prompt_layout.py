"""Where the conversation sits in a compaction prompt, for the offline summarizer to read it
back out (llm/offline.py).

The compaction layer owns the built-in template and the focus heading, so it hands the
layout down: goose_tui/compaction/templates.py registers how to build it on import, and
the llm layer imports nothing above it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class PromptLayout:
    """Where the conversation sits in a compaction prompt: the built-in template's text
    before and after ``{{ messages }}`` (empty when it cannot be rendered), and the heading
    an appended focus starts with."""

    prefix: str
    suffix: str
    focus_heading: str


# Built on first use, and once.
_layout_source: Callable[[], PromptLayout] | None = None
_layout_cache: list[PromptLayout] = []


def use_prompt_layout(source: Callable[[], PromptLayout]) -> None:
    """Register how to build the built-in prompt's layout."""
    global _layout_source
    _layout_source = source
    _layout_cache.clear()


def prompt_layout() -> PromptLayout | None:
    """The registered layout; None when nothing registered one (compaction not imported)."""
    if not _layout_cache and _layout_source is not None:
        _layout_cache.append(_layout_source())
    return _layout_cache[0] if _layout_cache else None
