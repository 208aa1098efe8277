"""Rows cut to fit the screen are read whole below their table: at 80 columns the probes
list shows the highlighted probe's question, expected answer and answer in full, and the
retention list the highlighted item's text, following the cursor."""

from __future__ import annotations

from textual.widgets import DataTable, TabbedContent

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.widgets.probes_panel import ProbesPanel
from goose_tui.tui.widgets.row_detail import RowDetail

from .conftest import compacted, settle


def _shown(detail: RowDetail) -> str:
    assert detail.display
    return " ".join(detail.render_line(y).text.strip() for y in range(detail.size.height))


def _squash(text: str) -> str:
    return " ".join(text.split())


async def test_the_retention_item_then_the_probe_under_the_cursor_are_shown_whole_at_80() -> None:
    app = GooseTUI(None)
    async with app.run_test(size=(80, 24)) as pilot:
        await compacted(pilot)
        await pilot.press("l")
        await settle(pilot)
        screen = app.screen
        items = screen.query_one("#retention-items", DataTable)
        assert items.row_count
        detail = screen.query_one("#retention-detail", RowDetail)
        rows = screen._rows  # the items in table order
        long_rows = [i for i, item in enumerate(rows) if len(item.text) > 40]
        assert long_rows
        for _ in range(long_rows[0]):
            await pilot.press("down")
        await settle(pilot)
        assert _squash(rows[long_rows[0]].text) in _squash(_shown(detail))
        await pilot.press("p")
        await settle(pilot)
        assert app.screen.query_one(TabbedContent).active == "tab-probes"
        panel = app.screen.query_one(ProbesPanel)
        report = panel.report
        assert report is not None and len(report.results) > 1
        detail = panel.query_one("#probe-detail", RowDetail)
        for row in (0, 1):
            result = report.results[row]
            assert panel.query_one("#probe-items", DataTable).cursor_row == row
            shown = _squash(_shown(detail))
            assert _squash(result.probe.question) in shown, (result.probe.question, shown)
            assert _squash(result.probe.expected) in shown, (result.probe.expected, shown)
            assert _squash(result.answer or "(not in the summary)") in shown
            await pilot.press("down")
            await settle(pilot)
