"""Summarizer backends behind one small protocol (litellm, replay, offline)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from goose_tui.llm.base import Summarizer

REPLAY_PREFIX = "replay:"


def make_summarizer(
    spec: str,
    api_base: str | None = None,
    *,
    api_key: str | None = None,
    timeout: float | None = None,
    offline_context_limit: int | None = None,
) -> Summarizer:
    """``offline`` → the built-in extractive summarizer; ``replay:FILE`` → the file's text;
    anything else is a litellm model string. Raises ``ValueError`` for an unusable spec."""
    spec = spec.strip()
    if not spec:
        raise ValueError("no model given: use offline, replay:FILE or a litellm model string")
    if offline_context_limit is not None and spec != "offline":
        raise ValueError("--offline-context-limit goes with the offline model")
    if spec == "offline":
        from goose_tui.llm.offline import OfflineSummarizer

        return OfflineSummarizer(context_limit=offline_context_limit)
    if spec.startswith(REPLAY_PREFIX):
        path = spec[len(REPLAY_PREFIX) :]
        if not path:
            raise ValueError("replay: needs a file, as in replay:reply.txt")
        from goose_tui.llm.replay import ReplaySummarizer

        return ReplaySummarizer(path)
    from goose_tui.llm.litellm_backend import DEFAULT_TIMEOUT, LiteLLMSummarizer

    return LiteLLMSummarizer(
        spec, api_base=api_base, api_key=api_key, timeout=timeout or DEFAULT_TIMEOUT
    )


def is_litellm_spec(spec: str) -> bool:
    """Whether ``spec`` names a litellm model (not offline, not a replay file)."""
    spec = spec.strip()
    return bool(spec) and spec != "offline" and not spec.startswith(REPLAY_PREFIX)


def prepare_model(spec: str) -> None:
    """Start what calling ``spec`` will need, in the background: for a litellm model, its
    import (seconds). Returns at once; nothing happens for the built-in models."""
    if is_litellm_spec(spec):
        from goose_tui.llm.litellm_backend import prepare_litellm

        prepare_litellm()
