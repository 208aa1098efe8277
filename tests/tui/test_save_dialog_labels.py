"""The save dialog's kinds are read in full at 80 and 120 columns: a label that does not fit
its line wraps, it is not cut (the sessions.db kind's "asks first, backs it up" was cut)."""

from __future__ import annotations

from pathlib import Path

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.screens.save_dialog import LABELS, Choice, SaveDialog

from .conftest import compacted, settle


async def test_every_save_kind_is_shown_whole(session_file: Path, reply_file: Path) -> None:
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(80, 24)) as pilot:
        await compacted(pilot)
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, SaveDialog)
        for size in ((80, 24), (120, 36)):
            await pilot.resize_terminal(*size)
            await settle(pilot)
            drawn = {}
            for choice in app.screen.query(Choice):
                lines = [choice.render_line(y).text for y in range(choice.size.height)]
                drawn[str(choice.id)] = " ".join(" ".join(line.split()) for line in lines)
            for kind, label in LABELS.items():
                assert label in drawn[f"save-{kind}"], (size, label, drawn[f"save-{kind}"])
