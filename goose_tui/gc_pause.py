"""Pausing the cyclic garbage collector around loops that allocate many small objects while
a big session is in memory: each collection walks the whole heap, which made a 20k-message
load several times slower, and cutting 10k doubled tool outputs down to their agent-visible
copies seven times slower (1.96 s against 0.26 s, measured). Nothing built inside has
cycles, so pausing is safe."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

# Pauses overlap across threads (litellm's import in one, a session's load in another): the
# collector comes back when the last one ends, if it was running before the first began.
_pauses_lock = threading.Lock()
_pauses = 0
_was_enabled = False


@contextmanager
def paused_gc() -> Iterator[None]:
    global _pauses, _was_enabled
    with _pauses_lock:
        if _pauses == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _pauses_lock:
            _pauses -= 1
            if _pauses == 0 and _was_enabled:
                gc.enable()


@contextmanager
def kept_out_of_collections() -> Iterator[None]:
    """Load a session inside this: what it builds (hundreds of thousands of models and
    lists) is then kept out of the collector's reach (``gc.freeze``), so later full
    collections do not walk it. Each one was a 200-250 ms pause of the app's event loop
    with a 53 MB session (``benchmarks/app_big_session.py``). Before loading, what the last
    load kept out goes back and is collected once, so the cycles of a session that is being
    replaced are freed as usual (objects without cycles are freed by their refcount anyway,
    frozen or not). The first load has nothing kept out and skips that walk of the heap
    (37 ms of Textual's and pydantic's objects on the app's first-screen path).

    The collector is paused meanwhile, and what was built is kept out before it is back:
    back first, its first collection walked the whole new session (a 140-280 ms pause of the
    app's loop at the end of each load of the 53 MB session)."""
    if gc.get_freeze_count():
        gc.unfreeze()
        gc.collect()
    with paused_gc():
        yield
        gc.freeze()


def give_back() -> None:
    """What loads kept out goes back to the collector (an app that exits: nothing it loaded
    is in use any more, and the next app in the process starts as the first)."""
    gc.unfreeze()
