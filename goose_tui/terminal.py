"""What the headless commands write to a terminal: never a control sequence from a session.

Data written to a pipe or a file stays byte for byte what the summarizer sees (like ``cat``;
docs/reliability.md). On a terminal, every stream of the CLI goes through ``visible``:
control characters, bidi overrides and zero-width characters become visible stand-ins, so
a session cannot clear the screen, set the title, write the clipboard or reorder text.
Whatever UTF-8 cannot hold (a lone surrogate from a session's JSON) is written as
``\\ud800`` instead of failing the command."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

# Bidi controls (ALM, LRM, RLM, LRE..RLO, LRI..PDI) and zero-width or invisible characters
# (ZWSP, ZWNJ, ZWJ, word joiner, invisible operators, the deprecated format characters,
# ZWNBSP/BOM, the Mongolian vowel separator, the tag characters U+E0000..U+E007F, which can
# spell hidden instructions and which Goose strips from a prompt): shown by name, as
# ``<U+202E>``.
INVISIBLE: frozenset[int] = frozenset(
    (
        0x061C,
        *range(0x200B, 0x2010),
        *range(0x202A, 0x202F),
        *range(0x2060, 0x2065),
        *range(0x2066, 0x2070),
        0x180E,
        0xFEFF,
        *range(0xE0000, 0xE0080),
    )
)

# The one table of stand-ins, for the CLI on a terminal and for the app (goose_tui/inert.py): C0
# controls map to the Unicode "control pictures" (U+2400..U+241F), DEL to U+2421; C1
# controls have no pictures and are spelled \x80..\x9f; invisible characters by name.
# Newline and tab keep their meaning (the app lays a tab out as spaces).
VISIBLE_TABLE: dict[int, str] = {code: chr(0x2400 + code) for code in range(0x20)}
VISIBLE_TABLE[0x7F] = "\u2421"
VISIBLE_TABLE.update({code: f"\\x{code:02x}" for code in range(0x80, 0xA0)})
del VISIBLE_TABLE[ord("\n")], VISIBLE_TABLE[ord("\t")]
VISIBLE_TABLE.update({code: f"<U+{code:04X}>" for code in INVISIBLE})


# For a field of a one-line row (a file name, an id, a model): a newline or a tab would
# split the row or shift its columns, so they are shown as pictures too.
ONE_LINE_TABLE: dict[int, str] = VISIBLE_TABLE | {ord("\n"): "\u2424", ord("\t"): "\u2409"}


def translator(table: dict[int, str]) -> Callable[[str], str]:
    """``text.translate(table)`` as a regex over the characters the table maps. A text with
    one character above U+00FF (an emoji) sends ``str.translate`` down its slow path, a dict
    lookup per character, seconds for a prompt of tens of MB; here untouched stretches are
    copied at C speed."""
    by_char = {chr(code): replacement for code, replacement in table.items()}
    pattern = re.compile("[" + _character_class(table) + "]")

    def replace(match: re.Match[str]) -> str:
        return by_char[match[0]]

    def apply(text: str) -> str:
        return pattern.sub(replace, text)

    return apply


def _character_class(codes: Iterable[int]) -> str:
    """The inside of a regex character class matching ``codes``, runs written as ranges: a
    class listing the 128 tag characters one by one makes every search many times slower
    than one range."""
    runs: list[list[int]] = []
    for code in sorted(codes):
        if runs and code == runs[-1][1] + 1:
            runs[-1][1] = code
        else:
            runs.append([code, code])
    return "".join(
        re.escape(chr(first)) + ("" if last == first else "-" + re.escape(chr(last)))
        for first, last in runs
    )


# In JSON text: DEL, C1 controls, bidi and zero-width characters as \\u escapes, which any
# JSON reader turns back into the same string (json.dumps escapes C0 itself); the app's JSON
# editor uses these, and the CLI's JSON also escapes lone surrogates.
def json_escape(code: int) -> str:
    """The JSON escape of one character: ``\\uXXXX``, or the surrogate pair's two past
    U+FFFF (JSON has no longer escape)."""
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


INERT_JSON_ESCAPES: dict[int, str] = {
    code: json_escape(code) for code in (0x7F, *range(0x80, 0xA0), *INVISIBLE)
}
_JSON_ESCAPES = INERT_JSON_ESCAPES | {code: f"\\u{code:04x}" for code in range(0xD800, 0xE000)}
_json_escapes = translator(_JSON_ESCAPES)
_visible = translator(VISIBLE_TABLE)
_one_line = translator(ONE_LINE_TABLE)


def json_text(value: Any) -> str:
    """``value`` as indented JSON with no control, bidi, zero-width or unencodable
    character left raw: safe on a terminal, valid UTF-8, and the same value when read."""
    return _json_escapes(json.dumps(value, ensure_ascii=False, indent=2))


def one_line(text: str) -> str:
    """``text`` with every control character, newline and tab included, and every bidi or
    zero-width character replaced by a visible stand-in: one row of a table stays one."""
    return _one_line(text)


def shorten(text: str, width: int) -> str:
    """``text`` with its whitespace runs made one space, cut to ``width`` characters with
    ``…`` at the end when longer: a cell or a line of a report."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def visible(text: str) -> str:
    """``text`` with every control, bidi and zero-width character replaced by a visible
    stand-in (newlines and tabs kept)."""
    return _visible(text)


class VisibleStream:
    """A text stream that passes everything written through ``visible``."""

    def __init__(self, stream: TextIO):
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(visible(text))
        return len(text)

    def writelines(self, texts: Iterable[str]) -> None:
        # Not passed through to the stream as it is (__getattr__): that would skip visible().
        for text in texts:
            self.write(text)

    @property
    def unguarded(self) -> TextIO:
        """The stream itself, for what writes its own control characters on purpose (the
        CLI's status line) and makes its text visible itself."""
        return self._stream

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextmanager
def guarded_streams(names: tuple[str, ...] = ("stdout", "stderr")) -> Iterator[None]:
    """While inside, the named streams (``sys.stdout``/``sys.stderr``) never fail on what
    UTF-8 cannot encode, and show control characters visibly when they are a terminal."""
    saved = sys.stdout, sys.stderr
    errors: list[tuple[Any, str]] = []
    try:
        for name in names:
            stream = getattr(sys, name)
            if stream is None:
                continue
            if hasattr(stream, "reconfigure") and isinstance(getattr(stream, "errors", 0), str):
                errors.append((stream, stream.errors))
                stream.reconfigure(errors="backslashreplace")
            try:
                tty = stream.isatty()
            except (AttributeError, ValueError):
                tty = False
            if tty:
                setattr(sys, name, VisibleStream(stream))
        yield
    finally:
        sys.stdout, sys.stderr = saved
        for stream, previous in errors:
            try:
                stream.reconfigure(errors=previous)
            except (ValueError, OSError):
                pass  # a closed stream (a broken pipe) keeps what it had
