"""Make untrusted text safe to show: control characters become visible symbols.

Session content and model replies may hold ANSI/OSC escape sequences (clear screen, set
title, clipboard writes). Textual passes most control characters straight to the terminal,
so every piece of untrusted text goes through ``inert`` before it reaches a widget.
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

_REVERSE: dict[int, str] = {0x2400 + code: chr(code) for code in range(0x20)}
_REVERSE[0x2421] = "\x7f"
del _REVERSE[0x2400 + ord("\n")]
del _REVERSE[0x2400 + ord("\t")]


def inert(text: str) -> str:
    """``text`` with every control character except newline replaced by a visible stand-in."""
    return text.translate(_TABLE)


def restore(text: str) -> str:
    """Undo ``inert`` for C0 pictures, so an edited reply keeps its original control bytes.

    Tabs and C1 controls are not restored (they came back as spaces/escapes the user saw)."""
    return text.translate(_REVERSE)
