"""The template editor shows what its edit renders while the user types: the summary
template's Markdown, the compaction template's prompt as it will be sent, beside the editor
on a wide terminal and below it on a narrow one; an edit that does not render keeps the last
good render there, with the error (file, line) over both."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import TextArea

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.screens.template_editor import TemplateEditor
from goose_tui.tui.widgets.summary_preview import MarkdownLines, SummaryPreview
from goose_tui.tui.widgets.text_viewer import TextViewer

from .conftest import compacted, edit, paste, settle


def _rendered(preview: SummaryPreview) -> str:
    return "\n".join(line.text for line in preview.query_one(MarkdownLines).lines)


async def test_the_summary_template_s_render_is_shown_while_typing(
    session_file: Path, reply_file: Path, prompts: Path
) -> None:
    app = GooseTUI(session_file, model=f"replay:{reply_file}", prompts_dir=prompts)
    async with app.run_test(size=(120, 36)) as pilot:
        await compacted(pilot)
        await pilot.press("t")
        editor = app.screen
        assert isinstance(editor, TemplateEditor)
        preview = editor.query_one(SummaryPreview)
        assert preview.markdown == app.inspector.summary.text  # the render before any edit
        await edit(pilot, None, "# TYPED HEADING\n\nnext: {{ next_step }}\n")
        assert app.screen is editor  # not left: seen while typing
        assert preview.markdown.startswith("# TYPED HEADING")
        assert "TYPED HEADING" in _rendered(preview)
        # Beside the editor on a wide terminal, below it on a narrow one.
        for size, beside in (((120, 36), True), ((80, 24), False)):
            await pilot.resize_terminal(*size)
            await settle(pilot)
            text, shown = (
                editor.query_one(TextArea).region,
                editor.query_one("#template-preview").region,
            )
            assert text.height >= 5 and shown.height >= 5, (size, text, shown)
            assert editor.region.contains_region(shown)
            if beside:
                assert shown.x >= text.right and shown.y == text.y, (text, shown)
            else:
                assert shown.y >= text.bottom and shown.x == text.x, (text, shown)

        # An edit that does not render: the error stays said, the last good render stays.
        await paste(pilot, "{% if %}")
        await settle(pilot)
        status = str(editor.query_one("#template-status").render())
        assert "compaction_summary.md:4: syntax error" in status, status  # file and line
        assert preview.markdown.startswith("# TYPED HEADING")
        assert "last good render" in str(editor.query_one("#template-preview").border_title)


async def test_before_a_compaction_the_preview_says_how_to_get_a_summary_and_the_prompt_shows(
    session_file: Path, prompts: Path
) -> None:
    app = GooseTUI(session_file, prompts_dir=prompts)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("t")
        await settle(pilot)
        shown = app.screen.query_one(MarkdownLines).render_line(0).text
        assert shown.startswith("no summary yet: c on the inspector compacts"), shown
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is app.main
        # The compaction template's prompt is shown while typing.
        await pilot.press("T")
        editor = app.screen
        assert isinstance(editor, TemplateEditor)
        viewer = editor.query_one("#template-preview TextViewer", TextViewer)
        assert viewer.text == str(app.inspector.prompt.text)
        await edit(pilot, None, "SUMMARIZE THIS:\n{{ messages }}\n")
        assert app.screen is editor
        assert viewer.text.startswith("SUMMARIZE THIS:")
        assert viewer.text == str(app.inspector.prompt.text)


async def test_the_prompt_preview_says_why_the_prompt_could_not_be_built(
    session_file: Path, tmp_path: Path
) -> None:
    # The preview said "the prompt could not be built" without the reason the input pane gives.
    prompts = tmp_path / "bad"
    prompts.mkdir()
    (prompts / "compaction.md").write_text("{{ messages | upper }}\n", encoding="utf-8")
    app = GooseTUI(session_file, prompts_dir=prompts)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("escape")  # the error modal of the failed build
        await settle(pilot)
        said = app.main.query_one("#input-view", TextViewer).placeholder
        assert "filter upper is unknown" in said
        await pilot.press("T")
        await settle(pilot)
        assert isinstance(app.screen, TemplateEditor)
        preview = app.screen.query_one("#template-preview TextViewer", TextViewer)
        assert preview.placeholder == said
