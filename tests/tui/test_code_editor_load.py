"""A big summary JSON in the editor: the text is split and soft-wrapped in a thread, once, at
the width it is shown at (not on the event loop, once for the text, its width and its scroll
bar), keys that would edit it are refused until it is in, and a new width wraps it in a
thread too, keeping edits made meanwhile."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.widgets.text_area import WrappedDocument

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.widgets.code_editor import CodeEditor
from goose_tui.tui.wrapping import SYNC_WRAP_LINES

from .conftest import settle, wait_until


def _big_reply(tmp_path: Path, items: int) -> Path:
    summary = {"user_intent": [f"goal number {i} of the session" for i in range(items)]}
    reply = tmp_path / "huge_reply.txt"
    reply.write_text("<analysis>a</analysis>\n" + json.dumps(summary), encoding="utf-8")
    return reply


async def test_e_on_a_big_summary_wraps_it_in_a_thread_and_keys_meanwhile_are_not_typed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wrapped_on: list[tuple[str, int]] = []  # (thread, lines) of every wrap of the text
    gate = threading.Event()
    real_wrap = WrappedDocument.wrap

    def recording_wrap(self, width, tab_width=None):  # type: ignore[no-untyped-def]
        wrapped_on.append((threading.current_thread().name, self.document.line_count))
        if threading.current_thread() is not threading.main_thread():
            assert gate.wait(60)  # the editor is getting ready until the gate opens
        real_wrap(self, width, tab_width)

    monkeypatch.setattr(WrappedDocument, "wrap", recording_wrap)
    reply = _big_reply(tmp_path, SYNC_WRAP_LINES + 1000)
    app = GooseTUI(Path("sample_sessions/short.jsonl"), model=f"replay:{reply}")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        main = app.main
        editor = main.query_one("#json-editor", CodeEditor)
        loaded = app.inspector.loaded.json
        assert loaded.count("\n") > SYNC_WRAP_LINES
        bells: list[bool] = []
        monkeypatch.setattr(app, "bell", lambda: bells.append(True))
        wrapped_on.clear()
        await pilot.press("e")
        assert app.focused is editor
        # Pressed while it gets ready: refused, not typed into the JSON once it is in.
        await pilot.press("x", "enter", "backspace")
        await paste_into(pilot, "pasted")
        assert editor.text == loaded and app.inspector.edits.json == loaded
        assert editor.getting_ready and len(bells) == 4
        gate.set()
        await settle(pilot)
        await wait_until(pilot, lambda: not editor.getting_ready)
        assert editor.document.text == loaded == editor.text
        assert app.inspector.edits.json == loaded and app.inspector.json_state != "invalid"
        big = [thread for thread, lines in wrapped_on if lines > SYNC_WRAP_LINES]
        assert big and threading.main_thread().name not in big
        # Wrapped at the width it is shown at (the scroll bar foreseen): once.
        assert len(big) == 1
        assert editor.wrapped_document.wrapped_at == (editor.wrap_width, editor.indent_width)
        assert editor.wrap_width > 0
        # Then it is an editor as before: typing, undo.
        editor.move_cursor((1, 0))
        await pilot.press("z")
        assert editor.text != loaded and editor.document[1].startswith("z")
        await pilot.press("ctrl+z")
        assert editor.text == loaded
        await settle(pilot)


async def paste_into(pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    from textual import events

    pilot.app.focused.post_message(events.Paste(text))
    await pilot.pause()


async def test_a_new_width_wraps_a_big_text_in_a_thread_and_keeps_edits_made_meanwhile(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class EditorApp(App[None]):
        def compose(self) -> ComposeResult:
            yield CodeEditor(id="editor")

    threads: list[str] = []
    gate = threading.Event()
    real_wrap = WrappedDocument.wrap

    def recording_wrap(self, width, tab_width=None):  # type: ignore[no-untyped-def]
        threads.append(threading.current_thread().name)
        if threading.current_thread() is not threading.main_thread():
            assert gate.wait(60)
        real_wrap(self, width, tab_width)

    text = "\n".join(f"line {n} " + "word " * (n % 30) for n in range(SYNC_WRAP_LINES * 2))
    app = EditorApp()
    async with app.run_test(size=(90, 30)) as pilot:
        editor = app.query_one(CodeEditor)
        editor.load_text(text)
        await settle(pilot)
        assert editor.text == text and not editor.getting_ready
        monkeypatch.setattr(WrappedDocument, "wrap", recording_wrap)
        threads.clear()
        await pilot.resize_terminal(70, 30)
        await pilot.pause()
        editor.insert("edited while wrapping ", (5, 0))  # its rows: the old width's, kept
        gate.set()
        await settle(pilot)
        assert threads and threading.main_thread().name not in threads
        assert editor.document[5].startswith("edited while wrapping")
        wrapped = editor.wrapped_document
        fresh = WrappedDocument(editor.document, editor.wrap_width, editor.indent_width)
        assert wrapped.wrapped_at == (editor.wrap_width, editor.indent_width)
        assert wrapped.lines == fresh.lines
        assert editor.virtual_size.height == fresh.height
