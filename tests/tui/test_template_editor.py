"""The template editor and the override file on disk: it opens what is on disk now, notices
when the file changes under it, and never replaces a newer file without saying so."""

from __future__ import annotations

from pathlib import Path

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.screens.confirm import ConfirmScreen
from goose_tui.tui.screens.template_editor import TemplateEditor

from .conftest import compacted, edit, paste, rewrite, settle, wait_until

GOOD = "## GOOD HEADING\n{{ next_step }}\n"
NEWER = "## NEWER HEADING\n{{ next_step }}\n"


def _status(editor: TemplateEditor) -> str:
    return str(editor.query_one("#template-status").render())


async def test_the_editor_opens_what_is_on_disk_now_and_saving_keeps_it(
    session_file: Path, reply_file: Path, prompts: Path
) -> None:
    override = prompts / "compaction_summary.md"
    override.write_text(GOOD, encoding="utf-8")
    app = GooseTUI(session_file, model=f"replay:{reply_file}", prompts_dir=prompts)
    async with app.run_test(size=(120, 40)) as pilot:
        await compacted(pilot)
        # Changed in another editor, and the editor opened before anything else runs (as
        # `t` pressed before the app hears of the change): it reads the file itself.
        rewrite(override, NEWER)
        app.edit_template("compaction_summary.md")
        await pilot.pause()
        editor = app.screen
        assert isinstance(editor, TemplateEditor)
        assert editor.text == NEWER
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        assert override.read_text(encoding="utf-8") == NEWER


async def test_a_change_on_disk_under_an_unedited_editor_is_said_and_ctrl_r_loads_it(
    session_file: Path, prompts: Path
) -> None:
    override = prompts / "compaction_summary.md"
    override.write_text(GOOD, encoding="utf-8")
    app = GooseTUI(session_file, prompts_dir=prompts)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("t")
        editor = app.screen
        assert isinstance(editor, TemplateEditor) and editor.text == GOOD
        rewrite(override, NEWER)
        await wait_until(pilot, lambda: "changed on disk" in _status(editor))
        assert editor.text == GOOD
        await pilot.press("ctrl+r")  # nothing typed here: loaded without a question
        await settle(pilot)
        assert app.screen is editor and editor.text == NEWER
        assert app.inspector.templates.summary.text == NEWER
        assert app.inspector.templates.summary.source.path == override


async def test_a_change_on_disk_under_an_edit_is_said_and_offered_not_forced(
    session_file: Path, prompts: Path
) -> None:
    override = prompts / "compaction_summary.md"
    override.write_text(GOOD, encoding="utf-8")
    app = GooseTUI(session_file, prompts_dir=prompts)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("t")
        editor = app.screen
        assert isinstance(editor, TemplateEditor)
        await edit(pilot, None, "# MINE {{ next_step }}")
        rewrite(override, NEWER)
        await wait_until(pilot, lambda: "changed on disk" in _status(editor))
        assert "ctrl+r" in _status(editor)
        assert editor.text == "# MINE {{ next_step }}"  # the edit stays
        # The in-app edit stays what the panes render: the file does not replace it unasked.
        assert app.inspector.templates.summary.text == "# MINE {{ next_step }}"
        await paste(pilot, " more")  # typing on: the note stays while the file differs
        await settle(pilot)
        assert "changed on disk" in _status(editor)
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, ConfirmScreen)
        assert "changed on disk since you opened it" in app.screen.question
        await pilot.press("escape")
        await pilot.press("ctrl+r")  # reload from disk: asks first, the edit would go
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        assert editor.text == NEWER
        assert override.read_text(encoding="utf-8") == NEWER


async def test_an_edit_left_in_the_app_reopens_against_the_file_as_it_was_read(
    session_file: Path, prompts: Path
) -> None:
    override = prompts / "compaction_summary.md"
    override.write_text(GOOD, encoding="utf-8")
    app = GooseTUI(session_file, prompts_dir=prompts)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("t")
        editor = app.screen
        assert isinstance(editor, TemplateEditor)
        await edit(pilot, None, "# MINE {{ next_step }}")
        await pilot.press("escape")  # the edit stays in use, not saved
        await settle(pilot)
        assert app.screen is app.main
        rewrite(override, NEWER)
        await wait_until(pilot, lambda: app.inspector.template_mtimes() == app._mtimes)
        await settle(pilot)
        assert app.inspector.templates.summary.text == "# MINE {{ next_step }}"
        await pilot.press("t")
        editor = app.screen
        assert isinstance(editor, TemplateEditor)
        assert editor.text == "# MINE {{ next_step }}"
        assert "changed on disk" in _status(editor)
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, ConfirmScreen)
        assert "changed on disk since you opened it" in app.screen.question
