"""The Goose-version profiles are named for what they are: ``goose-sdk-wheel`` is released
Goose (the goose-sdk wheels 0.1.0a8 to a13), ``goose-pr-11845`` Goose's open pull request
#11845 (block/goose @27ced780), in no release. Its old name, ``goose-main``, still works
from the command line and the settings file, with a note."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goose_tui.cli import main
from goose_tui.compaction.profiles import (
    ALIASES,
    DEFAULT_PROFILE,
    PR_11845,
    PR_11845_COMPACTION_LINE,
    PROFILES,
    profile_named,
    templates_for_profile,
)
from goose_tui.compaction.summarize import build_request
from goose_tui.compaction.templates import load_templates
from goose_tui.session.loader import load_session
from goose_tui.settings import SettingsProblems

SHORT = Path(__file__).resolve().parents[2] / "sample_sessions" / "short.jsonl"


def test_the_names() -> None:
    assert PROFILES == ("goose-sdk-wheel", "goose-pr-11845")
    assert DEFAULT_PROFILE == "goose-sdk-wheel"
    assert ALIASES == {"goose-main": "goose-pr-11845"}
    assert profile_named("goose-pr-11845") == ("goose-pr-11845", None)
    profile, note = profile_named("goose-main")
    assert profile == "goose-pr-11845"
    assert note is not None and "goose-main" in note and "goose-pr-11845" in note
    assert profile_named("goose-next") == (None, None)


def test_help_says_which_goose_each_profile_is(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["compact", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "{goose-sdk-wheel,goose-pr-11845}" in out
    assert "released Goose, as the goose-sdk wheels 0.1.0a8 to 0.1.0a13 run it" in out
    assert "goose-pr-11845 is Goose's open pull request #11845, in no release" in out
    assert "old name goose-main still works" in out


def test_the_old_name_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["format", str(SHORT), "--goose-profile", "goose-main"]) == 0
    captured = capsys.readouterr()
    records = [json.loads(line) for line in captured.out.splitlines()]
    assert records and all(set(r) == {"role", "content"} for r in records)
    assert captured.err == (
        "goose-tui: goose profile 'goose-main' is now called 'goose-pr-11845' "
        "(the old name still works)\n"
    )
    assert main(["compact", str(SHORT), "--json", "--goose-profile", "goose-main"]) == 0
    assert json.loads(capsys.readouterr().out)["goose_profile"] == "goose-pr-11845"


def test_the_old_name_in_the_settings_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import goose_tui.tui.app as app_module

    seen: list[app_module.GooseTUI] = []
    monkeypatch.setattr(app_module, "run_app", seen.append)
    config = tmp_path / "goose-tui" / "config.toml"
    config.parent.mkdir()
    config.write_text('goose_profile = "goose-main"\n', encoding="utf-8")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert main([str(SHORT)]) == 0
    [app] = seen
    assert app.inspector.goose_profile == "goose-pr-11845"
    # Shown by the app once it is up, as every note on the settings file.
    assert app.settings_problems == SettingsProblems(
        notes=(
            "settings: goose profile 'goose-main' is now called 'goose-pr-11845' "
            "(the old name still works)",
        )
    )


def test_an_override_of_ones_own_is_used_as_it_is(tmp_path: Path) -> None:
    # Goose adds its line to its own compaction.md only: an override is used unchanged.
    templates = load_templates(None)
    assert templates_for_profile(templates, PR_11845) is templates
    messages = load_session(SHORT).messages
    prompt = build_request(messages, templates, profile=PR_11845).system_prompt
    assert PR_11845_COMPACTION_LINE not in prompt
