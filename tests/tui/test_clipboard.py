"""Copy when the terminal ignores OSC 52 (issue 14): the system tool when there is one, else
a toast that says so and W saves the text to a file."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.clipboard import clipboard_tools

from .conftest import settle


def _tool(folder: Path, name: str, sink: Path) -> None:
    """An executable standing in for the system's clipboard tool: stdin to ``sink``."""
    script = folder / name
    script.write_text(f'#!/bin/sh\ncat > "{sink}"\n', encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)


async def _copy_input_pane(app: GooseTUI, pilot) -> None:
    await settle(pilot)
    app.main.query_one("#input-view").focus()
    await pilot.press("y")
    await settle(pilot)


async def test_copy_goes_through_xclip_when_there_is_one(
    session_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    sink = tmp_path / "clipboard.txt"
    _tool(bin_dir, "xclip", sink)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert clipboard_tools()[0][0] == "xclip"
    app = GooseTUI(session_file)
    async with app.run_test(size=(120, 40)) as pilot:
        await _copy_input_pane(app, pilot)
        assert sink.read_text(encoding="utf-8") == app.inspector.prompt.text
        notes = [n.message for n in app._notifications]
        assert any("via xclip" in n for n in notes)


@pytest.fixture
def no_clipboard_tool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No clipboard tool on PATH and no display: the copy cannot be confirmed."""
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert clipboard_tools() == []


async def test_without_a_tool_the_toast_says_so_and_w_saves_a_copy_or_an_error_or_refuses(
    session_file: Path, tmp_path: Path, no_clipboard_tool: None
) -> None:
    from goose_tui.tui.screens.error_modal import ErrorModal

    before = session_file.read_bytes()
    app = GooseTUI(session_file)
    async with app.run_test(size=(120, 40)) as pilot:
        await _copy_input_pane(app, pilot)
        notes = [n.message for n in app._notifications]
        assert any("could not be confirmed" in n and "Press W" in n for n in notes)
        # Over the open session: refused before asking to replace it (it asked "… already
        # exists. Replace it?" and, after y, refused: a question for nothing).
        await pilot.press("W")
        await settle(pilot)
        app.screen.query_one("#prompt-input").value = str(session_file)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ErrorModal)
        assert "refusing to write over an input file" in app.screen.message
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is app.main
        await pilot.press("W")
        await settle(pilot)
        target = tmp_path / "copied.txt"
        field = app.screen.query_one("#prompt-input")
        field.value = str(target)
        await pilot.press("enter")
        await settle(pilot)
        assert target.read_text(encoding="utf-8") == app.inspector.prompt.text
        # The error dialog's copy said "Press W to save it to a file", but W did nothing
        # while the dialog was open.
        app.show_error("Compaction failed", "the model answered 500")
        await settle(pilot)
        assert isinstance(app.screen, ErrorModal)
        await pilot.press("y")
        await settle(pilot)
        await pilot.press("W")
        await settle(pilot)
        target = tmp_path / "error.txt"
        app.screen.query_one("#prompt-input").value = str(target)
        await pilot.press("enter")
        await settle(pilot)
        assert "the model answered 500" in target.read_text(encoding="utf-8")
    assert session_file.read_bytes() == before
