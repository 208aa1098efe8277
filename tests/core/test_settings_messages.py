"""A setting of the wrong type is named in the app's words (goose_tui/settings.py): the
key, the value as written, what the setting takes and what is used instead."""

from __future__ import annotations

from pathlib import Path

from goose_tui.settings import load_settings


def test_a_value_of_the_wrong_type_names_the_key_the_value_and_what_it_takes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        'timeout = "abc"\nthreshold = true\nmodel = 3\n[keymap]\n"main.compact" = 5\n',
        encoding="utf-8",
    )
    settings, problem = load_settings(path)
    assert (settings.timeout, settings.threshold, settings.model) == (None, None, None)
    assert problem is not None
    lines = problem.splitlines()
    assert f'{path}: timeout = "abc" is not a number of seconds; the default applies' in lines, (
        lines
    )
    assert any(
        line.startswith(f"{path}: threshold = true is not a number (a fraction") for line in lines
    ), lines
    assert any(line.startswith(f"{path}: model = 3 is not text") for line in lines), lines
    assert any(
        line.startswith(f'{path}: keymap."main.compact" = 5 is not text') for line in lines
    ), lines
    assert "Input should" not in problem
