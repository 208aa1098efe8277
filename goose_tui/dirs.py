"""Where files live: goose-tui's own (``own_dir``) and Goose's (``goose_dir``). Each follows
its program's rules, so the two are kept apart."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

# The XDG base directories by kind, and where each defaults to under the home folder.
_XDG = {
    "config": ("XDG_CONFIG_HOME", (".config",)),
    "state": ("XDG_STATE_HOME", (".local", "state")),
    "cache": ("XDG_CACHE_HOME", (".cache",)),
    "data": ("XDG_DATA_HOME", (".local", "share")),
}


def absolute_env_dir(variable: str) -> Path | None:
    """``$variable`` as a folder when it is an absolute path (``~`` expanded), else None:
    the XDG spec, and Goose, ignore an empty or relative value."""
    value = os.environ.get(variable, "")
    path = Path(value).expanduser() if value else None
    return path if path is not None and path.is_absolute() else None


def xdg_home(kind: Literal["config", "state", "cache", "data"]) -> Path:
    """The XDG base directory of ``kind``: its variable when absolute, else the default."""
    variable, default = _XDG[kind]
    return absolute_env_dir(variable) or Path.home().joinpath(*default)


def own_dir(kind: Literal["config", "state", "cache"]) -> Path:
    """goose-tui's folder of ``kind``: settings, the recent list, the probe cache."""
    return xdg_home(kind) / "goose-tui"


def goose_dir(kind: Literal["config", "data"]) -> Path:
    """Goose's folder of ``kind`` on Linux, as Goose's ``Paths::get_dir`` finds it
    (crates/goose/src/config/paths.rs): ``$GOOSE_PATH_ROOT/<kind>`` when that is an absolute
    path, else the XDG directory's ``goose`` folder. Its prompts are in ``config/prompts``,
    its sessions in ``data/sessions``."""
    root = absolute_env_dir("GOOSE_PATH_ROOT")
    return root / kind if root is not None else xdg_home(kind) / "goose"
