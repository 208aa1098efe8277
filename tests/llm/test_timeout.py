"""How long a model call may take: ``--timeout`` and the settings file's ``timeout``."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from goose_tui import cli
from goose_tui.llm.base import DEFAULT_TIMEOUT
from goose_tui.llm.spec import ModelSpec
from goose_tui.settings import SettingsProblems, config_path, load_settings
from tests.conftest import LITELLM_GROUP, SAMPLES
from tests.loopback import LoopbackServer, Reply

SHORT = str(SAMPLES / "short.jsonl")


def test_the_timeout_is_the_models_and_a_model_typed_later_keeps_it() -> None:
    assert ModelSpec.parse("openai/gpt-4o-mini").timeout == DEFAULT_TIMEOUT
    offline = ModelSpec.from_options(None, timeout=7.5)
    assert offline.with_text("openai/gpt-4o-mini").timeout == 7.5
    assert ModelSpec.from_options(None, Path("r.txt"), timeout=3).timeout == 3


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "soon"])
def test_a_timeout_that_is_no_number_of_seconds_is_refused(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["compact", SHORT, "--timeout", value])
    assert exit_info.value.code == 2
    assert "--timeout: must be a number of seconds above 0" in capsys.readouterr().err


@pytest.mark.xdist_group(LITELLM_GROUP)  # litellm in this process's shared worker
def test_compact_gives_up_after_the_timeout_it_was_given(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with LoopbackServer([Reply.hang()]) as server:
        started = time.monotonic()
        code = cli.main(
            ["compact", SHORT, "--model", "openai/gpt-4o-mini"]
            + ["--api-base", f"{server.url}/v1", "--timeout", "1"]
        )
        waited = time.monotonic() - started
    assert code == 1
    assert "the model did not answer within 1 s" in capsys.readouterr().err
    assert server.requests and waited < DEFAULT_TIMEOUT


def test_the_settings_file_sets_the_timeout_and_the_option_wins(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("timeout = 300\n")
    settings, problems = load_settings(path)
    assert problems == SettingsProblems() and settings.timeout == 300
    path.write_text("timeout = -5\n")
    settings, problems = load_settings(path)
    assert settings.timeout is None
    assert problems == SettingsProblems(("timeout -5: must be a number of seconds above 0",))


def test_the_app_gets_the_settings_timeout_unless_the_option_says(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import goose_tui.tui.app as app_module

    seen: list[app_module.GooseTUI] = []
    monkeypatch.setattr(app_module, "run_app", seen.append)
    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_text("timeout = 300\n")
    assert cli.main([SHORT]) == 0
    assert cli.main([SHORT, "--timeout", "20"]) == 0
    assert [app.inspector.model.timeout for app in seen] == [300, 20]
