"""``goose-tui compare`` with more than two sides: --side SPEC [DIR], repeated, after --a/--b."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goose_tui.cli import main
from tests.analysis.test_retention import HISTORY, write_session


@pytest.fixture
def session(tmp_path: Path) -> Path:
    return write_session(tmp_path / "s.jsonl", HISTORY)


@pytest.fixture
def short(tmp_path: Path) -> Path:
    """A summary template that keeps the errors only."""
    folder = tmp_path / "short"
    folder.mkdir()
    (folder / "compaction_summary.md").write_text(
        "# Conversation Summary\n{% for e in errors_and_fixes %}- {{ e }}\n{% endfor %}\n"
    )
    return folder


def test_three_sides_in_columns_each_read_against_a(
    session: Path, short: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = tmp_path / "saved.md"
    saved.write_text("calc.py was fixed\n")
    argv = ["compare", str(session), "--side", "offline", "--side", "offline", str(short)]
    argv += ["--side", f"summary:{saved}"]
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[2].split() == ["A", "B", "C"]
    assert out[3].split() == ["spec", "offline", "offline", "+", str(short), f"summary:{saved}"]
    header = next(line for line in out if line.startswith("FIELD"))
    assert header.split() == ["FIELD", "A", "->", "B", "A", "->", "C"]
    assert f"A -> C: no field diff: summary:{saved} is raw text (no structured summary)" in out
    assert "rendered Markdown, A -> B:" in out and "rendered Markdown, A -> C:" in out
    assert f"+++ offline + {short}" in out and f"+++ summary:{saved}" in out

    assert main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    a, b, c = data["sides"]
    assert b["label"] == f"offline + {short}" and c["fallback"] is True
    # The errors-only template keeps less of the history than the built-in one.
    assert b["retention"]["found"] < a["retention"]["found"]
    assert [d["note"] is None for d in data["diffs"]] == [True, False]


def test_a_and_b_come_first_and_side_adds_to_them(
    session: Path, short: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["compare", str(session), "--a", "offline", "--b", "offline", "--b-prompts-dir"]
    assert main([*argv, str(short), "--side", "offline", str(short), "--json"]) == 0
    labels = [s["label"] for s in json.loads(capsys.readouterr().out)["sides"]]
    assert labels == ["offline", f"offline + {short}", f"offline + {short}"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--a", "offline"], "compare needs two sides or more: --a and --b, or --side"),
        (["--side", "offline"], "compare needs two sides or more"),
        (["--b", "offline", "--side", "offline"], "--b needs --a"),
        (["--side", "offline", "--a-prompts-dir", "."], "--a-prompts-dir needs --a"),
        (
            ["--a", "offline", "--side", "offline", "x", "y"],
            "--side offline x y: one SPEC and at most one templates folder",
        ),
        (["--a", "offline", "--side", "offline", "nowhere"], "--side nowhere: not a folder"),
        (["--a", "offline", "--side", "replay:nowhere.txt"], "B: "),
    ],
)
def test_sides_that_cannot_be_compared_are_refused(
    session: Path, extra: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["compare", str(session), *extra]) == 2
    captured = capsys.readouterr()
    assert message in captured.err and captured.out == ""
