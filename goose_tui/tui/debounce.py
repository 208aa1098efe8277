"""Debounced edits as workers: each new edit cancels the one waiting, and because the wait is
a worker, whoever waits for the app's workers (a test) waits for the edit to be applied."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from textual.dom import DOMNode

DEBOUNCE_SECONDS = 0.3


def debounce(node: DOMNode, key: str, callback: Callable[[], object]) -> None:
    """Call ``callback`` on ``node`` once no edit with the same ``key`` came for a while."""

    async def later() -> None:
        await asyncio.sleep(DEBOUNCE_SECONDS)
        callback()

    # The function, not a coroutine made now: a wait cancelled by the next edit before it
    # started left its coroutine never awaited (a RuntimeWarning on exit).
    node.run_worker(
        later,  # type: ignore[arg-type]  # Textual's WorkType infers Never for it
        group=f"debounce-{key}",
        exclusive=True,
        exit_on_error=False,
    )
