"""While the summary JSON or the reply is edited the footer offers what the keys do there:
escape leaves the editor (it cancels nothing), and `/` types a slash (it does not search)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import TextArea

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.widgets.goose_footer import GooseFooter

from .conftest import compacted, settle


async def test_the_editors_footer_says_escape_leaves_it_and_offers_no_search(
    session_file: Path, reply_file: Path
) -> None:
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(120, 36)) as pilot:
        await compacted(pilot)
        for key in ("e", "r"):
            await pilot.press(key)
            await settle(pilot)
            assert isinstance(app.focused, TextArea)
            footer = app.main.query_one(GooseFooter).render_line(0).text
            assert "esc Leave editor" in footer, footer
            assert "Cancel" not in footer and "Search prompt" not in footer, footer
            await pilot.press("escape")
            await settle(pilot)
            assert not isinstance(app.focused, TextArea), key
            footer = app.main.query_one(GooseFooter).render_line(0).text
            assert "Search prompt" in footer and "Leave editor" not in footer, footer
