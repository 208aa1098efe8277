"""At 80 columns nothing that carries a verdict or a number is cut off: the status line's
request fit and cost estimate, the retention screen's hint, the session picker's dates; at
120 and 200 columns they read as well as before. One app for each, resized to each width."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from textual.widget import Widget
from textual.widgets import DataTable

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.screens.retention_screen import RetentionScreen
from goose_tui.tui.screens.session_picker import SessionPicker
from goose_tui.tui.widgets.compaction_status import CompactionStatus
from tests.conftest import SAMPLES

from .conftest import compacted, settle

SIZES = [(80, 24), (120, 36), (200, 50)]


def _lines(widget: Widget) -> str:
    """What the widget shows, its lines joined, spaces squeezed."""
    shown = " ".join(widget.render_line(y).text for y in range(widget.size.height))
    return " ".join(shown.split())


async def test_the_status_line_keeps_the_verdict_and_the_cost() -> None:
    app = GooseTUI(SAMPLES / "long_session.jsonl", model="openai/gpt-4o-mini")
    async with app.run_test(size=SIZES[0]) as pilot:
        for size in SIZES:
            await pilot.resize_terminal(*size)
            await settle(pilot)
            tokens = app.inspector.prompt.tokens
            assert tokens is not None
            line = _lines(app.main.query_one(CompactionStatus))
            assert "…" not in line, (size, line)
            assert "request fits its 128,000-token window" in line, line
            assert re.search(rf"est\. {tokens:,} tokens in ≈ \$\d+\.\d{{6}}", line), line
            if size[0] >= 120:
                assert "model openai/gpt-4o-mini" in line, line
            if size[0] >= 200:
                assert line.startswith("press c to compact"), line


async def test_the_retention_hint_is_read_whole(session_file: Path) -> None:
    app = GooseTUI(session_file)
    async with app.run_test(size=SIZES[0]) as pilot:
        await compacted(pilot)
        await pilot.press("l")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RetentionScreen) and screen.report is not None
        missing, total = len(screen.report.missing()), screen.report.total
        for size in SIZES:
            await pilot.resize_terminal(*size)
            await settle(pilot)
            hint = _lines(screen.query_one("#retention-hint"))
            rows = screen.query_one("#retention-items").size.height
            assert "…" not in hint, (size, hint)
            assert hint.startswith(f"{missing} of {total} items missing"), hint
            for part in ("not found as a whole", "its words:", "enter: go to the message", "a: "):
                assert part in hint, hint
            assert hint.endswith("found items too"), hint
            assert rows >= 5  # the items keep most of the screen


async def test_the_picker_keeps_every_date_on_screen(tmp_path: Path) -> None:
    # A session with a long name opened before: it is a "recent" row of the picker.
    deep = tmp_path.joinpath(*(f"projects-folder-{n}" for n in range(6)), "long_session.jsonl")
    deep.parent.mkdir(parents=True)
    shutil.copy(SAMPLES / "long_session.jsonl", deep)
    app = GooseTUI(deep)
    async with app.run_test(size=SIZES[0]) as pilot:
        await settle(pilot)
        await pilot.press("o")
        await settle(pilot)
        assert isinstance(app.screen, SessionPicker)
        table = app.screen.query_one(DataTable)
        for size in SIZES:
            await pilot.resize_terminal(*size)
            await settle(pilot)
            header = table.render_line(0).text
            rows = [table.render_line(y).text for y in range(1, 1 + table.row_count)]
            assert "updated" in header and "name" in header, (size, header)
            assert rows and all(re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d", row) for row in rows), rows
            recent = next(row for row in rows if "recent" in row)
            assert re.search(r"opened \d{4}-\d\d-\d\d \d\d:\d\d", recent), recent
            assert "Fix cent rounding" in recent, recent  # and the name after it
