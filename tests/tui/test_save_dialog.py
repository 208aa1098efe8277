"""The save dialog (``s``): its path follows the chosen kind until the user types one, enter
writes, an existing file is replaced only after a yes, a failed save says why, and the
default target is never inside goose-tui's own folders. Real keys on the real app; waits
are ``settle`` (or a condition), never a time."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, RadioButton, RadioSet

from goose_tui.inert import inert
from goose_tui.samples import samples_dir
from goose_tui.tui.app import GooseTUI
from goose_tui.tui.screens.confirm import ConfirmScreen
from goose_tui.tui.screens.error_modal import ErrorModal
from goose_tui.tui.screens.save_dialog import SaveDialog

from .conftest import compacted, paste, settle, wait_until


async def _save_dialog(pilot) -> SaveDialog:
    """``s`` on the main screen, settled: the save dialog, its path field focused."""
    await pilot.press("s")
    await settle(pilot)
    dialog = pilot.app.screen
    assert isinstance(dialog, SaveDialog)
    return dialog


async def _cancel(pilot) -> None:
    await pilot.press("escape")
    await settle(pilot)
    assert pilot.app.screen is pilot.app.main


async def test_the_save_dialog_asks_before_replacing_says_why_a_save_failed_and_follows_the_kind(
    session_file: Path, reply_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One compacted app: a save asks before replacing a file and a failed one says why; then
    # the path follows the kind, keeps what was typed, and enter writes.
    from goose_tui import files
    from goose_tui.inspector import Inspector

    existing = session_file.with_name("small_session.summary.json")
    existing.write_text("keep me\n")
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(120, 40)) as pilot:
        await compacted(pilot)
        dialog = await _save_dialog(pilot)
        # A session in a writable folder of the user's keeps its own folder.
        field = dialog.query_one("#save-path", Input)
        assert Path(field.value).parent == session_file.parent
        await pilot.press("enter")  # the default target: the file that already exists
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert str(existing) in app.screen.question and "Replace" in app.screen.question
        await pilot.press("escape")  # no: the file is kept
        await settle(pilot)
        assert app.screen is app.main
        assert existing.read_text() == "keep me\n"

        await _save_dialog(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        assert '"reviewer": "extra field kept"' in existing.read_text()

        # A failed save names the path and why, not the temporary file (saving to /proc/x.json
        # said "[Errno 2] No such file or directory: '/proc/.goose-tui-789fe3ead71f.tmp'").
        def refused(target: Path) -> tuple[int, Path]:
            tmp = target.with_name(".goose-tui-789fe3ead71f.tmp")
            raise FileNotFoundError(2, "No such file or directory", str(tmp))

        with monkeypatch.context() as patch:
            patch.setattr(files, "_temp_beside", refused)
            dialog = await _save_dialog(pilot)
            target = session_file.with_name("x.json")
            dialog.query_one("#save-path", Input).value = inert(str(target))
            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(app.screen, ErrorModal)
            assert app.screen.message == (
                f"{target}: cannot write: No such file or directory (no file can be created "
                f"in {target.parent})"
            )
            await pilot.press("escape")
            await settle(pilot)

        # No question is asked for a name that is free; a file made there before the write
        # (by another program) is kept, and the app says it did not save.
        free = session_file.with_name("free.summary.json")
        real_save = Inspector.save

        def a_file_appears_then_save(self, kind, path, **options):  # type: ignore[no-untyped-def]
            free.write_text("made meanwhile\n")
            return real_save(self, kind, path, **options)

        with monkeypatch.context() as patch:
            patch.setattr(Inspector, "save", a_file_appears_then_save)
            dialog = await _save_dialog(pilot)
            dialog.query_one("#save-path", Input).value = str(free)
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, ErrorModal))
            assert "already exists" in app.screen.message
            assert free.read_text() == "made meanwhile\n"
            await pilot.press("escape")
            await settle(pilot)
        assert app.screen is app.main

        # The path is not selected on focus: one key must not wipe it.
        dialog = await _save_dialog(pilot)
        field = dialog.query_one("#save-path", Input)
        default = field.value
        assert app.focused is field
        await pilot.press("x")
        assert field.value == default + "x"
        # Enter on an empty path says a path is needed (it did nothing and said nothing).
        field.value = "  "
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is dialog
        note = dialog.query_one("#save-note")
        assert str(note.render()) == "type a path to save to (escape cancels)"
        await pilot.press("x")  # typing a path: the note has been read
        assert str(note.render()) == ""
        await _cancel(pilot)

        # Choosing the kind keeps a path the user typed (it put the default path back).
        dialog = await _save_dialog(pilot)
        field = dialog.query_one("#save-path", Input)
        dialog.query_one("#save-markdown", RadioButton).value = True  # untouched: follows
        await settle(pilot)
        assert field.value.endswith(".summary.md")
        field.value = "/tmp/my_own_name.md"
        dialog.query_one("#save-session", RadioButton).value = True
        await settle(pilot)
        assert field.value == "/tmp/my_own_name.md"
        await _cancel(pilot)

        # Choosing another kind puts the cursor at the end of its path: it stayed where the
        # shorter one ended, so ctrl+u and a typed name left the old tail after it.
        dialog = await _save_dialog(pilot)
        await pilot.press("shift+tab", "down", "down", "enter")  # a compacted session
        await settle(pilot)
        path = dialog.query_one(Input)
        assert path.value.endswith(".jsonl") and dialog.kind != "json"
        # Which kind is chosen shows in the mark's shape, not its colour alone.
        marks = {
            str(button.id): str(button.render()).split()[0] for button in dialog.query(RadioButton)
        }
        assert marks == {
            "save-json": "▐○▌",
            "save-markdown": "▐○▌",
            "save-session": "▐●▌",
            "save-export": "▐○▌",
            "save-report": "▐○▌",
            "save-goose-db": "▐○▌",
        }, marks
        assert path.cursor_position == len(path.value)
        target = tmp_path / "mine.jsonl"
        assert app.focused is path  # a kind chosen: back on the path, for enter to write
        await pilot.press("ctrl+u")
        await paste(pilot, str(target))
        await pilot.press("enter")
        await settle(pilot)
        assert target.is_file()
        assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("mine")) == [
            "mine.jsonl"
        ]

        # Enter on a kind, then enter, writes: the dialog says "enter writes", but enter on
        # the kinds only chose one and a second enter did nothing until tab reached the path.
        dialog = await _save_dialog(pilot)
        path = dialog.query_one("#save-path", Input)
        target = tmp_path / "out.md"
        path.value = str(target)
        dialog.query_one(RadioSet).focus()
        await pilot.press("down", "enter")  # the summary kind, chosen from the list
        await settle(pilot)
        assert app.focused is path and path.value == str(target)  # typed: kept
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is app.main
        assert target.exists()


async def test_save_default_is_never_inside_the_package_or_the_samples(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No argument opens the bundled sample; its folder ships with goose-tui (inside the
    installed package for a wheel), so the default goes to the current directory."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    app = GooseTUI()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.inspector.session is not None
        assert app.inspector.session.source_path.parent == samples_dir()
        await pilot.press("c")  # (no summary yet: `s` says so and asks nothing)
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        target = Path(app.screen.query_one("#save-path", Input).value)
        assert target == work / "long_session.summary.json"
