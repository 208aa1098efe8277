"""The report's header (goose_tui/analysis/report.py) names each template row for the
template it is: the compaction prompt and the summary template, not "template" twice."""

from __future__ import annotations

import asyncio

from goose_tui.analysis.report import report_html, report_markdown
from goose_tui.inspector import Inspector
from goose_tui.session.loader import load_session
from tests.conftest import SAMPLES


def test_the_header_names_the_prompt_and_the_summary_template() -> None:
    inspector = Inspector()
    inspector.load(load_session(SAMPLES / "long_session.jsonl"))
    asyncio.run(inspector.compact())
    report = inspector.report()
    markdown, page = report_markdown(report), report_html(report)

    assert "- **compaction prompt**: compaction.md: built-in" in markdown, markdown[:800]
    assert "- **summary template**: compaction\\_summary.md: built-in" in markdown
    assert "**template**" not in markdown
    assert "<dt>compaction prompt</dt><dd>compaction.md: built-in</dd>" in page
    assert "<dt>summary template</dt><dd>compaction_summary.md: built-in</dd>" in page
