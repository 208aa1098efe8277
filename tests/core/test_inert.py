"""``inert``: what the app shows of untrusted text, with bidi, zero-width and control
characters made visible, and ``restore`` giving the text back."""

from __future__ import annotations

from goose_tui.inert import inert, restore


def test_inert_shows_bidi_and_zero_width_characters() -> None:
    text = "a\u202eb\u2066c\u2067d\u2068e\u2069f\u200bg\u200dh\ufeffi\x1bj"
    shown = inert(text)
    assert shown == ("a<U+202E>b<U+2066>c<U+2067>d<U+2068>e<U+2069>f<U+200B>g<U+200D>h<U+FEFF>i␛j")
    assert restore(shown) == text
