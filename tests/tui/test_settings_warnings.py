"""What the settings file got wrong is said in one place the user can read at 80x24: one
toast, one line per problem, the closest known key named, the title saying that only those
are ignored (a note that ignores nothing is listed, not counted); and the same lines on
stderr once the app has ended."""

from __future__ import annotations

from pathlib import Path

import pytest

from goose_tui.settings import SettingsProblems, config_path, load_settings
from goose_tui.tui.app import GooseTUI

from .conftest import settle

CONFIG = 'threshhold = 0.5\ncolour = "red"\ntimeout = -5\ntheme = "nrod"\n'


def _app(session_file: Path) -> GooseTUI:
    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_text(CONFIG, encoding="utf-8")
    settings, problems = load_settings()
    return GooseTUI(
        session_file,
        theme=settings.theme,
        keymap={"main.compcat": "C"},
        settings_problems=problems,
    )


async def test_every_settings_problem_is_readable_at_80x24(session_file: Path) -> None:
    app = _app(session_file)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        toasts = [t for t in app.screen.query("Toast") if "ignored" in str(t.render())]
        assert len(toasts) == 1, [str(t.render()) for t in app.screen.query("Toast")]
        [toast] = toasts
        assert app.screen.region.contains_region(toast.region), toast.region
        shown = " ".join(str(toast.render()).split())
    for expected in (
        "unknown setting 'threshhold' (did you mean 'threshold'?)",
        "unknown setting 'colour'",
        "timeout -5: must be a number of seconds above 0",
        "no theme named 'nrod' (did you mean 'nord'?)",
        "'main.compcat' (did you mean 'main.compact'?)",
    ):
        assert expected in shown, shown
    # Five problems, and the title says these are what was ignored, not the whole file.
    assert "settings: only these 5 are ignored" in shown, shown


async def test_one_problem_of_a_file_says_only_it_is_ignored(session_file: Path) -> None:
    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_text('theme = "nord"\nthreshhold = 0.5\n', encoding="utf-8")
    settings, problems = load_settings()
    app = GooseTUI(session_file, theme=settings.theme, settings_problems=problems)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        [toast] = [t for t in app.screen.query("Toast") if "ignored" in str(t.render())]
        shown = " ".join(str(toast.render()).split())
    assert "settings: only this is ignored" in shown, shown
    assert app.theme == "nord"


def test_the_problems_are_on_stderr_once_the_app_has_ended(
    session_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from textual.app import App

    from goose_tui.tui import app as app_module

    real_run = App.run

    def run_headless(self: App[None], **options: object) -> None:
        async def quit_at_once(pilot: object) -> None:
            await settle(pilot)  # type: ignore[arg-type]
            self.exit()

        real_run(self, headless=True, size=(80, 24), auto_pilot=quit_at_once)

    monkeypatch.setattr(App, "run", run_headless)
    monkeypatch.setattr(app_module, "has_terminal", lambda: True)  # headless stands in for one
    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_text(CONFIG, encoding="utf-8")
    settings, problems = load_settings()
    app_module.run_app(
        app_module.GooseTUI(session_file, theme=settings.theme, settings_problems=problems)
    )
    err = capsys.readouterr().err
    assert f"goose-tui: settings ignored in {config_path()}:" in err, err
    assert "unknown setting 'threshhold' (did you mean 'threshold'?)" in err, err
    assert "no theme named 'nrod' (did you mean 'nord'?)" in err, err


async def test_a_note_that_ignores_nothing_is_not_counted_as_ignored(session_file: Path) -> None:
    note = (
        "settings: goose profile 'goose-main' is now called 'goose-pr-11845' "
        "(the old name still works)"
    )
    app = GooseTUI(session_file, settings_problems=SettingsProblems(notes=(note,)))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        [toast] = [n for n in app._notifications if n.title.startswith("settings")]
    assert toast.title == "settings" and toast.message == note


async def test_a_note_beside_an_ignored_setting_is_not_listed_under_the_file(
    session_file: Path,
) -> None:
    # "settings: only this is ignored" over "in FILE:" and two bullets read as two problems of
    # the file, one of them the environment's.
    ignored = "unknown setting 'threshhold' (did you mean 'threshold'?)"
    note = "$GOOSE_AUTO_COMPACT_THRESHOLD=2 is not a number in [0, 1]; ignored"
    app = GooseTUI(session_file, settings_problems=SettingsProblems((ignored,), (note,)))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        [toast] = [n for n in app._notifications if n.title.startswith("settings")]
    assert toast.title == "settings: only this is ignored"
    assert toast.message == f"in {config_path()}:\n• {ignored}\n\n{note}"
