"""Finding things (issue 14): the palette lists every action, the footer keeps ``? Help``,
help shows keys as people read them, and another session opens without restarting."""

from __future__ import annotations

import shutil
from pathlib import Path

from textual.command import CommandPalette
from textual.widgets import DataTable

from goose_tui.recent import load_recent
from goose_tui.tui.app import GooseTUI
from goose_tui.tui.commands import Commands
from goose_tui.tui.screens.help import HelpScreen, binding_lines
from goose_tui.tui.screens.session_picker import SessionPicker
from goose_tui.tui.widgets.goose_footer import GooseFooter
from tests.conftest import SAMPLES

from .conftest import opened_before, palette_options, paste, settle, wait_until


async def _palette_names(app: GooseTUI) -> list[str]:
    provider = Commands(app.screen)
    return [hit.text async for hit in provider.discover()]  # type: ignore[attr-defined]


async def test_the_palette_lists_its_entries_in_one_order_each_time(session_file: Path) -> None:
    # The screen's actions, the models and Goose versions, then Textual's own commands: one
    # provider, so not in the order several providers' entries happened to arrive.
    app = GooseTUI(session_file)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        listed = [name for name, _, _ in Commands(app.screen).listed()]
        assert listed[0].endswith(")")  # an action, with its key
        system = [c.title for c in app.get_system_commands(app.screen) if c.discover]
        assert listed[-len(system) :] == sorted(system)
        for _ in range(2):
            await pilot.press("ctrl+p")
            await wait_until(pilot, lambda: len(palette_options(app)) == len(listed))
            assert palette_options(app) == listed
            await pilot.press("escape")
            await settle(pilot)


async def test_hover_highlights_a_key_the_palette_lists_every_action_and_help_fits_the_screen(
    session_file: Path,
) -> None:
    # `?` on the compare, retention, timeline and context screens began with "… then four
    # panes … Press c to compact", which none of them has.
    from textual.widgets import Static

    app = GooseTUI(session_file)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        footer = app.main.query_one(GooseFooter)
        key = footer.keys[2]
        hover = footer.get_component_rich_style("footer--hover", partial=True).bgcolor

        def backgrounds() -> list[object]:
            return [seg.style.bgcolor for seg in footer.render_line(0) for _ in seg.text]

        assert hover not in backgrounds()
        await pilot.hover(GooseFooter, offset=(key.start + 1, 0))
        await pilot.pause()
        assert footer.hovered == 2
        drawn = backgrounds()
        assert [n for n, bg in enumerate(drawn) if bg == hover] == list(range(key.start, key.end))
        # The palette lists every action of the screen.
        names = await _palette_names(app)
        for expected in (
            "Compact (c)",
            "Save (s)",
            "Timeline (g)",
            "Lost? (l)",
            "Compare (v)",
            "Context (u)",
            "Focus (k)",
            "Prompt tmpl (T)",  # shown nowhere in the footer, still in the palette
            "Help (?)",
            "Open session (o)",
            "Open another session…",
        ):
            assert expected in names, (expected, names)
        await pilot.press("g")
        await settle(pilot)
        timeline = await _palette_names(app)
        assert "Zoom to peak (z)" in timeline and "Back (esc)" in timeline
        # running an entry runs the action on its screen
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("ctrl+p")
        await settle(pilot)
        assert isinstance(app.screen, CommandPalette)
        await paste(pilot, "Timeline (g)")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert type(app.screen).__name__ == "TimelineScreen"
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is app.main
        # Help lists keys as people read them.
        lines = binding_lines(app.main)
        text = "\n".join(lines)
        assert "question_mark" not in text and "slash" not in text
        assert any(line.split()[-1] == "Help" and line.split()[0] == "?" for line in lines)
        assert any(line.split()[:1] == ["/"] and "Search prompt" in line for line in lines)
        # Every key of an action, not the first found: `q` quits as ctrl+q does (a
        # walk-through found only "^q  Quit" listed).
        assert any(set(line.split()) == {"q", "/", "^q", "Quit"} for line in lines), text
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        main_intro = str(app.screen.query_one("#help-intro", Static).render())
        assert "four panes" in main_intro
        await pilot.press("escape")
        await pilot.press("c")
        await settle(pilot)
        for key, words in (("l", "retention"), ("g", "timeline"), ("u", "fills the context")):
            await pilot.press(key)
            await settle(pilot)
            under = app.screen
            assert under is not app.main, key
            await pilot.press("question_mark")
            await settle(pilot)
            assert isinstance(app.screen, HelpScreen)
            intro = str(app.screen.query_one("#help-intro", Static).render())
            assert words in intro.lower() and "four panes" not in intro, (key, intro)
            keys = str(app.screen.query_one("#help-keys", Static).render())
            assert keys.startswith("Keys")
            await pilot.press("escape", "escape")
            await settle(pilot)
            assert app.screen is app.main, key


def _drawn(footer: GooseFooter) -> str:
    """The footer's line as the screen draws it."""
    return footer.render_line(0).text


