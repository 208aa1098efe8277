"""Settings that last: ``$XDG_CONFIG_HOME/goose-tui/config.toml`` (``~/.config/goose-tui/``).

```toml
theme = "textual-dark"          # saved by the app when you pick a theme
model = "openai/gpt-4o-mini"    # the default for --model
api_base = "http://localhost:11434"
threshold = 0.85                # the default for --threshold
goose_profile = "goose-pr-11845" # a Goose version (--goose-profile)
timeout = 300                   # seconds a model call may take (--timeout)

[keymap]                        # Textual keymaps: binding id = keys
"main.compact" = "C"
"app.quit" = "ctrl+q"
```

Precedence: a command-line option, then (for the threshold) ``GOOSE_AUTO_COMPACT_THRESHOLD``,
then this file, then the built-in default. The app reads all of it; the headless commands
read its ``threshold`` (``usage``, ``timeline``). A file that cannot be read or parsed is
reported and ignored, and so is a key no setting takes (named with the closest known one) and
a value that is not what its setting takes (a threshold by the rule of ``--threshold``):
settings never stop the app. The app writes only the ``theme``
line back, in place (comments and the rest of the file are kept), atomically.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictFloat, ValidationError

from goose_tui.dirs import own_dir
from goose_tui.files import NotRegularFile, TooLarge, atomic_write_text, read_regular

CONFIG_NAME = "config.toml"
# A settings file is a few lines; anything this large is not one.
SETTINGS_LIMIT = 1 << 20


class Settings(BaseModel):
    model_config = ConfigDict(extra="ignore", protected_namespaces=())

    theme: str | None = None
    model: str | None = None
    api_base: str | None = None
    threshold: StrictFloat | None = None  # a TOML number: `true` or "0.5" is no threshold
    goose_profile: str | None = None
    timeout: StrictFloat | None = None  # seconds a model call may take (the app's --timeout)
    keymap: dict[str, str] = Field(default_factory=dict)


def config_path() -> Path:
    return own_dir("config") / CONFIG_NAME


def threshold_problem(value: float) -> str | None:
    """Why ``value`` is no compaction threshold, or None: the rule for ``--threshold`` and
    this file's ``threshold``. Goose turns auto compaction off for 0 (its documented way) and
    1, as for any value outside (0, 1); goose-tui's own options take those two and refuse the
    rest as mistyped fractions (``threshold = 5``). ``$GOOSE_AUTO_COMPACT_THRESHOLD`` is
    Goose's and is read as Goose reads it (cli.common.check_limits)."""
    if 0 <= value <= 1:  # NaN fails it too
        return None
    shown = f"{value:g}"
    if float(shown) != value:  # 1.0000001 is not "1": every digit, as given
        shown = repr(value)
    return (
        f"{shown}: must be in [0, 1] (a fraction of the window; 0 or 1 turns auto compaction off)"
    )


@dataclass(frozen=True)
class SettingsProblems:
    """What was wrong with the settings, one problem an entry: what the settings file has
    that is ignored (said under its path, so without it), and the other notes, on the
    environment or an option."""

    ignored: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def __add__(self, other: SettingsProblems) -> SettingsProblems:
        return SettingsProblems(self.ignored + other.ignored, self.notes + other.notes)

    def print(self) -> None:
        """On stderr, as the app (when it ends) and the headless commands print them: one
        header naming the file, what it has that is ignored a line each below it, then the
        other notes."""
        if self.ignored:
            print(f"goose-tui: settings ignored in {config_path()}:", file=sys.stderr)
            for line in self.ignored:
                print(f"  {line}", file=sys.stderr)
        for line in self.notes:
            print(f"goose-tui: {line}", file=sys.stderr)


