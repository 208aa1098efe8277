"""The template editor's first line names the template in use as it is now: a broken
override fixed on disk while the editor is open is no longer called broken there."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.screens.template_editor import TemplateEditor

from .conftest import compacted, rewrite, settle, wait_until

BROKEN = "## BROKEN\n{% for i in user_intent %}\n"
FIXED = "## FIXED HEADING\n{{ next_step }}\n"


def _source(app: GooseTUI) -> str:
    return str(app.screen.query_one("#template-source", Static).render())


async def test_fixing_the_file_on_disk_updates_the_editors_source_line(
    session_file: Path, reply_file: Path, prompts: Path
) -> None:
    override = prompts / "compaction_summary.md"
    override.write_text(BROKEN, encoding="utf-8")
    app = GooseTUI(session_file, model=f"replay:{reply_file}", prompts_dir=prompts)
    async with app.run_test(size=(200, 50)) as pilot:
        await compacted(pilot)
        await pilot.press("t")
        await settle(pilot)
        assert isinstance(app.screen, TemplateEditor)
        assert "override broken" in _source(app), _source(app)
        rewrite(override, FIXED)
        await wait_until(pilot, lambda: "broken" not in _source(app))
        assert f"override {override}" in _source(app), _source(app)
        # ctrl+r loads the fixed file into the editor: the line stays true.
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert "broken" not in _source(app) and f"override {override}" in _source(app)
