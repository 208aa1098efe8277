"""Make untrusted text safe to show: control characters become visible symbols.

Session content and model replies may hold ANSI/OSC escape sequences (clear screen, set
title, clipboard writes). Textual passes most control characters straight to the terminal,
so every piece of untrusted text goes through ``inert`` before it reaches a widget.

Invisible format characters are shown too, as ``<U+202E>``: bidi overrides, embeddings and
isolates reorder what is drawn after them (a file name ``evil<U+202E>gpj.exe`` reads as
``evilexe.jpg``), and zero-width characters hide text or make two different names look equal.
"""

from __future__ import annotations

# C0 controls map to the Unicode "control pictures" block (U+2400..U+241F), DEL to U+2421;
# C1 controls have no pictures, so they are spelled out as \x80..\x9f.
_TABLE: dict[int, str] = {code: chr(0x2400 + code) for code in range(0x20)}
_TABLE[0x7F] = "\u2421"
_TABLE.update({code: f"\\x{code:02x}" for code in range(0x80, 0xA0)})
# Newlines and tabs keep their layout meaning.
del _TABLE[ord("\n")]
_TABLE[ord("\t")] = "    "

# Bidi controls (ALM, LRM, RLM, LRE..RLO, LRI..PDI) and zero-width or invisible characters
# (ZWSP, ZWNJ, ZWJ, word joiner, invisible operators, the deprecated format characters,
# ZWNBSP/BOM, the Mongolian vowel separator).
INVISIBLE: frozenset[int] = frozenset(
    (
        0x061C,
        *range(0x200B, 0x2010),
        *range(0x202A, 0x202F),
        *range(0x2060, 0x2065),
        *range(0x2066, 0x2070),
        0x180E,
        0xFEFF,
    )
)
_TABLE.update({code: f"<U+{code:04X}>" for code in INVISIBLE})

_REVERSE: dict[int, str] = {0x2400 + code: chr(code) for code in range(0x20)}
_REVERSE[0x2421] = "\x7f"
del _REVERSE[0x2400 + ord("\n")]
del _REVERSE[0x2400 + ord("\t")]


def inert(text: str) -> str:
    """``text`` with every control character except newline, and every bidi or zero-width
    character, replaced by a visible stand-in."""
    return text.translate(_TABLE)


def restore(text: str) -> str:
    """Undo ``inert`` for C0 pictures and ``<U+…>`` stand-ins, so an edited reply or path keeps
    its original characters.

    Tabs and C1 controls are not restored (they came back as spaces/escapes the user saw)."""
    text = text.translate(_REVERSE)
    if "<U+" in text:
        for code in INVISIBLE:
            text = text.replace(f"<U+{code:04X}>", chr(code))
    return text
