"""Pausing the cyclic garbage collector around loops that allocate many small objects while
a big session is in memory: each collection walks the whole heap, which made a 20k-message
load several times slower, and cutting 10k doubled tool outputs down to their agent-visible
copies seven times slower (1.96 s against 0.26 s, measured). Nothing built inside has
cycles, so pausing is safe."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
