"""Shared checks for the session-loading tests, and the data-dir rules (docs/pipeline.md §1)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from goose_tui.session.loader import default_sessions_dir


def _snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {
        entry.name: (entry.read_bytes(), entry.stat().st_mtime_ns)
        for entry in sorted(folder.iterdir())
        if entry.is_file()
    }


@contextmanager
def untouched(path: Path) -> Iterator[None]:
    """The input's bytes and mtime, and its folder's file list, are the same afterwards:
    loading never writes, and leaves no -wal/-shm/-journal files behind."""
    folder = path if path.is_dir() else path.parent
    before = _snapshot(folder)
    yield
    after = _snapshot(folder)
    assert sorted(after) == sorted(before), "files appeared or vanished next to the input"
    for name, (data, mtime) in before.items():
        assert after[name][0] == data, f"{name} changed"
        assert after[name][1] == mtime, f"{name} mtime changed"


def test_default_dir_uses_goose_path_root(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GOOSE_PATH_ROOT", str(tmp_path))
    assert default_sessions_dir() == tmp_path / "data" / "sessions"


def test_default_dir_without_goose_path_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GOOSE_PATH_ROOT", raising=False)
    assert default_sessions_dir() == Path.home() / ".local" / "share" / "goose" / "sessions"
