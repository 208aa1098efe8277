"""Settings that last (issue 14): the TOML file, its path in --help, the theme saved in place."""

from __future__ import annotations

from pathlib import Path

import pytest

from goose_tui.settings import SettingsProblems, config_path, load_settings, save_theme
from tests.conftest import SAMPLES

CONFIG = """# my settings
model = "ollama/llama3.2"
api_base = "http://localhost:11434"
threshold = 0.85
goose_profile = "goose-pr-11845"
theme = "nord"  # the old one

[keymap]
"main.compact" = "C"
"""


def test_config_lives_under_xdg_config_home_and_help_says_where(cli, tmp_path: Path) -> None:
    assert config_path() == Path(__import__("os").environ["XDG_CONFIG_HOME"]) / (
        "goose-tui/config.toml"
    )
    out = cli("--help")
    assert f"settings: {config_path()}" in " ".join(out.stdout.split())


def test_settings_are_read_and_a_broken_file_is_reported_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(CONFIG, encoding="utf-8")
    settings, problems = load_settings(path)
    assert problems == SettingsProblems()
    assert settings.model == "ollama/llama3.2" and settings.threshold == 0.85
    assert settings.goose_profile == "goose-pr-11845" and settings.theme == "nord"
    assert settings.keymap == {"main.compact": "C"}
    path.write_text("threshold = [", encoding="utf-8")
    settings, problems = load_settings(path)
    [problem] = problems.ignored
    assert settings.threshold is None and "not valid TOML" in problem and not problems.notes
    path.write_text('threshold = "high"', encoding="utf-8")
    [problem] = load_settings(path)[1].ignored
    assert "threshold" in problem
    missing = load_settings(tmp_path / "missing.toml")
    assert missing == (load_settings(tmp_path / "x")[0], SettingsProblems())


def test_saving_the_theme_keeps_the_rest_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "goose-tui" / "config.toml"
    save_theme("gruvbox", path)  # no file yet: created, folder too
    assert path.read_text(encoding="utf-8") == 'theme = "gruvbox"\n'
    path.write_text(CONFIG, encoding="utf-8")
    save_theme("dracula", path)
    text = path.read_text(encoding="utf-8")
    assert text == CONFIG.replace('theme = "nord"  # the old one', 'theme = "dracula"')
    assert load_settings(path)[0].keymap == {"main.compact": "C"}
    assert not list(path.parent.glob(".*.tmp"))  # written atomically, nothing left over


def test_the_app_takes_goose_profile_from_settings_unless_the_flag_says_otherwise(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import goose_tui.tui.app as app_module
    from goose_tui import cli

    seen: list[str] = []
    monkeypatch.setattr(app_module, "run_app", lambda app: seen.append(app.inspector.goose_profile))
    session = SAMPLES / "long_session.jsonl"
    config = tmp_path / ".config" / "goose-tui" / "config.toml"
    config.parent.mkdir(parents=True)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / ".config"))
    assert cli.main([str(session)]) == 0
    config.write_text('goose_profile = "goose-pr-11845"\n', encoding="utf-8")
    assert cli.main([str(session)]) == 0
    assert cli.main([str(session), "--goose-profile", "goose-sdk-wheel"]) == 0
    assert seen == ["goose-sdk-wheel", "goose-pr-11845", "goose-sdk-wheel"]


THRESHOLD_RULE = "must be in [0, 1] (a fraction of the window; 0 or 1 turns auto compaction off)"


