"""One table of visible stand-ins (goose_tui/terminal.py) for the CLI on a terminal and for
the app (goose_tui/inert.py): both show the same characters the same way, tabs aside."""

from __future__ import annotations

import json

from goose_tui.inert import inert, restore
from goose_tui.terminal import INVISIBLE, json_text, visible

# Every code point of the Basic Multilingual Plane but the surrogates, the tag characters,
# and the planes above sampled around them.
CHARACTERS = [
    chr(code)
    for code in (
        *range(0xD800),
        *range(0xE000, 0x10000),
        0x10000,
        0xDFFFF,
        *range(0xE0000, 0xE0081),
        0x10FFFF,
    )
]
SHOWN = {
    *(set(range(0x20)) - {ord("\n"), ord("\t")}),
    0x7F,
    *range(0x80, 0xA0),
    # Bidi controls, zero-width and invisible format characters.
    0x061C,
    0x180E,
    *range(0x200B, 0x2010),
    *range(0x202A, 0x202F),
    *range(0x2060, 0x2065),
    *range(0x2066, 0x2070),
    0xFEFF,
    # Tag characters: they can spell instructions no reader sees (Goose strips them).
    *range(0xE0000, 0xE0080),
}


def test_the_cli_and_the_app_show_the_same_characters() -> None:
    assert {ord(c) for c in CHARACTERS if visible(c) != c} == SHOWN
    assert all(inert(c) == visible(c) for c in CHARACTERS if c != "\t")
    assert visible("\t") == "\t" and inert("\t") == "    "
    assert visible("\n") == inert("\n") == "\n"


def test_the_stand_ins() -> None:
    assert visible("\x1b[2J\x07") == "\u241b[2J\u2407"
    assert visible("\x7f\x9b") == "\u2421\\x9b"
    assert visible("evil\u202egpj.exe") == "evil<U+202E>gpj.exe"
    assert visible("a\u180eb\u2064c") == "a<U+180E>b<U+2064>c"
    assert visible("hi\U000e0069\U000e007f") == "hi<U+E0069><U+E007F>"


def test_json_text_escapes_the_same_invisible_characters() -> None:
    text = "".join(chr(code) for code in sorted(INVISIBLE))
    out = json_text({"v": text})
    assert not any(chr(code) in out for code in INVISIBLE)
    assert json.loads(out) == {"v": text}


def test_restore_undoes_inert_for_pictures_and_invisible_characters() -> None:
    text = "".join(chr(code) for code in sorted(SHOWN) if code < 0x80) + "\u202e\u180e\n"
    text += "\U000e0041\U000e007f"
    assert restore(inert(text)) == text
    assert restore("<U+0041> <U+e0041> <U+E0041>") == "<U+0041> <U+e0041> \U000e0041"
    assert restore(inert("a\tb")) == "a    b"  # a tab stays the spaces the user saw


def test_each_table_is_applied_as_str_translate_applies_it() -> None:
    # terminal.translator replaces str.translate, which was 20-50x slower on any text with a
    # character above U+00FF (the whole prompt of a session with one emoji).
    import random

    from goose_tui import inert as inert_module
    from goose_tui import terminal

    tables = [terminal.VISIBLE_TABLE, terminal._JSON_ESCAPES, inert_module._TABLE]
    keys = sorted({chr(code) for table in tables for code in table})
    pool = [*keys, *CHARACTERS[::97], "🚀", "é", "\n", "ab", "\U0010ffff"]
    rng = random.Random(7)
    texts = [
        "",
        "".join(CHARACTERS),
        "".join(keys),
        *("".join(rng.choices(pool, k=n)) for n in range(1, 400, 7)),
    ]
    for table in tables:
        apply = terminal.translator(table)
        for text in texts:
            assert apply(text) == text.translate(table)
