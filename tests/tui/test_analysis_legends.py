"""The analysis screens explain their own shorthand: the retention list's word share of a
missing item, the timeline's w-13k line."""

from __future__ import annotations

from textual.widgets import DataTable

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.screens.retention_screen import RetentionScreen
from goose_tui.tui.screens.timeline_screen import TimelineScreen

from .conftest import compacted, settle


async def test_the_timeline_explains_w_13k_and_retention_what_missing_and_its_words_mean() -> None:
    app = GooseTUI(None)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("g")
        await settle(pilot)
        assert isinstance(app.screen, TimelineScreen)
        summary = app.screen.query_one("#timeline-summary")
        legend = summary.render_line(1).text.strip()
        assert legend == "w-13k on the plot: the window less 13,000 tokens, room for the reply", (
            legend
        )
        await pilot.press("escape")
        await compacted(pilot)
        await pilot.press("l")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RetentionScreen)
        items = screen.query_one("#retention-items", DataTable)
        headers = [str(column.label) for column in items.columns.values()]
        shares = [str(items.get_row_at(row)[3]) for row in range(items.row_count)]
        hint = str(screen.query_one("#retention-hint").render())
    assert headers[3] == "its words", headers
    assert shares and all(share.endswith("%") for share in shares), shares
    assert "missing (not found as a whole; its words: the share the summary has)" in hint, hint
