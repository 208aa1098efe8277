"""Keys and the palette on the main screen: what they find, what they act on, and how a
narrow terminal's tabs are switched."""

from __future__ import annotations

from pathlib import Path

from textual.command import CommandList, CommandPalette
from textual.widgets import Tabs

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.screens.help import HelpScreen
from goose_tui.tui.widgets.goose_footer import GooseFooter

from .conftest import settle, wait_until


def _palette_lines(app: GooseTUI) -> list[str]:
    results = app.screen.query(CommandList)
    if not results:
        return []
    found = results.first()
    prompts = (found.get_option_at_index(i).prompt for i in range(found.option_count))
    return [str(getattr(prompt, "plain", prompt)) for prompt in prompts]


async def test_the_palette_shows_brackets_in_a_description_as_text_and_probe_finds_lost(
    session_file: Path,
) -> None:
    app = GooseTUI(session_file)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for query, found in (
            ("goose-sdk-wheel", lambda line: "[role]: lines: released Goose" in line),
            ("probe", lambda line: line.startswith("Lost? (l)")),
        ):
            await pilot.press("ctrl+p")
            await settle(pilot)
            assert isinstance(app.screen, CommandPalette)
            await pilot.press(*query)
            # The palette searches after a short debounce, in a task of its own.
            await wait_until(pilot, lambda found=found: any(map(found, _palette_lines(app))))
            await pilot.press("escape")
            await settle(pilot)


async def test_wide_no_pane_key_and_y_without_a_focused_pane_copies_the_pane_in_view(
    session_file: Path,
) -> None:
    app = GooseTUI(session_file)
    copied: list[str] = []
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        # Wide, the panes are side by side: no key to switch them.
        footer = app.main.query_one(GooseFooter).render_line(0).text
        assert "Next pane" not in footer, footer
        app.copy_to_clipboard = copied.append  # type: ignore[method-assign]
        app.main.query_one("#conversation").focus()
        await pilot.press("y")
        await settle(pilot)
        assert copied == [str(app.inspector.prompt.text)]  # before a summary: the prompt
        await pilot.press("c")
        await settle(pilot)
        app.main.query_one("#conversation").focus()
        await pilot.press("y")
        await settle(pilot)
        assert copied[-1] == app.inspector.summary.text  # then the summary
    notes = [n.message for n in app._notifications]
    assert not any("focus a pane first" in note for note in notes), notes


async def test_narrow_tabs_are_switched_by_keys_the_footer_and_help_name(
    session_file: Path,
) -> None:
    app = GooseTUI(session_file)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        footer = app.main.query_one(GooseFooter).render_line(0).text
        assert "] Next pane" in footer, footer
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert app.main.query_one(Tabs).active == "tab-analysis"
        await pilot.press("left_square_bracket", "left_square_bracket")
        await settle(pilot)
        assert app.main.query_one(Tabs).active == "tab-markdown"
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        intro = str(app.screen.query_one("#help-intro").render())
        keys = str(app.screen.query_one("#help-keys").render())
    assert "the four panes are tabs: ] and [ switch them" in intro, intro
    assert "Next pane" in keys and "Previous pane" in keys, keys


async def test_the_title_line_at_80_columns_ends_in_an_ellipsis(session_file: Path) -> None:
    app = GooseTUI(session_file)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        title = app.main.query_one("#session-title").render_line(0).text.rstrip()
    assert title.endswith("…") and "messages · /" in title, title
