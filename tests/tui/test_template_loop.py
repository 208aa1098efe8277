"""The template loop with the user's own editor: `E` runs $EDITOR on the override file and
the panes show the saved file when it exits; `D` shows the templates in use against the
built-in ones and Goose's own."""

from __future__ import annotations

from pathlib import Path

import pytest

from goose_tui.compaction.templates import builtin_prompts_dir
from goose_tui.tui.app import GooseTUI
from goose_tui.tui.screens.confirm import ConfirmScreen
from goose_tui.tui.screens.template_diff import TemplateDiffScreen
from goose_tui.tui.widgets.summary_preview import SummaryPreview
from goose_tui.tui.widgets.text_viewer import TextViewer

from .conftest import settle


@pytest.fixture
def editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """$EDITOR: a real program (a shell script) that appends a line to the file it is given,
    as a user's editor would save it. The headless app has no terminal to hand over, so it
    runs it without suspending."""
    script = tmp_path / "editor.sh"
    script.write_text('printf "## FROM THE EDITOR\\n" >> "$1"\n', encoding="utf-8")
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", f"sh {script}")
    return script


async def test_D_diffs_the_templates_in_use_against_built_in_and_goose(
    session_file: Path, prompts: Path
) -> None:
    override = prompts / "compaction_summary.md"
    override.write_text("## GOOD HEADING\n{{ next_step }}\n", encoding="utf-8")
    app = GooseTUI(session_file, prompts_dir=prompts)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("D")
        await settle(pilot)
        assert isinstance(app.screen, TemplateDiffScreen)
        text = app.screen.query_one(TextViewer).text
        assert f"+++ in use: {override}" in text
        assert "--- Goose's own (goose-sdk)" in text and "+## GOOD HEADING" in text
        assert "compaction.md: built-in against goose-tui's built-in\n(the same text)" in text
        await pilot.press("escape")
        assert app.screen is app.main


async def test_E_makes_or_edits_the_override_the_panes_show_it_and_ctrl_o_edits_the_file(
    session_file: Path, reply_file: Path, prompts: Path, editor: Path
) -> None:
    from goose_tui.tui.screens.template_editor import TemplateEditor

    override = prompts / "compaction_summary.md"
    prompt_override = prompts / "compaction.md"
    prompt_override.write_text("SUMMARIZE\n{{ messages }}\n", encoding="utf-8")
    app = GooseTUI(session_file, model=f"replay:{reply_file}", prompts_dir=prompts)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        # Without an override, E asks, then makes it from the template in use.
        await pilot.press("E")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert "does not exist" in app.screen.question
        await pilot.press("escape")
        await settle(pilot)
        assert not override.exists()
        await pilot.press("E", "y")
        await settle(pilot)
        builtin = (builtin_prompts_dir() / "compaction_summary.md").read_text(encoding="utf-8")
        assert override.read_text(encoding="utf-8") == builtin + "## FROM THE EDITOR\n"
        assert app.inspector.templates.summary.source.path == override
        # Over an override, after a compaction: the panes show the saved file.
        await pilot.press("c")
        await settle(pilot)
        await pilot.press("E")
        await settle(pilot)
        assert override.read_text(encoding="utf-8") == builtin + "## FROM THE EDITOR\n" * 2
        markdown = app.main.query_one(SummaryPreview).markdown
        assert markdown.rstrip().endswith("## FROM THE EDITOR"), markdown
        # ctrl+o in the template editor edits the file and loads it back.
        await pilot.press("T")
        template_editor = app.screen
        assert isinstance(template_editor, TemplateEditor)
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert app.screen is template_editor
        expected = "SUMMARIZE\n{{ messages }}\n## FROM THE EDITOR\n"
        assert prompt_override.read_text(encoding="utf-8") == expected
        assert template_editor.text == expected
        assert app.inspector.templates.compaction.source.path == prompt_override
        assert app.inspector.templates.compaction.text == expected
