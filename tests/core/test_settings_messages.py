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
    settings, problems = load_settings(path)
    assert (settings.timeout, settings.threshold, settings.model) == (None, None, None)
    assert not problems.notes  # each said under the file's name
    lines = problems.ignored
    assert 'timeout = "abc" is not a number of seconds; the default applies' in lines, lines
    assert any(line.startswith("threshold = true is not a number (a fraction") for line in lines), (
        lines
    )
    assert any(line.startswith("model = 3 is not text") for line in lines), lines
    assert any(line.startswith('keymap."main.compact" = 5 is not text') for line in lines), lines
    assert not any("Input should" in line for line in lines)
