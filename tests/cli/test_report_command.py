"""``goose-tui report``, run by its main in this process on real files: both files written,
an existing one refused before any work (unless --overwrite), an input never written, and
a comparison when --compare names another summary."""

from __future__ import annotations

from pathlib import Path

import pytest

from goose_tui.cli import main
from tests.conftest import SAMPLES

LONG = SAMPLES / "long_session.jsonl"


def test_report_writes_markdown_and_html_and_refuses_to_replace_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "inspection.md"
    assert main(["report", str(LONG), "-o", str(target)]) == 0
    out = capsys.readouterr()
    page = tmp_path / "inspection.html"
    assert out.out.splitlines() == [str(target), str(page)]
    assert "## Rendered summary" in target.read_text(encoding="utf-8")
    assert '<section id="retention">' in page.read_text(encoding="utf-8")

    target.unlink()  # only the HTML twin is there: it alone refuses the run
    page.write_text("mine", encoding="utf-8")
    assert main(["report", str(LONG), "-o", str(target)]) == 2
    err = capsys.readouterr().err
    assert "inspection.html: already exists (pass --overwrite to replace it)" in err
    assert page.read_text(encoding="utf-8") == "mine" and not target.exists()

    assert main(["report", str(LONG), "-o", str(target), "--overwrite"]) == 0
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_report_never_writes_over_its_session(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session = tmp_path / "s.md"  # a session whose name a report would take
    session.write_bytes(LONG.read_bytes())
    assert main(["report", str(session), "-o", str(session), "--overwrite"]) == 2
    assert "refusing to write over an input file" in capsys.readouterr().err
    assert session.read_bytes() == LONG.read_bytes()
    assert not (tmp_path / "s.html").exists()


def test_report_compares_with_another_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = tmp_path / "old.summary.md"
    saved.write_text("## Earlier\n\nOnly the rounding bug.\n", encoding="utf-8")
    target = tmp_path / "r.md"
    assert main(["report", str(LONG), "-o", str(target), "--compare", f"summary:{saved}"]) == 0
    markdown = target.read_text(encoding="utf-8")
    compare = markdown.split("## Compare", 1)[1]
    assert "summary:" in compare and "summary by offline" in compare
    assert "+Only the rounding bug." not in compare and "-Only the rounding bug." in compare
