"""Notice at once when an override template is saved, created or removed on disk, with the
operating system's file events (watchfiles: inotify, FSEvents, ReadDirectoryChangesW).

An override folder need not exist yet (``~/.config/goose/prompts`` often does not): its
nearest existing ancestor is watched, not recursively, until it appears.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

from goose_tui.files import nearest_existing

# How long a burst of file events (an editor's write, rename and chmod) is gathered before it
# is reported: well under the 200 ms an edit may take to show.
STEP_MS = 20


def watch_roots(paths: Sequence[Path]) -> list[Path]:
    """The folders to watch for ``paths``: each one's folder, or its nearest existing
    ancestor while the folder does not exist."""
    roots: list[Path] = []
    for path in paths:
        folder = nearest_existing(path.parent, folders_only=True)
        if folder not in roots:
            roots.append(folder)
    return roots


def template_changes(paths: Sequence[Path], stop: threading.Event) -> Iterator[None]:
    """Yield each time one of ``paths`` (files that may not exist) may have changed, until
    ``stop`` is set. Raises ``OSError`` (or watchfiles' own error) when the system cannot
    watch: the caller polls instead."""
    from watchfiles import watch

    names = {str(path) for path in paths}
    while not stop.is_set():
        roots = watch_roots(paths)
        folders = {str(path.parent) for path in paths}
        for changes in watch(
            *roots,
            watch_filter=None,
            debounce=200,
            step=STEP_MS,
            stop_event=stop,
            recursive=False,
            rust_timeout=0,
        ):
            touched = {changed for _, changed in changes}
            if touched & names:
                yield
            # A missing override folder (or one of its parents) appeared or went: watch
            # again from the folders that exist now.
            if touched & folders or watch_roots(paths) != roots:
                if not touched & names:
                    yield  # the folder came or went with the files in it
                break
