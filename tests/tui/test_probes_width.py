"""The probes list fits the screen: at 120 columns the answer, its last column, is shown
(each text column gets its share of the width), and a wider screen gives them more."""

from __future__ import annotations

from textual.widgets import DataTable, TabbedContent

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.widgets.probes_panel import ProbesPanel

from .conftest import compacted, settle


async def _probe_rows(size: tuple[int, int]) -> tuple[list[str], list[str], int]:
    app = GooseTUI(None)
    async with app.run_test(size=size) as pilot:
        await compacted(pilot)
        await pilot.press("l")
        await settle(pilot)
        await pilot.press("p")
        await settle(pilot)
        assert app.screen.query_one(TabbedContent).active == "tab-probes"
        items = app.screen.query_one(ProbesPanel).query_one("#probe-items", DataTable)
        assert items.row_count
        drawn = [items.render_line(y).text for y in range(1, min(items.row_count, 5) + 1)]
        answers = [str(items.get_row_at(r)[5]) for r in range(min(items.row_count, 5))]
        return drawn, answers, items.size.width


async def test_the_answer_column_is_on_screen_at_120_columns() -> None:
    drawn, answers, width = await _probe_rows((120, 36))
    assert width <= 120
    for line, answer in zip(drawn, answers, strict=True):
        assert answer.strip() in line, (answer, line)
