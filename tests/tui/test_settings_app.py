"""The settings file in the app (issue 14): theme and keymap applied, the picked theme saved."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from goose_tui.settings import SettingsProblems, config_path, load_settings
from goose_tui.tui.app import GooseTUI, settings_title
from goose_tui.tui.widgets.compaction_status import CompactionStatus

from .conftest import settle


async def test_theme_and_keymap_from_settings_and_the_picked_theme_is_saved(
    session_file: Path,
) -> None:
    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_text('theme = "nord"\n\n[keymap]\n"main.compact" = "C"\n')
    settings, _ = load_settings()
    app = GooseTUI(session_file, theme=settings.theme, keymap=settings.keymap)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.theme == "nord"
        await pilot.press("c")  # rebound: c no longer compacts
        await settle(pilot)
        assert app.main.query_one(CompactionStatus).state != "done"
        await pilot.press("C")
        await settle(pilot)
        assert app.main.query_one(CompactionStatus).state == "done"
        app.theme = "gruvbox"
        await settle(pilot)
    assert load_settings()[0].theme == "gruvbox"
    assert load_settings()[0].keymap == {"main.compact": "C"}


async def test_a_settings_problem_is_shown_once_the_app_is_up(session_file: Path) -> None:
    problems = SettingsProblems(("not valid TOML: [x] (line 1)",))
    app = GooseTUI(session_file, settings_problems=problems)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        [toast] = [n for n in app._notifications if n.title == settings_title(1)]
        message = f"in {config_path()}:\n• not valid TOML: [x] (line 1)"
        assert toast.message == message and toast.severity == "warning"
        assert "[x]" in str(toast.message)  # the text as written, never markup


async def test_a_keymap_id_no_binding_has_is_named_once_the_app_is_up(
    session_file: Path,
) -> None:
    # A walk-through: "bogus.binding" = "z" was ignored in silence, while a bad threshold or
    # theme is named. The ids of screens not opened yet (the timeline's) are known too.
    keymap = {"bogus.binding": "z", "main.compact": "C", "timeline.zoom": "Z", "main.compcat": "q"}
    app = GooseTUI(session_file, keymap=keymap)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        [toast] = [n for n in app._notifications if n.title == settings_title(1)]
        assert toast.message == (
            f"in {config_path()}:\n• [keymap]: no binding has the id 'bogus.binding', "
            "'main.compcat' (did you mean 'main.compact'?)"
        )
        assert toast.severity == "warning"


async def test_a_keymap_value_that_is_no_key_is_named_and_the_default_kept(
    session_file: Path,
) -> None:
    # A walk-through: "main.compact" = "ctrl+shift+alt+nonsense" was taken: c no longer
    # compacted and the footer offered "shift+alt+^nonsense Compact"; "main.save" = "" was
    # ignored in silence.
    from goose_tui.tui.widgets.compaction_status import compact_key

    keymap = {
        "main.compact": "ctrl+shift+alt+nonsense",
        "main.save": "",
        "main.timeline": "G,f5",
        "main.context": "hyper+x",
    }
    app = GooseTUI(session_file, keymap=keymap)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        [toast] = [n for n in app._notifications if n.title == settings_title(1)]
        assert toast.message == (
            f"in {config_path()}:\n• [keymap]: 'main.compact' = 'ctrl+shift+alt+nonsense' "
            "('nonsense' is no key); 'main.save' = '' (no key)"
        )
        assert compact_key(app) == "c"  # the default kept
        await pilot.press("c")
        await settle(pilot)
        assert app.inspector.result is not None  # c still compacts
        await pilot.press("f5")
        await settle(pilot)
        assert type(app.screen).__name__ == "TimelineScreen"  # the good entries apply


async def test_a_rebound_key_keeps_its_place_in_the_footer(session_file: Path) -> None:
    # Found by a walk-through: with "main.compact" = "x", Compact left the footer (Textual
    # moves a rebound key to the end of its screen's keys, past what fits).
    from goose_tui.tui.widgets.goose_footer import GooseFooter

    app = GooseTUI(session_file, keymap={"main.compact": "x"})
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        line = app.main.query_one(GooseFooter).render_line(0).text
        status = str(app.main.query_one(CompactionStatus).render())
        await pilot.press("s")  # nothing to save yet: the toast names the key too
        await settle(pilot)
        toasts = [n.message for n in app._notifications]
        await pilot.press("question_mark")
        await settle(pilot)
        intro = str(app.screen.query_one("#help-intro", Static).render())
    # Where c Compact is without a keymap (test_snapshots' footer), now as x.
    assert " ⏎ Expand message  x Compact  esc Cancel " in line, line
    # The hints name the key that compacts (they said "press c", which did nothing).
    assert status.startswith("press x to compact"), status
    assert any("press x to compact" in toast for toast in toasts), toasts
    # And so does the help (it said "Press c to compact": the next stop's review).
    assert "Press x to compact" in intro and "Press c " not in intro, intro


async def test_an_unknown_theme_is_a_settings_problem_with_the_closest_theme(
    session_file: Path,
) -> None:
    app = GooseTUI(session_file, theme="nordd")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        [toast] = [n for n in app._notifications if n.title == settings_title(1)]
        assert (
            toast.message == f"in {config_path()}:\n• no theme named 'nordd' (did you mean 'nord'?)"
        )
        assert toast.timeout >= 10 and app.theme != "nordd"
