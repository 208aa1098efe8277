"""Hints that name a key (the compaction line, the empty panes) name the key the user's
keymap binds, as the footer does."""

from __future__ import annotations

from pathlib import Path

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.widgets.compaction_status import CompactionStatus, compact_key, open_key

from .conftest import settle


async def test_the_hints_name_the_keys_the_keymap_binds(session_file: Path) -> None:
    keymap = {"main.compact": "ctrl+k", "app.open": "O"}
    app = GooseTUI(session_file, keymap=keymap)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        assert compact_key(app) == "^k"
        assert open_key(app) == "O"
        status = app.main.query_one(CompactionStatus)
        assert status.compact_key == "^k"
        assert "press ^k to compact" in str(status.render())
