"""Opening another session with ``o``: it opens without the last one's summary, and over an
unsaved hand edit the app asks first. Real keys on the real app."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, TabbedContent, TextArea

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.screens.confirm import ConfirmScreen
from goose_tui.tui.widgets.compaction_status import CompactionStatus
from goose_tui.tui.widgets.context_gauge import ContextGauge
from goose_tui.tui.widgets.summary_preview import SummaryPreview
from goose_tui.tui.widgets.text_viewer import TextViewer

from .conftest import compacted, paste, settle


async def _open_typed(pilot, path: Path) -> None:
    """`o`, then ``path`` typed into the picker and enter."""
    from goose_tui.tui.screens.session_picker import SessionPicker

    await pilot.press("escape", "o")
    await settle(pilot)
    picker = pilot.app.screen
    assert isinstance(picker, SessionPicker)
    picker.query_one(Input).value = ""
    await paste(pilot, str(path))
    await pilot.press("enter")
    await settle(pilot)


def _other_session(session_file: Path) -> Path:
    other = session_file.with_name("other.jsonl")
    text = session_file.read_text().replace("Fix date parsing test", "Refactor the CLI")
    other.write_text(text.replace("test_parse_dates", "test_cli_flags"))
    return other


async def test_another_session_asks_over_a_hand_edit_then_opens_without_the_last_summary(
    session_file: Path, reply_file: Path
) -> None:
    # After `o` opened another session, the gauge still said "after compaction: 2,351
    # tokens" and the panes showed the first session's summary; `s` then wrote the new
    # session compacted with the old session's summary.
    other = _other_session(session_file)
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(120, 40)) as pilot:
        await compacted(pilot)
        main = app.main
        assert main.query_one(ContextGauge).projected is not None
        await pilot.press("e", "end", "enter", "space")  # an unsaved hand edit, its tab open
        await settle(pilot)
        edited = app.inspector.edits.json
        await _open_typed(pilot, other)
        assert isinstance(app.screen, ConfirmScreen)
        assert "hand-edited summary JSON" in app.screen.question
        await pilot.press("escape")  # no: the session and its edit stay
        await settle(pilot)
        assert app.screen is main and app.inspector.edits.json == edited
        assert app.inspector.session is not None
        assert app.inspector.session.source_path == session_file
        await _open_typed(pilot, other)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        assert app.screen is main
        inspector = app.inspector
        assert inspector.session is not None and inspector.session.source_path == other
        assert inspector.session.title == "Refactor the CLI"
        assert inspector.result is None and inspector.summary.structured is None
        assert inspector.summary.text == "" and inspector.unsaved_edits() == []
        assert main.query_one(ContextGauge).projected is None
        assert "after compaction" not in str(main.query_one(ContextGauge).render())
        assert str(main.query_one("#fields-banner").render()) == "no summary yet"
        assert main.query_one(SummaryPreview).markdown == ""
        assert main.query_one("#analysis-view", TextViewer).text == ""
        assert main.query_one("#json-editor", TextArea).text == "{}"
        assert main.query_one("#reply-editor", TextArea).text == ""
        assert main.query_one(CompactionStatus).state == "idle"
        assert main.query_one("#fields-tabs", TabbedContent).active == "fields-tree-tab"
        await pilot.press("s")  # nothing to save: said, and no dialog
        await settle(pilot)
        assert app.screen is main
        assert any("no summary yet" in str(n.message) for n in app._notifications)
        await pilot.press("c")  # the new session compacts as the first did
        await settle(pilot)
        assert inspector.result is not None
        assert "test_cli_flags" in str(inspector.result.request.prompt)
