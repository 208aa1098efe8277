"""At 80 columns the gauge's second line still shows what a compaction would leave: the
figure comes first once there is one, the sources of the counts after it."""

from __future__ import annotations

from pathlib import Path

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.widgets.context_gauge import ContextGauge

from .conftest import compacted


async def test_after_compaction_is_read_first_at_80_columns(
    session_file: Path, reply_file: Path
) -> None:
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(80, 24)) as pilot:
        await compacted(pilot)
        gauge = app.main.query_one(ContextGauge)
        details = gauge.render_line(1).text.strip()
        projected = gauge.projected
    assert projected is not None
    assert details.startswith(f"after compaction: {projected:,} tokens ("), details
    assert "used: " in details, details
