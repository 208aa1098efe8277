"""A sessions.db whose companion files are not as a running Goose leaves them: a ``-wal``
without its ``-shm`` (copied, or left by a crash) and a hot ``-journal`` left by a writer
that stopped mid-transaction. Read from a writable and from a read-only folder; nothing is
written, and no file is left beside the database or in the temporary folder."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from goose_tui.cli import main
from goose_tui.session.loader import list_sessions, load_session
from goose_tui.session.sqlite import HOT_JOURNAL_NOTE
from tests.conftest import ROOT

FIXTURE = ROOT / "tests" / "fixtures" / "goose" / "sessions-v13.db"


@contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """``folder`` made read-only for every user: the tests run as root, whom permission bits
    do not stop, so the folder is made immutable (``chattr +i``, root can not create a file
    in it either) and made mutable again afterwards."""
    done = subprocess.run(["chattr", "+i", str(folder)], capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot make a folder read-only here: {done.stderr.decode().strip()}")
    try:
        probe = folder / "probe"
        with pytest.raises(OSError):
            probe.touch()
        yield
    finally:
        subprocess.run(["chattr", "-i", str(folder)], check=True)


def _names(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


@pytest.fixture(autouse=True)
def _own_temporary_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The copies are counted in a temporary folder of this test's own: the other workers'
    tests make and remove theirs in the shared one meanwhile."""
    own = tmp_path / "tmp"
    own.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(own))


def _temporary_copies() -> set[str]:
    return {path.name for path in Path(tempfile.gettempdir()).glob("goose-tui-db-*")}


def _wal_copy(tmp_path: Path, into: str) -> tuple[Path, str]:
    """A Goose database (WAL, as Goose's pool opens it) whose last session was renamed in a
    transaction that is in the ``-wal`` only, copied with its ``-wal`` but without the
    ``-shm`` while the writer is still open; and that session's id."""
    live = tmp_path / "live"
    live.mkdir()
    db = live / "sessions.db"
    shutil.copyfile(FIXTURE, db)
    writer = sqlite3.connect(db)
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        writer.execute("PRAGMA wal_autocheckpoint=0")
        sid = load_session(FIXTURE).id
        writer.execute(
            "UPDATE sessions SET name = 'renamed in the wal', updated_at = '2030-01-01 00:00:00'"
            " WHERE id = ?",
            (sid,),
        )
        writer.commit()
        target = tmp_path / into
        target.mkdir()
        shutil.copyfile(db, target / "sessions.db")
        shutil.copyfile(f"{db}-wal", target / "sessions.db-wal")
    finally:
        writer.close()
    return target / "sessions.db", sid


@pytest.mark.parametrize("folder", ["writable", "read-only"])
def test_a_wal_without_its_shm_is_read_with_its_transactions_and_leaves_nothing(
    tmp_path: Path, folder: str
) -> None:
    db, sid = _wal_copy(tmp_path, "copy")
    before = {name: (db.parent / name).read_bytes() for name in _names(db.parent)}
    copies = _temporary_copies()
    guard = read_only(db.parent) if folder == "read-only" else _nothing()
    with guard:
        session = load_session(db)
        listed = list_sessions(db)
    assert session.id == sid and session.name == "renamed in the wal"
    assert session.warnings == []
    assert listed[0].name == "renamed in the wal"
    assert _names(db.parent) == ["sessions.db", "sessions.db-wal"]  # no -shm left
    assert {name: (db.parent / name).read_bytes() for name in _names(db.parent)} == before
    assert _temporary_copies() == copies


def test_the_cli_reads_a_wal_without_its_shm_from_a_read_only_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, sid = _wal_copy(tmp_path, "copy")
    with read_only(db.parent):
        code = main(["sessions", str(db)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert sid in captured.out and "renamed in the wal" in captured.out
    assert "internal error" not in captured.err
    assert _names(db.parent) == ["sessions.db", "sessions.db-wal"]


@contextmanager
def _nothing() -> Iterator[None]:
    yield


# A writer in rollback-journal mode that stops (os._exit) in the middle of a transaction
# larger than its page cache, so changed pages have reached the database file and the
# journal holding the originals is hot.
_CRASHING_WRITER = """
import os, sqlite3, sys
connection = sqlite3.connect(sys.argv[1])
connection.execute("PRAGMA journal_mode=DELETE")
connection.execute("PRAGMA cache_size=1")
connection.execute("BEGIN")
connection.execute("UPDATE sessions SET name = 'half written'")
for _ in range(300):
    connection.execute(
        "INSERT INTO messages (session_id, role, content_json, created_timestamp) "
        "VALUES ('ghost', 'user', ?, 1)", ("[]" + " " * 4000,))
os._exit(0)
"""


def _hot_journal(tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    folder = tmp_path / "crashed"
    folder.mkdir()
    db = folder / "sessions.db"
    shutil.copyfile(FIXTURE, db)
    subprocess.run([sys.executable, "-c", _CRASHING_WRITER, str(db)], check=True)
    assert _names(folder) == ["sessions.db", "sessions.db-journal"]
    return db, {name: (folder / name).read_bytes() for name in _names(folder)}


@pytest.mark.parametrize("folder", ["writable", "read-only"])
def test_a_hot_journal_is_rolled_back_in_a_copy_and_said(tmp_path: Path, folder: str) -> None:
    db, before = _hot_journal(tmp_path)
    expected = load_session(FIXTURE)
    copies = _temporary_copies()
    with read_only(db.parent) if folder == "read-only" else _nothing():
        session = load_session(db)
        listed = list_sessions(db)
    assert session.name == expected.name != "half written"
    assert len(session.messages) == len(expected.messages)
    assert [str(w) for w in session.warnings[:1]] == [HOT_JOURNAL_NOTE]
    assert "ghost" not in {info.id for info in listed}
    assert {name: (db.parent / name).read_bytes() for name in _names(db.parent)} == before
    assert _temporary_copies() == copies


def test_the_cli_says_what_a_hot_journal_is_and_that_nothing_was_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, before = _hot_journal(tmp_path)
    code = main(["usage", str(db)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "hot journal" in captured.err and "nothing was written" in captured.err
    assert "readonly" not in captured.err and "internal error" not in captured.err
    assert {name: (db.parent / name).read_bytes() for name in _names(db.parent)} == before
