"""goose-tui's own files (settings, the recent list, the probe cache) under attack: two
processes writing them at once, their folders missing, read-only (``chattr +i``: the tests
run as root) or a file where a folder belongs. A reader never sees half a file, a failed
write says why in one line (or is skipped where the file is only a convenience), and no
temporary file is left."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from goose_tui.analysis.probe_model import ProbeCache, default_cache_dir
from goose_tui.recent import load_recent, recent_file, remember
from goose_tui.settings import config_path, save_theme
from tests.conftest import ROOT

# A writer of all three files, as two goose-tui processes would write them: its own themes,
# recent entries and cache values, a fixed number of rounds as fast as it can (counted, not
# timed, so a loaded machine only makes the test slower).
_WRITER = """
import sys, time
from pathlib import Path
from goose_tui.analysis.probe_model import ProbeCache
from goose_tui.recent import remember
from goose_tui.settings import save_theme

name, rounds = sys.argv[1], int(sys.argv[2])
cache = ProbeCache()
print("ready", flush=True)
sys.stdin.readline()  # both writers start together, once both have imported
for n in range(rounds):
    save_theme(f"theme-{name}-{n}")
    remember(Path(sys.argv[3]), f"{name}-{n}", "title " * 200, n, None)
    cache.put("ab" * 32, {"writer": name, "n": n, "text": "x" * 20_000})
print(rounds)
"""
ROUNDS = 60


def _temporaries(*folders: Path) -> list[Path]:
    return [p for folder in folders for p in folder.rglob(".goose-tui-*.tmp")]


def test_two_processes_writing_the_same_files_never_tear_them(tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    session.write_text("{}\n")
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, name, str(ROUNDS), str(session)],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("one", "two")
    ]
    for writer in writers:
        assert writer.stdout is not None and writer.stdout.readline() == "ready\n"
    for writer in writers:
        assert writer.stdin is not None
        writer.stdin.write("go\n")
        writer.stdin.flush()
    cache_file = ProbeCache()._path("ab" * 32)
    reads = 0
    while any(writer.poll() is None for writer in writers):
        for path, parse in (
            (config_path(), lambda b: tomllib.loads(b.decode())),
            (recent_file(), json.loads),
            (cache_file, json.loads),
        ):
            try:
                data = path.read_bytes()
            except FileNotFoundError:
                continue
            parse(data)  # a torn file would not parse
            reads += 1
    counts = []
    for writer in writers:
        out, err = writer.communicate(timeout=60)
        assert writer.returncode == 0, err
        counts.append(int(out))
    assert counts == [ROUNDS, ROUNDS] and reads > 0, (counts, reads)
    assert tomllib.loads(config_path().read_text())["theme"].startswith("theme-")
    assert json.loads(cache_file.read_text())["writer"] in ("one", "two")
    assert load_recent()  # one writer's list, whole
    assert _temporaries(config_path().parent, recent_file().parent, default_cache_dir()) == []


@contextmanager
def _read_only(*folders: Path) -> Iterator[None]:
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
    done = [subprocess.run(["chattr", "+i", str(f)], capture_output=True) for f in folders]
    try:
        if any(d.returncode for d in done):
            pytest.skip(f"cannot make a folder read-only here: {done[0].stderr.decode()}")
        yield
    finally:
        for folder in folders:
            subprocess.run(["chattr", "-i", str(folder)], check=False)


def test_read_only_folders_cost_the_convenience_never_the_command(tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    session.write_text("{}\n")
    folders = (config_path().parent, recent_file().parent, default_cache_dir())
    with _read_only(*folders):
        remember(session, "s", "title", 1, None)  # skipped: the app works without it
        cache = ProbeCache()
        cache.put("cd" * 32, {"text": "t"})  # skipped: a rerun asks again
        assert cache.get("cd" * 32) is None and load_recent() == []
        with pytest.raises(OSError) as caught:
            save_theme("nord")
    assert "no file can be created in" in str(caught.value)
    assert _temporaries(*folders) == []
    assert not config_path().exists() and not recent_file().exists()


@pytest.mark.parametrize("how", ["missing", "a file in the way"])
def test_missing_folders_are_made_and_a_file_in_the_way_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    root = tmp_path / "deep" / "er"
    if how == "a file in the way":
        root.parent.mkdir(parents=True)
        root.write_text("not a folder")
    for variable in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(variable, str(root / variable.lower()))
    session = tmp_path / "s.jsonl"
    session.write_text("{}\n")
    remember(session, "s", "title", 1, None)
    cache = ProbeCache()
    cache.put("ef" * 32, {"text": "t"})
    if how == "missing":
        save_theme("nord")
        assert tomllib.loads(config_path().read_text()) == {"theme": "nord"}
        assert [i.id for i in load_recent()] == ["s"] and cache.get("ef" * 32) == {"text": "t"}
    else:
        with pytest.raises(OSError):
            save_theme("nord")
        assert load_recent() == [] and cache.get("ef" * 32) is None


async def test_the_app_says_in_one_line_why_the_theme_was_not_saved(tmp_path: Path) -> None:
    from goose_tui.tui.app import GooseTUI
    from tests.tui.conftest import settle

    folder = config_path().parent
    with _read_only(folder):
        app = GooseTUI(None)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            app.theme = "nord" if app.theme != "nord" else "gruvbox"
            await settle(pilot)
            notes = [str(n.message) for n in app._notifications]
    said = [n for n in notes if n.startswith("theme not saved: ")]
    assert said == [
        f"theme not saved: {config_path()}: cannot write: Operation not permitted "
        f"(no file can be created in {folder})"
    ], notes
    assert _temporaries(folder) == []
    assert os.listdir(folder) == []
