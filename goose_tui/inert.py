"""Make untrusted text safe to show: control characters become visible symbols.

Session content and model replies may hold ANSI/OSC escape sequences (clear screen, set
title, clipboard writes). Textual passes most control characters straight to the terminal,
so every piece of untrusted text goes through ``inert`` before it reaches a widget.

Invisible format characters are shown too, as ``<U+202E>``: bidi overrides, embeddings and
isolates reorder what is drawn after them (a file name ``evil<U+202E>gpj.exe`` reads as
``evilexe.jpg``), and zero-width characters hide text or make two different names look equal.
"""

from __future__ import annotations

import re

from goose_tui.terminal import INVISIBLE, VISIBLE_TABLE, translator

__all__ = ["INVISIBLE", "inert", "restore"]

# Tabs are laid out as spaces; everything else as the CLI shows it on a terminal.
_TABLE: dict[int, str] = VISIBLE_TABLE | {ord("\t"): "    "}

_inert = translator(_TABLE)

# The C0 and DEL pictures back to their characters (newline and tab have none).
_REVERSE: dict[int, str] = {
    ord(picture): chr(code)
    for code, picture in VISIBLE_TABLE.items()
    if code < 0x20 or code == 0x7F
}


def inert(text: str) -> str:
    """``text`` with every control character except newline, and every bidi or zero-width
    character, replaced by a visible stand-in."""
    return _inert(text)


def restore(text: str) -> str:
    """Undo ``inert`` for C0 pictures and ``<U+…>`` stand-ins, so an edited reply or path keeps
    its original characters.

    Tabs and C1 controls are not restored (they came back as spaces/escapes the user saw)."""
    text = text.translate(_REVERSE)
    if "<U+" in text:
        text = _STAND_IN.sub(_character, text)
    return text


_STAND_IN = re.compile(r"<U\+([0-9A-F]{4,5})>")


def _character(match: re.Match[str]) -> str:
    code = int(match[1], 16)
    # Only what inert writes: a "<U+0041>" typed by hand stays as typed.
    return chr(code) if code in INVISIBLE and f"<U+{code:04X}>" == match[0] else match[0]
