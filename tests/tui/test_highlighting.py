"""Syntax highlighting and readable text (issue 14): pygments spans in the theme's colours,
expanded tool items with real newlines and pretty JSON, the coloured compare diff, and the
input pane wrapping at its width."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.color import Color

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.widgets.code_editor import CodeEditor
from goose_tui.tui.widgets.conversation_view import ConversationView
from goose_tui.tui.widgets.text_viewer import TextViewer

from .conftest import settle, wait_until


async def test_expanded_tool_items_have_real_newlines_and_pretty_json(tmp_path: Path) -> None:
    payload = {"files": ["a.py", "b.py"], "count": 2}
    session = tmp_path / "s.jsonl"
    lines = [
        {"description": "x"},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "toolRequest",
                    "id": "c1",
                    "toolCall": {
                        "status": "success",
                        "value": {"name": "shell", "arguments": {"command": "ls\npwd"}},
                    },
                }
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "toolResponse",
                    "id": "c1",
                    "toolResult": {
                        "status": "success",
                        "value": {
                            "content": [
                                {"type": "text", "text": "line one\nline two"},
                                {"type": "text", "text": json.dumps(payload)},
                            ]
                        },
                    },
                }
            ],
        },
    ]
    session.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    app = GooseTUI(session)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        view = app.main.query_one(ConversationView)
        view.focus()
        await pilot.press("enter", "down", "enter")
        await settle(pilot)
        rows = [view.row_text(i) for i in range(view.row_count)]
        assert "  line one" in rows and "  line two" in rows  # not one escaped line
        assert '    "count": 2' in rows  # the JSON text pretty-printed
        assert '    "command": "ls\\npwd"' in rows  # tool arguments as pretty JSON
        pretty_row = rows.index('    "count": 2')
        spans = view._row(pretty_row)[3]
        assert {kind for _, _, kind in spans} >= {"number"}


class EditorApp(App[None]):
    def compose(self) -> ComposeResult:
        yield CodeEditor('{\n  "user_intent": ["fix it"],\n  "n": 1\n}', syntax="json")


async def test_json_editor_highlights_in_theme_colours() -> None:
    app = EditorApp()
    async with app.run_test(size=(60, 10)) as pilot:
        await pilot.pause()
        editor = app.query_one(CodeEditor)
        names = {name for spans in editor.spans.values() for _, _, name in spans}
        assert {"string", "number"} <= names
        success = Color.parse(app.theme_variables["success"]).rich_color
        # Drawn in the theme's colour: the string on line 1 (no cursor there).
        drawn = {
            seg.text for seg in editor.render_line(1) if seg.style and seg.style.color == success
        }
        assert '"fix it"' in "".join(drawn)
        await pilot.press("end", "x")  # an edit re-highlights
        assert editor.spans


async def test_a_big_json_is_highlighted_off_the_event_loop_after_each_edit() -> None:
    # TextArea re-highlights after every edit: pygments over a 100 KB summary JSON on the
    # event loop took ~0.3 s per key press. Over SYNC_HIGHLIGHT_CHARS it runs in a thread;
    # the highlights that arrive are those of the edited text.
    import threading

    from goose_tui.tui.widgets import code_editor
    from goose_tui.tui.widgets.text_viewer import SYNC_HIGHLIGHT_CHARS

    class EditorApp(App[None]):
        def compose(self) -> ComposeResult:
            yield CodeEditor("{}", syntax="json")

    big = json.dumps({"user_messages": [f"message {n}" for n in range(2_000)]}, indent=2)
    assert len(big) > SYNC_HIGHLIGHT_CHARS
    threads: set[str] = set()
    real = code_editor.highlight_lines

    def recording(text: str, language: str | None):  # type: ignore[no-untyped-def]
        threads.add(threading.current_thread().name)
        return real(text, language)

    app = EditorApp()
    async with app.run_test() as pilot:
        editor = app.query_one(CodeEditor)
        code_editor.highlight_lines = recording  # type: ignore[assignment]
        try:
            editor.load_text(big)
            await settle(pilot)
            editor.insert('"x": 1,\n', (1, 2))
            await settle(pilot)
        finally:
            code_editor.highlight_lines = real  # type: ignore[assignment]
        assert threads and threading.main_thread().name not in threads
        assert editor.spans == code_editor._spans_by_line(editor.text, "json")
        assert editor.spans[1]  # the inserted line is coloured too


async def test_the_bracket_at_the_cursor_is_matched_as_textual_matches_it() -> None:
    # CodeEditor.find_matching_bracket scans with a regex; TextArea's own walks a character
    # at a time (0.24 s for a big summary JSON with the cursor on its first "{").
    import random

    from textual.widgets import TextArea

    rng = random.Random(3)
    pieces = ["{", "}", "[", "]", "(", ")", "a", " ", '"', "\n", "é🚀"]
    texts = [
        '{\n  "a": [1, (2)],\n  "b": {}\n}',
        "",
        "}{",
        *("".join(rng.choices(pieces, k=rng.randrange(1, 60))) for _ in range(300)),
    ]
    app = EditorApp()
    async with app.run_test():
        editor = app.query_one(CodeEditor)
        for text in texts:
            editor.load_text(text)
            lines = text.split("\n")
            for row, line in enumerate(lines):
                for column, character in enumerate(line):
                    at = (row, column)
                    ours = editor.find_matching_bracket(character, at)
                    assert ours == TextArea.find_matching_bracket(editor, character, at), (text, at)


async def test_the_input_wraps_and_the_hidden_json_and_markdown_source_load_when_shown(
    session_file: Path, reply_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The editor of the fields tab not shown, and the summary's Markdown source behind its
    # rendered view, wait until they are shown: after a compaction of a 53 MB session,
    # loading the summary JSON into the hidden editor held the event loop ~0.5 s
    # (app_big_session.py), and highlighting the hidden source ~50-75 ms.
    from textual.widgets import TabbedContent

    from goose_tui.tui.widgets import text_viewer

    highlighted: list[int] = []
    real = text_viewer.highlight_lines

    def recording(text: str, syntax: str):  # noqa: ANN202
        highlighted.append(len(text))
        return real(text, syntax)

    monkeypatch.setattr(text_viewer, "highlight_lines", recording)
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        # The input pane wraps at its width in the four-pane layout.
        viewer = app.main.query_one("#input-view", TextViewer)
        width = viewer.scrollable_content_region.width
        rows = [
            "".join(seg.text for seg in viewer.render_line(y)).rstrip()
            for y in range(viewer.size.height)
        ]
        assert all(len(row) <= width for row in rows)
        first_line = viewer.text.split("\n", 1)[0]
        assert len(first_line) > width  # the case the issue saw cut
        assert viewer.virtual_size.width == width  # nothing to scroll sideways
        joined = []
        for row in rows:
            joined.append(row)
            if len(" ".join(joined).split()) >= len(first_line.split()):
                break
        assert " ".join(" ".join(joined).split()) == " ".join(first_line.split())
        await pilot.press("c")
        await wait_until(pilot, lambda: app.inspector.result is not None)
        await settle(pilot)
        source = app.main.query_one("#preview-source", TextViewer)
        assert highlighted == [] and source._syntax_spans == []
        main = app.main
        editor = main.query_one("#json-editor", CodeEditor)
        loaded = main.inspector.loaded.json
        assert main.query_one("#fields-tabs", TabbedContent).active == "fields-tree-tab"
        assert editor.text == loaded and loaded.startswith("{")
        assert editor.document.text == ""  # not wrapped, highlighted or matched yet
        main.query_one("#fields-tabs", TabbedContent).active = "fields-json-tab"
        await settle(pilot)
        assert editor.document.text == loaded
        shown = "".join(seg.text for seg in editor.render_line(0))
        assert loaded.split("\n", 1)[0] in shown
        assert main.inspector.unsaved_edits() == []  # loading it is no hand edit
        await pilot.press("m")
        await settle(pilot)
        assert highlighted == [len(source._lines.text)]
        assert source._syntax_spans  # drawn highlighted now it is shown
