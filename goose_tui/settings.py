"""Settings that last: ``$XDG_CONFIG_HOME/goose-tui/config.toml`` (``~/.config/goose-tui/``).

```toml
theme = "textual-dark"          # saved by the app when you pick a theme
model = "openai/gpt-4o-mini"    # the default for --model
api_base = "http://localhost:11434"
threshold = 0.85                # the default for --threshold
goose_profile = "goose-main"    # the default Goose format profile

[keymap]                        # Textual keymaps: binding id = keys
"main.compact" = "C"
"app.quit" = "ctrl+q"
```

Precedence: a command-line option, then (for the threshold) ``GOOSE_AUTO_COMPACT_THRESHOLD``,
then this file, then the built-in default. A file that cannot be read or parsed is reported
once and ignored: settings never stop the app. The app writes only the ``theme`` line back,
in place (comments and the rest of the file are kept), atomically.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from goose_tui.files import atomic_write_text

CONFIG_NAME = "config.toml"


class Settings(BaseModel):
    model_config = ConfigDict(extra="ignore", protected_namespaces=())

    theme: str | None = None
    model: str | None = None
    api_base: str | None = None
    threshold: float | None = None
    goose_profile: str | None = None
    keymap: dict[str, str] = Field(default_factory=dict)


def config_path() -> Path:
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "goose-tui" / CONFIG_NAME


def load_settings(path: Path | None = None) -> tuple[Settings, str | None]:
    """(settings, a problem to report or None). A missing file is no problem."""
    import tomllib

    path = path or config_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Settings(), None
    except (OSError, UnicodeDecodeError) as exc:
        return Settings(), f"{path}: cannot read: {exc}"
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return Settings(), f"{path}: not valid TOML: {exc}"
    try:
        return Settings.model_validate(data), None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        return Settings(), f"{path}: {where}: {first['msg']}"


_THEME_LINE = re.compile(r"^\s*theme\s*=.*$", re.MULTILINE)
_FIRST_TABLE = re.compile(r"^\s*\[", re.MULTILINE)


def save_theme(theme: str, path: Path | None = None) -> Path:
    """Set ``theme`` in the config file, keeping everything else as written."""
    path = path or config_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    line = f"theme = {json.dumps(theme)}"  # a JSON string is a valid TOML basic string
    top_level = text[: m.start()] if (m := _FIRST_TABLE.search(text)) else text
    if _THEME_LINE.search(top_level):
        text = _THEME_LINE.sub(line, text, count=1)
    else:
        text = f"{line}\n{text}"
    atomic_write_text(path, text if text.endswith("\n") else text + "\n")
    return path
