"""Finding things (issue 14): the palette lists every action, the footer keeps ``? Help``,
help shows keys as people read them, and another session opens without restarting."""

from __future__ import annotations

import shutil
from pathlib import Path

from textual.command import CommandPalette
from textual.widgets import DataTable
from textual.widgets._footer import FooterKey

from goose_tui.recent import load_recent
from goose_tui.tui.app import GooseTUI
from goose_tui.tui.commands import ActionCommands
from goose_tui.tui.screens.help import HelpScreen, binding_lines
from goose_tui.tui.screens.session_picker import SessionPicker
from goose_tui.tui.widgets.goose_footer import GooseFooter
from tests.conftest import SAMPLES

from .conftest import settle, wait_until


async def _palette_names(app: GooseTUI) -> list[str]:
    provider = ActionCommands(app.screen)
    return [hit.text async for hit in provider.discover()]  # type: ignore[attr-defined]


async def test_palette_lists_every_action_of_the_screen(session_file: Path) -> None:
    app = GooseTUI(session_file)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
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
        await pilot.press(*"Timeline (g)")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert type(app.screen).__name__ == "TimelineScreen"


async def test_footer_shows_help_first_and_the_important_keys_when_narrow(
    session_file: Path,
) -> None:
    for width in (200, 100, 80):
        app = GooseTUI(session_file)
        async with app.run_test(size=(width, 40)) as pilot:
            await settle(pilot)
            keys = [k for k in app.main.query(FooterKey) if "-command-palette" not in k.classes]
            assert keys[0].action in ("help", "app.help")
            assert keys[0].region.right <= width  # visible
            if width <= 100:
                actions = [k.action for k in keys[:4]]
                assert actions[1:] == ["compact", "save", "retention"], actions


async def test_the_footer_shows_only_keys_that_fit_whole(session_file: Path) -> None:
    # At 100 columns the last key was cut at the edge and a character of it showed beside
    # the palette's key ("^p palettes": a tmux walk-through). The footer's own arithmetic
    # of a key's width is checked against Textual's layout of it.
    from goose_tui.tui.widgets.goose_footer import key_width, palette_width

    for width in (80, 100, 120, 200):
        app = GooseTUI(session_file)
        async with app.run_test(size=(width, 40)) as pilot:
            await settle(pilot)
            for _ in range(3):  # a few focus changes: each rebuilds the footer
                footer = app.main.query_one(GooseFooter)
                await wait_until(  # the rebuilt keys laid out
                    pilot, lambda f=footer: all(k.region.width for k in f.query(FooterKey))
                )
                keys = list(footer.query(FooterKey))
                bound = [k for k in keys if "-command-palette" not in k.classes]
                [palette] = [k for k in keys if "-command-palette" in k.classes]

                def laid_out(key: FooterKey) -> int:
                    return key.outer_size.width + key.styles.margin.width

                assert palette.region.right + palette.styles.margin.right == width
                assert laid_out(palette) == palette_width(palette.key_display, palette.description)
                for key in bound:
                    assert laid_out(key) == key_width(
                        key.key_display, key.description, footer.compact
                    ), (width, key.key_display)
                    assert key.region.right <= palette.region.x, (width, key.key_display)
                assert bound[0].action in ("help", "app.help")
                await pilot.press("tab")
                await settle(pilot)


async def test_a_focus_change_redraws_the_footer_without_restyling_each_key(
    session_file: Path, monkeypatch
) -> None:
    """Each focus change rebuilds the footer's keys. Textual's key starts compact and is then
    bound to the footer's width mode, and each class change restyled the screen's stylesheet
    for that key alone: 18 restyles per focus change at 80 columns, 36 at 160 (11 s of the
    suite's CPU). A key is now built in the footer's mode, so it looks the same and costs none."""
    from textual.app import App

    restyled: list[str] = []
    real = App.update_styles

    def counting(self: App, node, animate: bool = True) -> None:
        restyled.append(type(node).__name__)
        real(self, node, animate)

    for width in (80, 160):
        app = GooseTUI(session_file)
        async with app.run_test(size=(width, 30)) as pilot:
            await settle(pilot)
            monkeypatch.setattr(App, "update_styles", counting)
            for _ in range(4):
                await pilot.press("tab")
                await settle(pilot)
            monkeypatch.setattr(App, "update_styles", real)
            keys = list(app.main.query(FooterKey))
            bound = [k for k in keys if "-command-palette" not in k.classes]
            assert len(bound) >= 5
            assert all(k.compact == (width <= 100) for k in bound)
            assert all(("-compact" in k.classes) == (width <= 100) for k in bound)
            palette = [k for k in keys if "-command-palette" in k.classes]
            assert [("-compact" in k.classes) for k in palette] == [True]  # as Textual draws it
        assert "FooterKey" not in restyled, (width, restyled.count("FooterKey"))
        restyled.clear()


async def test_the_footer_is_rebuilt_only_when_its_keys_change(session_file: Path) -> None:
    """Textual rebuilds the footer after every focus change and resize: four times as the app
    starts, twice per tab, ~10 ms of the event loop each. Now only when what it shows changes;
    it still follows the focus."""
    app = GooseTUI(session_file)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        kept = changed = 0
        before = list(app.main.query(FooterKey))
        for _ in range(8):
            await pilot.press("tab")
            await settle(pilot)
            after = list(app.main.query(FooterKey))
            same_keys = [k.description for k in after] == [k.description for k in before]
            if same_keys:
                assert all(a is b for a, b in zip(after, before, strict=True)), app.focused
                kept += 1
            else:
                changed += 1
            before = after
        assert kept and changed


async def test_help_lists_keys_as_people_read_them(session_file: Path) -> None:
    app = GooseTUI(session_file)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        lines = binding_lines(app.main)
        text = "\n".join(lines)
        assert "question_mark" not in text and "slash" not in text
        assert any(line.split() == ["?", "Help"] for line in lines)
        assert any(line.split()[:1] == ["/"] and "Search prompt" in line for line in lines)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)


async def test_open_another_session_without_restarting(tmp_path: Path) -> None:
    first = tmp_path / "a" / "short.jsonl"
    first.parent.mkdir()
    shutil.copy(SAMPLES / "short.jsonl", first)
    second = tmp_path / "b" / "long_session.jsonl"
    second.parent.mkdir()
    shutil.copy(SAMPLES / "long_session.jsonl", second)
    app = GooseTUI(second)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
    app = GooseTUI(first)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        assert app.inspector.session is not None and app.inspector.session.source_path == first
        assert [i.path for i in load_recent()][:2] == [first.resolve(), second.resolve()]
        await pilot.press("o")
        await settle(pilot)
        picker = app.screen
        assert isinstance(picker, SessionPicker)
        table = picker.query_one(DataTable)
        names = [str(table.get_row_at(r)[0]) for r in range(table.row_count)]
        assert names[0].startswith("recent · ") and str(second.resolve()) in names[1]
        await pilot.press("down", "enter")
        await settle(pilot)
        assert app.screen is app.main
        assert (
            app.inspector.session is not None
            and app.inspector.session.source_path == second.resolve()
        )
