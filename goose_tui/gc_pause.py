"""Pausing the cyclic garbage collector around loops that allocate many small objects while
a big session is in memory: each collection walks the whole heap, which made a 20k-message
load several times slower, and cutting 10k doubled tool outputs down to their agent-visible
copies several times slower. Nothing built inside has cycles, so pausing is safe."""

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
    collections do not walk it: with a big session each would pause the app's event loop
    for a visible moment. Before loading, what the last
    load kept out goes back and is collected once, so the cycles of a session that is being
    replaced are freed as usual (objects without cycles are freed by their refcount anyway,
    frozen or not). The first load has nothing kept out and skips that walk of the heap,
    which is on the app's first-screen path.

    The collector is paused meanwhile, and what was built is kept out before it is back:
    were it back first, its first collection would walk the whole new session."""
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