@pytest.mark.parametrize("value", ["5", "-0.5", "1.5", "nan", "inf"])
def test_a_threshold_the_cli_refuses_is_reported_and_ignored(
    tmp_path: Path, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # A walk-through: `threshold = 5` was taken (the gauge said "threshold 500%") where
    # `--threshold 5` is refused. The same rule, the same words; the rest of the file stays.
    from tests.analysis.test_retention import run_command

    path = tmp_path / "config.toml"
    path.write_text(f'theme = "nord"\nthreshold = {value}\n', encoding="utf-8")
    settings, problems = load_settings(path)
    assert settings.threshold is None and settings.theme == "nord"
    assert problems == SettingsProblems((f"threshold {float(value):g}: {THRESHOLD_RULE}",))
    assert run_command(["usage", str(SAMPLES / "short.jsonl"), "--threshold", value]) == 2
    assert f"--threshold {float(value):g}: {THRESHOLD_RULE}" in capsys.readouterr().err


def test_a_bad_setting_is_ignored_alone(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('theme = "nord"\nthreshold = "high"\nmodel = 3\nthreshold_x = 1\n')
    settings, problems = load_settings(path)
    assert (settings.theme, settings.threshold, settings.model) == ("nord", None, None)
    assert problems.ignored and not problems.notes  # each said under the file's name
    ignored = "\n".join(problems.ignored)
    assert 'threshold = "high" is not a number' in ignored
    assert "model = 3 is not text" in ignored
    path.write_text("threshold = true\n")
    assert load_settings(path)[1] == SettingsProblems(
        (
            "threshold = true is not a number (a fraction of the window, such as 0.8);"
            " the default applies",
        )
    )
    for off in ("1", "0"):  # auto compaction off, as in Goose and as --threshold takes it
        path.write_text(f"threshold = {off}\n")
        assert load_settings(path) == (load_settings(path)[0], SettingsProblems())
        assert load_settings(path)[0].threshold == float(off)


def _write_config(text: str) -> None:
    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_text(text, encoding="utf-8")


def test_the_headless_commands_take_the_threshold_from_settings(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A walk-through: `usage` printed 0.8 with `threshold = 0.5` in the file, where the
    # README says command-line options win over it: the file applies when none is given.
    import json

    from tests.analysis.test_retention import run_command

    session = str(SAMPLES / "short.jsonl")
    _write_config("threshold = 0.5\n")
    # Each says where its threshold came from (it did not: a walk-through, the next stop).
    assert run_command(["usage", session]) == 0
    assert "threshold   0.5 (the settings file) -> compaction due" in capsys.readouterr().out
    assert run_command(["timeline", session, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["threshold"] == 0.5
    assert run_command(["usage", session, "--threshold", "0.9"]) == 0
    assert "threshold   0.9 (--threshold) ->" in capsys.readouterr().out
    monkeypatch.setenv("GOOSE_AUTO_COMPACT_THRESHOLD", "0.7")
    assert run_command(["usage", session]) == 0
    assert "threshold   0.7 ($GOOSE_AUTO_COMPACT_THRESHOLD) ->" in capsys.readouterr().out
    monkeypatch.delenv("GOOSE_AUTO_COMPACT_THRESHOLD")
    _write_config("model = 'offline'\n")
    assert run_command(["usage", session]) == 0
    assert "threshold   0.8 (default) ->" in capsys.readouterr().out
    # And in the JSON, by the tokens of limit_source's kind.
    sources = []
    for args, env in (([], None), (["--threshold", "0.9"], None), ([], "0.7"), ([], None)):
        if env is None:
            monkeypatch.delenv("GOOSE_AUTO_COMPACT_THRESHOLD", raising=False)
        else:
            monkeypatch.setenv("GOOSE_AUTO_COMPACT_THRESHOLD", env)
        if len(sources) == 3:
            _write_config("threshold = 0.5\n")
        assert run_command(["usage", session, "--json", *args]) == 0
        data = json.loads(capsys.readouterr().out)
        sources.append((data["threshold"], data["threshold_source"]))
    assert sources == [(0.8, "default"), (0.9, "cli"), (0.7, "env"), (0.5, "settings")]


@pytest.mark.parametrize(
    ("config", "reported"),
    [("threshold = 5\n", f"threshold 5: {THRESHOLD_RULE}"), ("threshold = [\n", "not valid TOML")],
)
def test_the_headless_commands_report_a_bad_settings_file_on_stderr_and_go_on(
    capsys: pytest.CaptureFixture[str], config: str, reported: str
) -> None:
    from tests.analysis.test_retention import run_command

    _write_config(config)
    assert run_command(["usage", str(SAMPLES / "short.jsonl")]) == 0
    captured = capsys.readouterr()
    assert "threshold   0.8 (default) ->" in captured.out
    assert f"goose-tui: settings ignored in {config_path()}:\n  " in captured.err
    assert reported in captured.err


def test_the_app_shows_settings_problems_itself_not_on_stderr_before_it_starts(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A walk-through: "settings ignored: … not valid TOML" went to stderr before the app
    # covered the screen, so no one saw it; the app shows it once it is up (a toast).
    import goose_tui.tui.app as app_module
    from goose_tui import cli

    seen: list[app_module.GooseTUI] = []
    monkeypatch.setattr(app_module, "run_app", seen.append)
    session = str(SAMPLES / "long_session.jsonl")
    _write_config('threshold = 5\ngoose_profile = "goose-next"\n')
    assert cli.main([session]) == 0
    _write_config("threshold = [\n")
    assert cli.main([session]) == 0
    assert capsys.readouterr().err == ""
    first, second = seen
    assert first.inspector.threshold is None  # the app's default, not 5
    assert first.settings_problems == SettingsProblems(
        (
            f"threshold 5: {THRESHOLD_RULE}",
            "goose_profile 'goose-next' is not one of goose-sdk-wheel, goose-pr-11845",
        )
    )
    [problem] = second.settings_problems.ignored
    assert problem.startswith("not valid TOML") and not second.settings_problems.notes


def test_the_app_shows_an_unreadable_goose_threshold_once_it_is_up(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Printed before the app starts, the warning would be covered by its screen: it goes
    # with the settings' problems, which the app shows as a toast (tests/tui/
    # test_settings_app.py), and the app runs with Goose's default.
    import goose_tui.tui.app as app_module
    from goose_tui import cli

    seen: list[tuple[SettingsProblems, float | None]] = []
    monkeypatch.setattr(
        app_module,
        "run_app",
        lambda app: seen.append((app.settings_problems, app.inspector.threshold)),
    )
    monkeypatch.setenv("GOOSE_AUTO_COMPACT_THRESHOLD", "eighty")
    assert cli.main([str(SAMPLES / "short.jsonl")]) == 0
    assert seen == [
        (
            SettingsProblems(
                notes=(
                    "$GOOSE_AUTO_COMPACT_THRESHOLD='eighty' is not a number: Goose uses 0.8 "
                    "then, and so does goose-tui",
                )
            ),
            None,
        )
    ]
    assert capsys.readouterr().err == ""


def test_an_unknown_setting_is_named_with_the_closest_known_one(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('threshhold = 0.5\ncolour = "red"\nmodel = "offline"\n', encoding="utf-8")
    settings, problems = load_settings(path)
    assert settings.model == "offline" and settings.threshold is None
    assert problems == SettingsProblems(
        (
            "unknown setting 'threshhold' (did you mean 'threshold'?)",
            "unknown setting 'colour' (known: theme, model, api_base, threshold, goose_profile, "
            "timeout, keymap)",
        )
    )


def test_the_headless_commands_name_an_unknown_setting_on_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from tests.analysis.test_retention import run_command

    _write_config("threshhold = 0.5\n")
    assert run_command(["usage", str(SAMPLES / "short.jsonl")]) == 0
    err = capsys.readouterr().err
    assert "unknown setting 'threshhold' (did you mean 'threshold'?)" in err
