"""Compare with more than two sides: every side's report, each later side against A."""

from __future__ import annotations

import pytest

from goose_tui.analysis.compare import (
    SummarySide,
    compare_summaries,
    fields_by_name,
    side_letter,
    status_text,
)
from tests.analysis.test_compare import LEFT, RIGHT
from tests.analysis.test_retention import HISTORY

A = SummarySide(label="a", summary="# Conversation Summary\n- ZeroDivisionError\n", structured=LEFT)
B = SummarySide(label="b", summary="# Conversation Summary\n- write tests\n", structured=RIGHT)
C = SummarySide(label="saved.md", summary="calc.py was fixed")


def test_three_sides_each_against_the_first() -> None:
    three = compare_summaries([A, B, C], HISTORY)
    assert [s.label for s in three.sides] == ["a", "b", "saved.md"]
    assert all(s.retention is not None and s.probes is not None for s in three.sides)
    # B against A is what comparing the two alone gives.
    assert three.diffs[0] == compare_summaries([A, B], HISTORY).diffs[0]
    assert three.sides[:2] == compare_summaries([A, B], HISTORY).sides
    # C is raw text: no field diff against A, said so, and its Markdown diff all the same.
    assert three.diffs[1].fields == [] and "saved.md" in (three.diffs[1].note or "")
    assert three.diffs[1].markdown_diff.splitlines()[:2] == ["--- a", "+++ saved.md"]
    data = three.to_json_dict()
    assert [s["label"] for s in data["sides"]] == ["a", "b", "saved.md"]
    assert len(data["diffs"]) == 2


def test_fields_line_up_by_name_across_the_later_sides() -> None:
    three = compare_summaries([A, B, A.model_copy(update={"label": "a again"})])
    rows = dict(fields_by_name(three, skip_empty=True))
    by_b, by_a_again = rows["user_intent"]
    assert by_b is not None and by_a_again is not None
    assert status_text(by_b, "B") == "changed +1 -1"
    assert status_text(by_a_again, "C") == "same"
    assert status_text(rows["files"][0], "B") == "only A"
    assert status_text(rows["model_notes"][0], "B") == "only B"
    # An extra only B wrote is no field of A against itself: nothing to line up there.
    assert rows["model_notes"][1] is None and status_text(None, "C") == "-"
    # Empty on every side: left out when asked.
    assert "pending_tasks" not in rows
    assert "pending_tasks" in dict(fields_by_name(three, skip_empty=False))


def test_side_letters_go_on_past_z() -> None:
    assert [side_letter(n) for n in (0, 1, 25, 26, 27, 51, 52)] == [
        "A", "B", "Z", "AA", "AB", "AZ", "BA",
    ]  # fmt: skip


def test_one_side_is_no_comparison() -> None:
    with pytest.raises(ValueError, match="at least two sides"):
        compare_summaries([A])
