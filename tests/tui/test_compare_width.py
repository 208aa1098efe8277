"""Three sides at 120 columns: the sides table shows every side's column (it was cut after
B), the long specs shortened in the table since the title line names them in full."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable

from goose_tui.tui.app import GooseTUI, bundled_sample
from goose_tui.tui.screens.compare_screen import CompareScreen

from .conftest import compacted, paste, settle


async def test_three_sides_fit_at_120_columns(tmp_path: Path) -> None:
    folder = tmp_path / "a-prompts-folder-with-a-long-name-as-real-ones-have" / "prompts"
    folder.mkdir(parents=True)
    (folder / "compaction_summary.md").write_text("# Summary\n{{ next_step }}\n")
    app = GooseTUI(bundled_sample(), model="offline")
    async with app.run_test(size=(120, 36)) as pilot:
        await compacted(pilot)
        await pilot.press("v")
        await settle(pilot)
        await pilot.press("tab")
        await paste(pilot, str(folder))
        await pilot.press("ctrl+n")
        await pilot.pause()
        await paste(pilot, "offline")
        await pilot.press("ctrl+n")
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        title = str(screen.query_one("#compare-title").render())
        sides = screen.query_one("#compare-sides", DataTable)
        drawn = [sides.render_line(y).text for y in range(sides.size.height)]
        comparison = screen.comparison
    assert comparison is not None
    assert f"B: offline + {folder}" in title, title  # the spec in full, once
    header = drawn[0].split()
    assert header == ["A", "B", "C"], drawn[0]
    tokens = next(line for line in drawn if line.lstrip().startswith("tokens"))
    for side in comparison.sides:
        assert f"{side.tokens:,}" in tokens, tokens