def load_settings(path: Path | None = None) -> tuple[Settings, SettingsProblems]:
    """The settings and what was wrong with them. A missing file is no problem; a file that
    cannot be read or parsed is ignored, a bad value alone (the rest of the file still
    applies)."""
    import tomllib

    path = path or config_path()
    try:
        text = read_regular(path, SETTINGS_LIMIT).decode("utf-8")
    except FileNotFoundError:
        return Settings(), SettingsProblems()
    except (NotRegularFile, TooLarge) as exc:
        # Their message names the path, which the problems' header already says.
        return Settings(), SettingsProblems((str(exc).removeprefix(f"{path}: "),))
    except (OSError, UnicodeDecodeError) as exc:
        return Settings(), SettingsProblems((f"cannot read: {exc}",))
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return Settings(), SettingsProblems((f"not valid TOML: {exc}",))
    problems = [unknown_setting(key) for key in data if key not in Settings.model_fields]
    try:
        settings = Settings.model_validate(data)
    except ValidationError as exc:
        for error in exc.errors():
            problems.append(wrong_type(error["loc"], error["input"]))
        bad = {error["loc"][0] for error in exc.errors() if error["loc"]}
        settings = Settings.model_validate({k: v for k, v in data.items() if k not in bad})
    if settings.threshold is not None and (problem := threshold_problem(settings.threshold)):
        problems.append(f"threshold {problem}")
        settings.threshold = None
    if settings.timeout is not None and not 0 < settings.timeout < math.inf:
        problems.append(f"timeout {settings.timeout:g}: must be a number of seconds above 0")
        settings.timeout = None
    return settings, SettingsProblems(tuple(problems))


# What each setting takes, in the words of the file's reader, and what applies without it.
_TAKES: dict[str, tuple[str, str]] = {
    "theme": ("text (a theme's name, in quotes)", "the default theme applies"),
    "model": ('text (a model such as "openai/gpt-4o-mini", in quotes)', "ignored"),
    "api_base": ("text (a URL, in quotes)", "ignored"),
    "threshold": ("a number (a fraction of the window, such as 0.8)", "the default applies"),
    "goose_profile": ("text (a Goose version's name, in quotes)", "the default applies"),
    "timeout": ("a number of seconds", "the default applies"),
    "keymap": ("a table ([keymap], binding id = keys)", "ignored"),
    "keymap.": ('text (keys such as "ctrl+q", in quotes)', "the keymap is ignored"),
}


def _toml_key(part: str | int) -> str:
    text = str(part)
    return text if re.fullmatch(r"[A-Za-z0-9_-]+", text) else json.dumps(text)


def _toml_value(value: object) -> str:
    try:
        return json.dumps(value)  # TOML's strings, numbers and booleans read the same
    except (TypeError, ValueError):
        return str(value)


def wrong_type(loc: tuple[str | int, ...], value: object) -> str:
    """``timeout = "abc" is not a number of seconds; the default applies``: a value its
    setting cannot take, named as the file has it."""
    field = f"{loc[0]}." if len(loc) > 1 else str(loc[0]) if loc else ""
    takes, instead = _TAKES.get(field, ("what the setting takes", "ignored"))
    key = ".".join(_toml_key(part) for part in loc)
    return f"{key} = {_toml_value(value)} is not {takes}; {instead}"


def closest_name(name: str, known: Iterable[str]) -> str | None:
    """The known name ``name`` was likely meant as, or None."""
    from difflib import get_close_matches

    close = get_close_matches(name, list(known), n=1)
    return close[0] if close else None


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """``'nrod' (did you mean 'nord'?)``, or ``'nrod'`` alone when nothing known is close."""
    close = closest_name(name, known)
    return f"{name!r}" + (f" (did you mean {close!r}?)" if close else "")


def unknown_setting(key: str) -> str:
    """A key the file has and no setting takes, with the known key it was likely meant as."""
    known = list(Settings.model_fields)
    if closest_name(key, known) is not None:
        return f"unknown setting {did_you_mean(key, known)}"
    return f"unknown setting {key!r} (known: {', '.join(known)})"


_THEME_LINE = re.compile(r"^\s*theme\s*=.*$", re.MULTILINE)
_FIRST_TABLE = re.compile(r"^\s*\[", re.MULTILINE)


def save_theme(theme: str, path: Path | None = None) -> Path:
    """Set ``theme`` in the config file, keeping everything else as written."""
    path = path or config_path()
    try:
        text = read_regular(path, SETTINGS_LIMIT).decode("utf-8")
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
