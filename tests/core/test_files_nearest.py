"""files.nearest_existing: the one walk up to an existing folder, with its two stop rules."""

from __future__ import annotations

from pathlib import Path

from goose_tui.compaction.template_watch import watch_roots
from goose_tui.files import check_output_target, nearest_existing


def test_missing_folders_end_at_the_nearest_existing_one(tmp_path: Path) -> None:
    deep = tmp_path / "a" / "b" / "c"
    assert nearest_existing(deep) == tmp_path
    assert nearest_existing(deep, folders_only=True) == tmp_path
    assert nearest_existing(tmp_path) == tmp_path


def test_a_file_in_the_way_stops_a_writer_but_not_a_watcher(tmp_path: Path) -> None:
    blocker = tmp_path / "notes"
    blocker.write_text("a file, not a folder\n")
    folder = blocker / "prompts"
    assert nearest_existing(folder) == blocker
    assert nearest_existing(folder, folders_only=True) == tmp_path
    # What each caller makes of it: the save names the file, the watcher watches its folder.
    problem = check_output_target(folder / "out.json", make_folders=True)
    assert problem == f"{folder / 'out.json'}: {blocker} is not a folder"
    assert watch_roots([folder / "compaction.md"]) == [tmp_path]


def test_the_root_ends_the_walk() -> None:
    root = Path("/")
    assert nearest_existing(root / "no-such-folder-here" / "x") == root
