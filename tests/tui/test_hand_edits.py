"""Hand edits of the summary: an edit of one editor that would replace an unsaved edit of
the other asks first, and either answer loses nothing; so do compacting again and quitting;
escape leaves an editor, undo clears an invalid-JSON banner at once, and no edit is typed
while a compaction runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import TextArea

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.screens.confirm import ConfirmScreen
from goose_tui.tui.screens.template_editor import TemplateEditor
from goose_tui.tui.widgets.compaction_status import CompactionStatus
from goose_tui.tui.widgets.summary_preview import SummaryPreview

from .conftest import compacted, paste, settle, wait_until

RE_RENDERED = "edited by hand: read leniently and re-rendered"


def _banner(app: GooseTUI) -> str:
    return str(app.main.query_one("#fields-banner").render())


async def _json_hand_edit(pilot) -> str:
    """``e``, type into the summary JSON, settle: the edited JSON text."""
    json_editor = pilot.app.main.query_one("#json-editor", TextArea)
    await pilot.press("e")
    json_editor.move_cursor((2, 5))
    await paste(pilot, "HANDEDIT ")
    await settle(pilot)
    assert "HANDEDIT" in pilot.app.inspector.summary.text
    return json_editor.text


async def test_typing_in_the_reply_over_an_unsaved_json_edit_asks_first(
    session_file: Path, reply_file: Path
) -> None:
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(120, 40)) as pilot:
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


async def test_compacting_again_or_quitting_over_an_unsaved_hand_edit_asks_first(
    session_file: Path, reply_file: Path
) -> None:
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(120, 40)) as pilot:
        await compacted(pilot)
        main = app.main
        json_editor = main.query_one("#json-editor", TextArea)
        await _json_hand_edit(pilot)
        edited = app.inspector.edits.json
        # "Yes" had the focus: a reflex enter after `c` threw a JSON hand edit away.
        await pilot.press("escape", "c")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert "hand-edited summary JSON" in app.screen.question
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is main
        assert "HANDEDIT" in json_editor.text
        # `c` replaced a hand-edited summary with a new compaction's, without a word.
        await pilot.press("escape", "c")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("escape")  # no: the edit stays
        await settle(pilot)
        assert app.screen is main and app.inspector.edits.json == edited
        await pilot.press("escape", "q")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert "hand-edited summary JSON" in app.screen.question
        await pilot.press("escape")  # no: keep working
        await settle(pilot)
        assert app.screen is main and app.is_running
        await pilot.press("c")
        await settle(pilot)
        await pilot.press("y")  # yes: compacted again, the edit replaced
        await settle(pilot)
        assert app.inspector.edits.json != edited and app.inspector.unsaved_edits() == []

        await _json_hand_edit(pilot)
        await pilot.press("escape", "s")
        await settle(pilot)
        await pilot.press("enter")  # saved: nothing is lost by quitting now
        await settle(pilot)
        assert session_file.with_name("small_session.summary.json").is_file()
        assert app.return_code is None
        await pilot.press("q")
        assert app.return_code == 0  # quit at once, without asking


async def test_a_json_edit_that_does_not_parse_is_undone_at_once_and_saved_only_if_asked(
    session_file: Path, reply_file: Path
) -> None:
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(120, 40)) as pilot:
        await compacted(pilot)
        json_editor = app.main.query_one("#json-editor", TextArea)
        loaded_banner = _banner(app)
        good = app.main.query_one(SummaryPreview).markdown
        await pilot.press("e", "end", "backspace")  # drop the opening brace
        await settle(pilot)
        assert _banner(app).startswith("invalid JSON")
        await pilot.press("ctrl+z")
        await pilot.pause()  # the key handled, no debounce or render waited for
        assert not _banner(app).startswith("invalid JSON")
        await settle(pilot)
        assert _banner(app) == loaded_banner
        assert app.main.query_one(SummaryPreview).markdown == good

        # An edit that renders, broken, then undone to the edit: valid again at once.
        await pilot.press("end", "enter", "space")
        await settle(pilot)
        assert _banner(app) == RE_RENDERED
        await pilot.press("backspace", "backspace", "backspace")
        await settle(pilot)
        assert _banner(app).startswith("invalid JSON")
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert not _banner(app).startswith("invalid JSON")
        await settle(pilot)

        # With the JSON editor's text not parsing, `s` wrote the last good summary and said
        # "saved", and `q` then quit without asking: the edit was lost.
        json_editor.move_cursor((0, 1))
        await pilot.press("backspace")  # the opening brace again: no JSON
        await settle(pilot)
        assert _banner(app).startswith("invalid JSON")
        broken = json_editor.text
        await pilot.press("escape", "s")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert "does not parse" in app.screen.question
        await pilot.press("escape")  # no: nothing is written
        await settle(pilot)
        assert app.screen is app.main
        target = session_file.with_name("small_session.summary.json")
        assert not target.exists()
        await pilot.press("s")
        await settle(pilot)
        await pilot.press("y")  # yes: the last good summary, without the edit
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert target.is_file()
        assert any("the last good summary" in n.message for n in app._notifications)
        assert json_editor.text == broken  # still there
        await pilot.press("q")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)  # the edit itself was never saved
        assert "hand-edited summary JSON" in app.screen.question
        assert app.return_code is None


async def test_escape_leaves_every_editor_and_a_saved_json_edit_is_not_asked_about(
    session_file: Path, reply_file: Path, tmp_path: Path
) -> None:
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(120, 40)) as pilot:
        await compacted(pilot)
        main = app.main
        for key, editor_id in (("e", "#json-editor"), ("r", "#reply-editor")):
            editor = main.query_one(editor_id, TextArea)
            before = editor.text
            await pilot.press(key)
            assert app.focused is editor
            await pilot.press("escape")
            assert not isinstance(app.focused, TextArea)
            await pilot.press("m")  # a key after escape is a command again, not text
            assert editor.text == before
            await settle(pilot)
        await pilot.press("t")
        assert isinstance(app.screen, TemplateEditor)
        assert isinstance(app.focused, TextArea)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is main
        assert app.inspector.templates.summary.source.origin == "built-in"
        # A saved JSON edit is not asked about when the reply is typed in.
        await _json_hand_edit(pilot)
        app.inspector.save("json", tmp_path / "summary.json", overwrite=False)
        reply_editor = main.query_one("#reply-editor", TextArea)
        await pilot.press("escape", "r")
        reply_editor.move_cursor(reply_editor.document.end)
        await pilot.press("X")
        await settle(pilot)
        assert app.screen is main
        assert reply_editor.text.endswith("X")


async def test_the_summary_cannot_be_hand_edited_while_a_compaction_runs(
    session_file: Path, reply_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An edit typed while the model ran was replaced by its summary when it ended, without a
    # word (`c` asks before replacing an edit, but the edit came after `c`).
    import asyncio

    from goose_tui.llm.replay import ReplaySummarizer

    release = asyncio.Event()
    real = ReplaySummarizer.complete

    async def held(self, messages, on_chunk=None):  # type: ignore[no-untyped-def]
        await release.wait()
        return await real(self, messages, on_chunk)

    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(120, 40)) as pilot:
        await compacted(pilot)
        before = app.inspector.edits.json
        monkeypatch.setattr(ReplaySummarizer, "complete", held)
        await pilot.press("c")
        await wait_until(pilot, lambda: app.main.query_one(CompactionStatus).state == "running")
        await pilot.press("e", "end", "E", "D", "I", "T")
        await pilot.pause()
        editor = app.main.query_one("#json-editor", TextArea)
        assert editor.text == before and editor.read_only
        assert app.screen is app.main  # the letters typed were no shortcuts either
        assert any("once the compaction ends" in str(n.message) for n in app._notifications)
        release.set()
        await settle(pilot)
        assert app.main.query_one(CompactionStatus).state == "done"
        assert not editor.read_only
        done = editor.text
        await pilot.press("e", "end", "E")
        await pilot.pause()
        assert editor.text != done  # editing again once it ended


async def test_a_reply_edit_over_a_json_edit_says_so_and_ctrl_z_brings_the_json_back(
    session_file: Path, reply_file: Path
) -> None:
    # Typing in the reply editor re-read the reply and replaced a hand edit of the summary
    # JSON with no word and no undo.
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(120, 40)) as pilot:
        await compacted(pilot)
        main = app.main
        json_editor = main.query_one("#json-editor", TextArea)
        await pilot.press("e")
        json_editor.move_cursor((2, 5))
        await paste(pilot, "HANDEDIT ")
        await settle(pilot)
        edited = json_editor.text
        assert "HANDEDIT" in edited and "HANDEDIT" in app.inspector.summary.text
        await pilot.press("escape", "r", "end", "space")
        await settle(pilot)
        await pilot.press("y")  # the question before the JSON edit is replaced
        await settle(pilot)
        assert "HANDEDIT" not in json_editor.text  # the reply, re-read, is the summary now
        assert any("ctrl+z" in str(n.message) for n in app._notifications)
        await pilot.press("escape", "e", "ctrl+z")
        await settle(pilot)
        assert json_editor.text == edited
        assert "HANDEDIT" in app.inspector.summary.text
