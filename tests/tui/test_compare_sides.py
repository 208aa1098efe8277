"""The app's compare screen with more than two sides: ctrl+n in the dialog adds one."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, Input

from goose_tui.tui.app import GooseTUI, bundled_sample
from goose_tui.tui.screens.compare_screen import CompareScreen, CompareSetup

from .conftest import compacted, paste, settle


def _row(table: DataTable, row: int) -> list[str]:
    return [str(cell) for cell in table.get_row_at(row)]


async def test_three_sides_from_the_dialog_and_previous_alone(tmp_path: Path) -> None:
    short = tmp_path / "short"
    short.mkdir()
    (short / "compaction_summary.md").write_text(
        "# Conversation Summary\n{% for e in errors_and_fixes %}- {{ e }}\n{% endfor %}\n"
    )
    app = GooseTUI(bundled_sample(), model="offline")
    async with app.run_test(size=(120, 40)) as pilot:
        await compacted(pilot)
        # "previous" is compared alone: with another side it is refused.
        await pilot.press("v")
        await settle(pilot)
        setup = app.screen
        assert isinstance(setup, CompareSetup)
        await pilot.press("ctrl+n")  # the current model, as a side B
        await pilot.pause()
        await paste(pilot, "previous")
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is setup and len(setup.chosen) == 1  # refused, still asking
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is app.main
        await pilot.press("v")
        await settle(pilot)
        setup = app.screen
        assert isinstance(setup, CompareSetup)
        # B: the current model with the short template; ctrl+n keeps it and asks for C.
        await pilot.press("tab")
        await paste(pilot, str(short))
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert [c.prompts_dir for c in setup.chosen] == [short]
        assert setup.query_one("#compare-spec", Input).value == ""
        assert app.focused is not None and app.focused.id == "compare-spec"
        note = str(setup.query_one("#compare-chosen").render())
        assert f"B: offline + {short}" in note and "now C" in note
        # C: the current model and templates; an empty model field then answers.
        await paste(pilot, "offline")
        await pilot.press("ctrl+n")
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)

        screen = app.screen
        assert isinstance(screen, CompareScreen)
        c = screen.comparison
        assert c is not None
        assert [s.label for s in c.sides] == ["summary by offline", f"offline + {short}", "offline"]
        assert c.sides[1].tokens < c.sides[0].tokens == c.sides[2].tokens
        sides = screen.query_one("#compare-sides", DataTable)
        assert [str(col.label) for col in sides.columns.values()] == ["", "A", "B", "C"]
        fields = screen.query_one("#compare-fields", DataTable)
        assert [str(col.label) for col in fields.columns.values()] == ["field", "A→B", "A→C"]
        assert _row(fields, 0) == ["user_intent", "same", "same"]
        # One column of items per side under the tables.
        titles = [
            str(screen.query_one(f"#{name}-scroll").border_title)
            for name in ("compare-left", "compare-right", "compare-2")
        ]
        assert [t.split(" · ")[0] for t in titles] == ["A", "B", "C"]
        await pilot.press("d")
        diff = str(screen.query_one("#compare-diff-text").render())
        heads = [line for line in diff.splitlines() if line.startswith("+++ ")]
        assert heads == [f"+++ offline + {short}"]
        assert diff.endswith("(A and C render the same)")  # C is A again
        await pilot.press("escape")
        assert app.screen is app.main
