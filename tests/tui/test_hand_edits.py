"""Hand edits of the summary: an edit of one editor that would replace an unsaved edit of
the other asks first, and either answer loses nothing."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import TextArea

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.screens.confirm import ConfirmScreen

from .conftest import compacted, settle


async def _json_hand_edit(pilot) -> str:
    """``e``, type into the summary JSON, settle: the edited JSON text."""
    json_editor = pilot.app.main.query_one("#json-editor", TextArea)
    await pilot.press("e")
    json_editor.move_cursor((2, 5))
    await pilot.press(*"HANDEDIT ")
    await settle(pilot)
    assert "HANDEDIT" in pilot.app.inspector.summary.text
    return json_editor.text


async def test_typing_in_the_reply_over_an_unsaved_json_edit_asks_first(
    session_file: Path, reply_file: Path
) -> None:
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(200, 50)) as pilot:
        await compacted(pilot)
        main = app.main
        json_editor = main.query_one("#json-editor", TextArea)
        reply_editor = main.query_one("#reply-editor", TextArea)
        edited = await _json_hand_edit(pilot)
        reply = reply_editor.text
        await pilot.press("escape", "r")
        reply_editor.move_cursor((0, 0))
        await pilot.press("X")
        await settle(pilot)
        question = app.screen
        assert isinstance(question, ConfirmScreen), "the JSON edit was replaced unasked"
        assert "hand-edited summary JSON" in question.question
        # Nothing is lost while the question is up: the key is not typed yet.
        assert json_editor.text == edited and reply_editor.text == reply
        await pilot.press("escape")  # No: the JSON edit stays, the key is not typed
        await settle(pilot)
        assert app.screen is main
        assert json_editor.text == edited and reply_editor.text == reply
        assert reply_editor.cursor_location == (0, 0)  # where it was
        assert "HANDEDIT" in app.inspector.summary.text
        # Yes: the key is typed and the reply, read again, replaces the JSON edit.
        await pilot.press("X")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        assert reply_editor.text == "X" + reply
        assert "HANDEDIT" not in json_editor.text
        assert "HANDEDIT" not in app.inspector.summary.text
        # Asked once per JSON edit: more typing in the reply asks nothing.
        await pilot.press("Y")
        await settle(pilot)
        assert app.screen is main and reply_editor.text == "XY" + reply


async def test_a_saved_json_edit_is_not_asked_about(
    session_file: Path, reply_file: Path, tmp_path: Path
) -> None:
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(200, 50)) as pilot:
        await compacted(pilot)
        await _json_hand_edit(pilot)
        app.inspector.save("json", tmp_path / "summary.json", overwrite=False)
        reply_editor = app.main.query_one("#reply-editor", TextArea)
        await pilot.press("escape", "r")
        reply_editor.move_cursor(reply_editor.document.end)
        await pilot.press("X")
        await settle(pilot)
        assert app.screen is app.main
        assert reply_editor.text.endswith("X")
