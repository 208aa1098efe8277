"""A file or an edit that is not JSON is named with json's own reason, its line and its
column, as one sentence: json's reasons that end in "at" ("Unterminated string starting at")
are followed by the place, never by a closing bracket or a second "at"."""

from __future__ import annotations

from pathlib import Path

import pytest

from goose_tui.compaction.structured import StructuredSummary
from goose_tui.session.loader import SessionLoadError, load_session
from tests.conftest import SAMPLES


def test_a_truncated_export_says_where_its_string_starts(tmp_path: Path) -> None:
    text = (SAMPLES / "export.json").read_text(encoding="utf-8")
    cut = text.index('"', text.index('"text"') + len('"text"') + 1) + 10  # inside a string
    path = tmp_path / "export.json"
    path.write_text(text[:cut], encoding="utf-8")
    with pytest.raises(SessionLoadError) as raised:
        load_session(path)
    line = text[:cut].count("\n") + 1
    assert f"invalid JSON: Unterminated string starting at line {line}, column" in str(
        raised.value
    ), raised.value


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{\n  "user_intent": ["cut', "Unterminated string starting at line 2, column 19"),
        ('{"user_intent": [}', "Expecting value at line 1, column 18"),
    ],
)
def test_a_hand_edited_summary_names_the_place_once(text: str, reason: str) -> None:
    with pytest.raises(ValueError) as raised:
        StructuredSummary.parse_json_text(text)
    assert str(raised.value) == reason
