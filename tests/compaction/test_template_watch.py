"""Watching the override folders with the system's file events: a save, a creation in a
folder that did not exist, and stopping."""

from __future__ import annotations

import queue
import threading
import time
from pathlib import Path

from goose_tui.compaction.template_watch import template_changes, watch_roots


def test_a_missing_folder_is_watched_through_its_nearest_existing_ancestor(
    tmp_path: Path,
) -> None:
    deep = tmp_path / "config" / "goose" / "prompts" / "compaction.md"
    assert watch_roots([deep, tmp_path / "x.md"]) == [tmp_path]
    (tmp_path / "config" / "goose").mkdir(parents=True)
    assert watch_roots([deep]) == [tmp_path / "config" / "goose"]


def test_changes_are_heard_at_once_even_in_a_folder_made_later(tmp_path: Path) -> None:
    prompts = tmp_path / "config" / "goose" / "prompts"
    target = prompts / "compaction_summary.md"
    stop = threading.Event()
    heard: queue.Queue[float] = queue.Queue()

    def watch() -> None:
        for _ in template_changes([target], stop):
            heard.put(time.monotonic())

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    try:
        time.sleep(0.3)  # the watch is set up
        prompts.mkdir(parents=True)
        heard.get(timeout=5)  # the folder came: watched again from it
        time.sleep(0.3)
        while not heard.empty():
            heard.get()
        written = time.monotonic()
        target.write_text("# mine\n", encoding="utf-8")
        assert heard.get(timeout=5) - written < 0.5
    finally:
        stop.set()
        thread.join(timeout=5)
    assert not thread.is_alive()
