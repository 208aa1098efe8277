"""goose_tui/gc_pause.py: what a load builds is kept out of full collections, and the
collector stays paused until the last of overlapping pauses ends."""

from __future__ import annotations

import time


def test_what_a_load_builds_is_kept_out_of_full_collections_until_the_next_load() -> None:
    # With a 53 MB session loaded, each full collection walked its ~million objects: pauses
    # of 200-250 ms of the app's event loop, six in one compaction (app_big_session.py).
    import gc
    import weakref

    from goose_tui.gc_pause import kept_out_of_collections

    class Node:
        def __init__(self) -> None:
            self.me = self  # a cycle: only the collector frees it

    freed: list[bool] = []
    try:
        with kept_out_of_collections():
            loaded = [Node() for _ in range(3)]
        probe = loaded[0]
        assert not any(obj is probe for obj in gc.get_objects())  # not walked
        watch = weakref.ref(probe, lambda _: freed.append(True))
        del loaded, probe
        gc.collect()
        assert watch() is not None and not freed  # garbage, but out of the collector's reach
        with kept_out_of_collections():  # the next load frees it first
            assert freed == [True]
    finally:
        gc.unfreeze()


def test_a_load_with_nothing_kept_out_runs_no_full_collection(monkeypatch) -> None:
    # The app's first load had a 37 ms full collection of Textual's and pydantic's objects on
    # its first-screen path, with nothing of an earlier session to free.
    import gc

    from goose_tui import gc_pause

    calls: list[tuple[object, ...]] = []
    real_collect = gc.collect
    monkeypatch.setattr(gc_pause.gc, "collect", lambda *a: calls.append(a) or real_collect(*a))
    gc.unfreeze()
    try:
        with gc_pause.kept_out_of_collections():
            pass
        assert calls == []  # nothing was kept out: the collector frees as usual
        with gc_pause.kept_out_of_collections():
            pass
        assert len(calls) == 1  # what the first load kept out is collected once
    finally:
        gc.unfreeze()


def test_no_collection_walks_what_a_load_built_before_it_is_kept_out() -> None:
    # The collector came back (a loader's own pause ending) before the load's objects were
    # kept out, and its first collection walked all of them: 140-280 ms of the app's loop at
    # the end of each load of the 53 MB session (app_big_session.py --why).
    import gc

    from goose_tui.gc_pause import kept_out_of_collections, paused_gc

    collections: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    gc.unfreeze()
    gc.collect()
    gc.callbacks.append(seen)
    try:
        with kept_out_of_collections():
            with paused_gc():  # as the JSONL loader pauses it
                loaded = [[n] for n in range(300_000)]  # containers the collector tracks
            more = [[n] for n in range(3_000)]  # what a loader builds after its own pause
        assert collections == []
        assert not any(obj is loaded[0] or obj is more[0] for obj in gc.get_objects())
    finally:
        gc.callbacks.remove(seen)
        gc.unfreeze()


def test_the_collector_stays_paused_until_the_last_of_two_overlapping_pauses_ends() -> None:
    # litellm's import pauses the collector in one thread (0.55 s of a 2.5 s import went to
    # collections walking what it builds) while the CLI's main thread loads the session,
    # which pauses it too. The first pause to end must not bring it back under the other.
    import gc
    import threading

    from goose_tui import gc_pause
    from goose_tui.gc_pause import paused_gc

    # Another test of this worker may have left litellm importing in a thread, under a pause
    # of its own (a run where this test came right after one found the collector off).
    deadline = time.monotonic() + 120
    while gc_pause._pauses and time.monotonic() < deadline:
        time.sleep(0.01)
    assert gc.isenabled()
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen: list[bool] = []

    def first() -> None:
        with paused_gc():
            first_in.set()
            second_in.wait(5)
        first_out.set()

    thread = threading.Thread(target=first)
    thread.start()
    first_in.wait(5)
    with paused_gc():
        second_in.set()
        first_out.wait(5)
        seen.append(gc.isenabled())  # the first pause has ended, this one has not
    thread.join(5)
    assert seen == [False]
    assert gc.isenabled()