async def test_the_footer_shows_help_first_and_only_keys_that_fit_whole(
    session_file: Path,
) -> None:
    # At 100 columns the last key was cut at the edge and a character of it showed beside
    # the palette's key ("^p palettes": a tmux walk-through). Each key is drawn whole, where
    # the footer says it is, and a click there presses it. A focus change redraws the
    # footer with the focused widget's keys. One app, resized to each width.
    app = GooseTUI(session_file)
    async with app.run_test(size=(80, 40)) as pilot:
        await settle(pilot)
        first_focus = app.focused
        seen: set[tuple[str, ...]] = set()
        for width in (80, 100, 120, 200):
            await pilot.resize_terminal(width, 40)
            app.set_focus(first_focus)
            await settle(pilot)
            # Help first, and narrow the important keys next.
            footer = app.main.query_one(GooseFooter)
            keys = [k for k in footer.keys if not k.palette]
            assert keys[0].action in ("help", "app.help")
            assert keys[0].end <= width  # visible
            assert _drawn(footer).startswith(" ? Help " if width > 100 else "? Help ")
            if width <= 100:
                actions = [k.action for k in keys[:4]]
                # Narrow, the panes are tabs: the key that switches them comes next.
                assert actions[1:] == ["compact", "next_pane(1)", "save"], actions
            for _ in range(6 if width == 200 else 3):  # the keys change with the focus
                footer = app.main.query_one(GooseFooter)
                line = _drawn(footer)
                assert len(line) == width
                seen.add(tuple(k.description for k in footer.keys))
                assert all(k.description in line for k in footer.keys)
                bound = [k for k in footer.keys if not k.palette]
                [palette] = [k for k in footer.keys if k.palette]
                assert palette.end == width
                assert line[palette.start :].strip() == f"▏{palette.key_display} palette"
                for key in bound:
                    drawn = line[key.start : key.end]
                    assert drawn.split() == [key.key_display, *key.description.split()]
                    assert key.end <= palette.start, (width, key.key_display)
                assert line[bound[-1].end : palette.start].strip() == ""
                assert bound[0].action in ("help", "app.help")
                await pilot.press("tab")
                await settle(pilot)
            help_key = app.main.query_one(GooseFooter).keys[0]
            await pilot.click(GooseFooter, offset=(help_key.start + 1, 0))
            await settle(pilot)
            assert isinstance(app.screen, HelpScreen)
            await pilot.press("escape")
            await settle(pilot)
            assert app.screen is app.main
        assert len(seen) > 1  # the keys followed the focus


async def test_open_another_session_without_restarting(tmp_path: Path) -> None:
    first = tmp_path / "a" / "short.jsonl"
    first.parent.mkdir()
    shutil.copy(SAMPLES / "short.jsonl", first)
    second = tmp_path / "b" / "long_session.jsonl"
    second.parent.mkdir()
    shutil.copy(SAMPLES / "long_session.jsonl", second)
    opened_before(second)
    app = GooseTUI(first)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.inspector.session is not None and app.inspector.session.source_path == first
        assert [i.path for i in load_recent()][:2] == [first.resolve(), second.resolve()]
        await pilot.press("o")
        await settle(pilot)
        picker = app.screen
        assert isinstance(picker, SessionPicker)
        table = picker.query_one(DataTable)
        names = [str(table.get_row_at(r)[1]) for r in range(table.row_count)]
        files = [str(table.get_row_at(r)[-1]) for r in range(table.row_count)]
        assert names[0].startswith("recent · ") and files[1] == str(second.resolve())
        # The recent list knows when a session was opened, not when it was updated.
        assert str(table.get_row_at(0)[0]).startswith("opened ")
        await pilot.press("down", "enter")
        await settle(pilot)
        assert app.screen is app.main
        assert (
            app.inspector.session is not None
            and app.inspector.session.source_path == second.resolve()
        )


async def test_the_picker_says_when_a_folder_has_no_sessions_or_none_match_or_some_left_out(
    tmp_path: Path,
) -> None:
    # An empty folder showed a blank table and the usual "type to filter" title, nothing
    # saying there was nothing to open; a corrupt sessions.db was left out without a word.
    (tmp_path / "notes.txt").write_text("not a session\n")
    (tmp_path / "sessions.db").write_bytes(b"SQLite format 3\x00" + b"\xff" * 200)
    app = GooseTUI(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, SessionPicker)
        title = str(app.screen.query_one("#picker-title").render())
        assert title.startswith(f"No sessions in {tmp_path}"), title
        toasts = [str(n.message) for n in app._notifications]
        assert any(
            t.startswith("left out 1 session file that cannot be read (first: ")
            and str(tmp_path / "sessions.db") in t
            for t in toasts
        ), toasts
    app = GooseTUI(SAMPLES)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, SessionPicker) and app.screen.shown
        await pilot.press(*"zzzq")
        await settle(pilot)
        title = str(app.screen.query_one("#picker-title").render())
        assert title.startswith("No session matches 'zzzq'"), title
