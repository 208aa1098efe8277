"""Which Unicode tables the goose-sdk wheel normalizes message text with, and that ours are
the same: the cases of tests/compaction/test_unicode_tables.py, and every string whose NFC
form differs between Python's own tables and ours (each canonical decomposition, and each
character whose combining class differs, next to marks of two classes), sent through the
wheel in one conversation and compared with what goose-tui writes."""

from __future__ import annotations

import unicodedata

import pytest

from goose_tui.compaction.format import format_messages, normalize_text
from tests.compaction.test_unicode_tables import NEWER_UNICODE
from tests.differential.conftest import ScriptedServer, our_messages
from tests.differential.corpus import Case
from tests.differential.test_findings import MARKED, sent_system_prompt

goose = pytest.importorskip(
    "goose", reason="goose-sdk (the reference wheel, module `goose`) is not installed"
)
unicodedata2 = pytest.importorskip("unicodedata2")


def tables_differ() -> list[str]:
    """Strings NFC-normalized differently by Python's tables and by unicodedata2's."""
    candidates: set[str] = set()
    for code in range(0x110000):
        if 0xD800 <= code < 0xE000:
            continue
        char = chr(code)
        decomposition = unicodedata2.decomposition(char)
        if decomposition and not decomposition.startswith("<"):
            candidates.add(char)
            candidates.add("".join(chr(int(part, 16)) for part in decomposition.split()))
        if unicodedata.combining(char) != unicodedata2.combining(char):
            for mark in ("\u0316", "\u0301", "\u05b0"):  # classes 220, 230, 10
                candidates.update((f"a{char}{mark}", f"a{mark}{char}"))
    return sorted(
        s for s in candidates if unicodedata.normalize("NFC", s) != unicodedata2.normalize("NFC", s)
    )


def test_fixed_cases_match_the_wheel(server: ScriptedServer) -> None:
    case = Case("unicode", tuple(("user", text) for _, text, _ in NEWER_UNICODE), "")
    sent = sent_system_prompt(server, case, MARKED)
    assert sent == "<<" + "\n".join(f"[user]: {e}" for _, _, e in NEWER_UNICODE) + ">>"


def test_every_difference_between_the_tables_matches_the_wheel(server: ScriptedServer) -> None:
    texts = tables_differ()
    assert len(texts) > 100  # compositions and reorderings of Unicode 15, 16 and 17
    case = Case("unicode", tuple(("user", text) for text in texts), "")
    sent = sent_system_prompt(server, case, MARKED)
    assert sent == "<<" + format_messages(our_messages(case)) + ">>"
    # Python's own tables would have sent every one of them differently.
    for line, text in zip(sent[2:-2].split("\n"), texts, strict=True):
        assert line == f"[user]: {normalize_text(text)}"
        assert line != f"[user]: {unicodedata.normalize('NFC', text)}"


def test_the_debug_form_of_two_characters_differs(server: ScriptedServer) -> None:
    """A documented difference (docs/fidelity.md): minijinja's debug form escapes by the
    Rust toolchain's Unicode tables, and the wheel's and the minijinja package's differ on
    U+FF9E and U+FF9F. Characters both escape, or both print, stay equal."""
    from goose_tui.compaction.templates import load_templates, render_compaction_prompt

    template = "{{ [messages] }}"
    ours = load_templates(None).with_text("compaction.md", template)
    for char, same in (("\uff9e", False), ("\uff9f", False), ("\u0301", True), ("\u00ad", True)):
        case = Case("debug", (("user", char),), "")
        theirs = sent_system_prompt(server, case, template)
        mine = str(render_compaction_prompt(ours, format_messages(our_messages(case))))
        assert (theirs == mine) is same, (char, theirs, mine)
        if not same:
            assert theirs == f'["[user]: {char}"]'
            assert mine == f'["[user]: \\u{{{ord(char):x}}}"]'
