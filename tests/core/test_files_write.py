"""The one check of a write (files.check_output_target) for every kind of save: a summary
and a compacted session are refused for the same reasons, with the same words."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from goose_tui.files import OverwriteRefused, check_writable
from goose_tui.session.loader import load_session
from goose_tui.session.writer import check_target, save_compacted_session
from tests.conftest import SAMPLES


def test_a_session_save_refuses_a_databases_companions_as_a_summary_save_does(
    tmp_path: Path,
) -> None:
    db = tmp_path / "sessions.sqlite"
    shutil.copy(next(SAMPLES.glob("*.db")), db)
    wal = Path(f"{db}-wal")
    for refuse in (
        lambda: check_writable(wal, [db]),
        lambda: check_target(wal, [db], overwrite=True),
    ):
        with pytest.raises(OverwriteRefused, match="refusing to write over an input file"):
            refuse()


def test_only_a_session_save_makes_its_folders(tmp_path: Path) -> None:
    session = load_session(SAMPLES / "short.jsonl")
    nested = tmp_path / "a" / "b" / "out.jsonl"
    with pytest.raises(OverwriteRefused, match="does not exist"):
        check_writable(nested)
    assert save_compacted_session(nested, session, "summary") == nested
    assert nested.is_file()
