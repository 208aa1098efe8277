"""goose-tui's own folders and Goose's, for each environment (XDG variables set, unset,
relative, GOOSE_PATH_ROOT set or not)."""

from __future__ import annotations

from pathlib import Path

import pytest

from goose_tui.analysis.probe_model import default_cache_dir
from goose_tui.compaction.templates import override_dirs
from goose_tui.recent import recent_file
from goose_tui.session.loader import default_sessions_dir
from goose_tui.session.writer import goose_data_dirs
from goose_tui.settings import config_path
from goose_tui.tui.app import user_override_dir

VARIABLES = ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    for variable in (*VARIABLES, "GOOSE_PATH_ROOT"):
        monkeypatch.delenv(variable, raising=False)
    return tmp_path / "home"


def _own() -> tuple[Path, Path, Path]:
    return config_path(), recent_file(), default_cache_dir()


def test_without_variables_the_home_defaults(home: Path) -> None:
    assert _own() == (
        home / ".config" / "goose-tui" / "config.toml",
        home / ".local" / "state" / "goose-tui" / "recent.json",
        home / ".cache" / "goose-tui" / "probes",
    )
    assert default_sessions_dir() == home / ".local" / "share" / "goose" / "sessions"
    assert user_override_dir(None) == home / ".config" / "goose" / "prompts"


def test_absolute_variables_are_used(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in VARIABLES:
        monkeypatch.setenv(variable, f"/x/{variable}")
    assert _own() == (
        Path("/x/XDG_CONFIG_HOME/goose-tui/config.toml"),
        Path("/x/XDG_STATE_HOME/goose-tui/recent.json"),
        Path("/x/XDG_CACHE_HOME/goose-tui/probes"),
    )
    assert default_sessions_dir() == Path("/x/XDG_DATA_HOME/goose/sessions")
    assert Path("/x/XDG_DATA_HOME/goose") in goose_data_dirs()
    assert user_override_dir(None) == Path("/x/XDG_CONFIG_HOME/goose/prompts")
    assert dict(override_dirs())["xdg-config"] == Path("/x/XDG_CONFIG_HOME/goose/prompts")


@pytest.mark.parametrize("value", ["", "relative/dir"])
def test_empty_or_relative_variables_are_ignored(
    home: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    # The XDG spec says so, and Goose's paths do it (the etcetera crate; GOOSE_PATH_ROOT in
    # crates/goose/src/config/paths.rs, Goose's main branch).
    for variable in (*VARIABLES, "GOOSE_PATH_ROOT"):
        monkeypatch.setenv(variable, value)
    assert _own() == (
        home / ".config" / "goose-tui" / "config.toml",
        home / ".local" / "state" / "goose-tui" / "recent.json",
        home / ".cache" / "goose-tui" / "probes",
    )
    assert default_sessions_dir() == home / ".local" / "share" / "goose" / "sessions"


def test_goose_path_root_moves_goose_folders_not_ours(
    home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GOOSE_PATH_ROOT", str(tmp_path / "root"))
    assert default_sessions_dir() == tmp_path / "root" / "data" / "sessions"
    assert goose_data_dirs()[0] == tmp_path / "root" / "data"
    assert user_override_dir(None) == tmp_path / "root" / "config" / "prompts"
    assert _own()[0] == home / ".config" / "goose-tui" / "config.toml"
