"""Where a save goes by default (``saving.default_target``): beside the session, unless that
folder cannot be written or ships with goose-tui; then the current directory, or home."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from goose_tui.samples import samples_dir
from goose_tui.saving import default_target
from goose_tui.session.models import Session


def _unwritable_folder(tmp_path: Path) -> Path | None:
    """A folder this process cannot write: a read-only one of its own, or (as root, who may
    write anywhere chmod allows) a read-only mount if the machine has one."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    if not os.access(folder, os.W_OK):
        return folder
    for candidate in (Path("/proc/sys"), Path("/sys/fs")):
        if candidate.is_dir() and not os.access(candidate, os.W_OK):
            return candidate
    return None


def test_save_default_leaves_an_unwritable_session_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _unwritable_folder(tmp_path)
    if folder is None:
        pytest.skip("no folder this process cannot write (root, and no read-only mount)")
    monkeypatch.chdir(tmp_path)
    session = Session(id="s1", source_path=folder / "s1.jsonl")
    assert default_target(session, "json") == tmp_path / "s1.summary.json"


def test_save_default_leaves_a_current_directory_that_ships_with_goose_tui(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Started from inside the samples folder on the bundled sample: the home folder."""
    monkeypatch.chdir(samples_dir())
    session = Session(id="s1", source_path=samples_dir() / "long_session.jsonl")
    assert default_target(session, "json") == Path.home() / "long_session.summary.json"
