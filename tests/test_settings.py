"""Settings that last (issue 14): the TOML file, its path in --help, the theme saved in place."""

from __future__ import annotations

from pathlib import Path

import pytest

from goose_tui.settings import config_path, load_settings, save_theme
from tests.conftest import SAMPLES
from tests.test_cli import run

CONFIG = """# my settings
model = "ollama/llama3.2"
api_base = "http://localhost:11434"
threshold = 0.85
goose_profile = "goose-main"
theme = "nord"  # the old one

[keymap]
"main.compact" = "C"
"""


def test_config_lives_under_xdg_config_home_and_help_says_where(tmp_path: Path) -> None:
    assert config_path() == Path(__import__("os").environ["XDG_CONFIG_HOME"]) / (
        "goose-tui/config.toml"
    )
    out = run("--help")
    assert f"settings: {config_path()}" in " ".join(out.stdout.split())


def test_settings_are_read_and_a_broken_file_is_reported_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(CONFIG, encoding="utf-8")
    settings, problem = load_settings(path)
    assert problem is None
    assert settings.model == "ollama/llama3.2" and settings.threshold == 0.85
    assert settings.goose_profile == "goose-main" and settings.theme == "nord"
    assert settings.keymap == {"main.compact": "C"}
    path.write_text("threshold = [", encoding="utf-8")
    settings, problem = load_settings(path)
    assert settings.threshold is None and problem and "not valid TOML" in problem
    path.write_text('threshold = "high"', encoding="utf-8")
    _, problem = load_settings(path)
    assert problem and "threshold" in problem
    assert load_settings(tmp_path / "missing.toml") == (load_settings(tmp_path / "x")[0], None)


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
    monkeypatch.setattr(app_module, "run_app", lambda *a, **kw: seen.append(kw["goose_profile"]))
    session = SAMPLES / "long_session.jsonl"
    config = tmp_path / ".config" / "goose-tui" / "config.toml"
    config.parent.mkdir(parents=True)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / ".config"))
    assert cli.main([str(session)]) == 0
    config.write_text('goose_profile = "goose-main"\n', encoding="utf-8")
    assert cli.main([str(session)]) == 0
    assert cli.main([str(session), "--goose-profile", "goose-sdk-wheel"]) == 0
    assert seen == ["goose-sdk-wheel", "goose-main", "goose-sdk-wheel"]
