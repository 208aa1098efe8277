"""Message text is NFC-normalized with the Unicode tables Goose's own normalization uses
(Unicode 17.0, from the ``unicodedata2`` package), not the tables of the Python running
goose-tui (3.11: Unicode 14.0). Each case below composes or orders differently between the
two; tests/differential/test_unicode_tables.py checks the same cases against the goose-sdk
wheel, and every composition and reordering that differs between the two tables."""

from __future__ import annotations

from typing import Any

import pytest

from goose_tui.compaction.format import UNICODE_VERSION, normalize_text
from goose_tui.compaction.profiles import PROFILES, format_for_profile
from goose_tui.session.models import Message

# (what the case shows, text, what the summarizer receives)
NEWER_UNICODE = [
    # Unicode 16 compositions (Tulu-Tigalari, Gurung Khema, Kirat Rai, Todhri).
    ("tulu-tigalari vowel sign", "\U000113c2\U000113b8", "\U000113c7"),
    ("tulu-tigalari letter", "\U0001138b\U000113c2", "\U0001138e"),
    ("gurung khema", "\U0001611e\U0001611e", "\U00016121"),
    ("kirat rai", "\U00016d63\U00016d67", "\U00016d69"),
    ("todhri", "\U000105d2\u0307", "\U000105c9"),
    # Combining classes new in Unicode 15 (Kawi), 16 and 17: canonical reordering.
    ("kawi sign", "a\u0316\U00011f41", "a\U00011f41\u0316"),
    ("tulu-tigalari sign", "a\u0316\U000113ce", "a\U000113ce\u0316"),
    ("combining double caron, new in 17", "a\u1acf\u0316", "a\u0316\u1acf"),
    # A mark below between a base and an acute blocks nothing once its class is known.
    ("arabic mark below of 17, then an acute", "a\U00010efa\u0301", "\u00e1\U00010efa"),
    # Unicode 18 gives U+05C8 a combining class; Goose's tables (17) do not reorder it.
    ("not yet reordered", "a\u0316\u05c8", "a\u0316\u05c8"),
]


def text_message(text: str) -> Message:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    return Message(role="user", created=1_700_000_000, content=content)


def test_the_tables_are_goose_s() -> None:
    assert UNICODE_VERSION == "17.0.0"


@pytest.mark.parametrize(
    ("text", "expected"), [case[1:] for case in NEWER_UNICODE], ids=[c[0] for c in NEWER_UNICODE]
)
def test_newer_compositions_and_orders(text: str, expected: str) -> None:
    assert normalize_text(text) == expected
    # Tag characters are removed after the normalization, as before.
    assert normalize_text(text + "\U000e0041") == expected


@pytest.mark.parametrize("profile", PROFILES)
def test_both_profiles_write_the_normalized_text(profile: Any) -> None:
    messages = [text_message(text) for _, text, _ in NEWER_UNICODE]
    written = format_for_profile(messages, profile)
    for _, text, expected in NEWER_UNICODE:
        assert expected in written
        assert text == expected or text not in written
