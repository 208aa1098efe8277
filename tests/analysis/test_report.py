"""The inspection report (goose_tui/analysis/report.py) built through the Inspector from a
real compaction: every section in both renderings, untrusted text kept inert, and the save
rules (two new files, atomic, never over an input or an existing file unasked)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from goose_tui.analysis.report import SECTIONS, report_html, report_markdown
from goose_tui.files import OverwriteRefused
from goose_tui.inspector import Inspector
from goose_tui.llm.spec import ModelSpec
from goose_tui.session.loader import load_session
from tests.analysis.report_cases import write_hostile_session
from tests.conftest import SAMPLES

LONG = SAMPLES / "long_session.jsonl"


def compacted(session: Path, model: ModelSpec | None = None) -> Inspector:
    inspector = Inspector(model=model)
    inspector.load(load_session(session))
    asyncio.run(inspector.compact())
    return inspector


def test_both_renderings_hold_every_section_in_order() -> None:
    inspector = compacted(LONG)
    previous = inspector.previous_side()
    assert previous is None  # one compaction: nothing to compare with yet
    asyncio.run(inspector.compact())  # a second one: the first is now the previous summary
    report = inspector.report(inspector.previous_side())
    markdown, page = report_markdown(report), report_html(report)

    headings = [heading for _, heading in SECTIONS]
    md_order = [markdown.index(f"## {h}") for h in headings]
    assert md_order == sorted(md_order)
    html_order = [page.index(f'<section id="{anchor}">') for anchor, _ in SECTIONS]
    assert html_order == sorted(html_order)
    # Real content, not empty headings: the session's model, the prompt, the analysis, a
    # field, retention's table and the probes, and a comparison of two equal summaries.
    assert "ollama/qwen2.5-coder:14b" in markdown
    assert "You are handing this session over to yourself" in markdown
    assert "messages; 3 from the user, kept verbatim" in page
    assert "<h3>user_intent</h3>" in page
    assert "| evidence found |" in markdown and "recall" in markdown.lower()
    assert "(identical)" in markdown
    assert "no other summary" not in markdown


def test_a_summary_written_by_hand_reports_the_request_it_would_send() -> None:
    inspector = Inspector()
    inspector.load(load_session(LONG))
    asyncio.run(inspector.edit_json('{"user_intent": ["typed by hand"]}'))
    report = inspector.report()
    assert report.summary_by == "summary edited by hand"
    assert report.reply is None
    assert "You are handing this session over" in report.system_prompt
    assert "typed by hand" in report_markdown(report)


def test_untrusted_text_stays_text(tmp_path: Path) -> None:
    session, reply = write_hostile_session(tmp_path, 9)
    inspector = compacted(session, ModelSpec.parse(f"replay:{reply}"))
    report = inspector.report()
    page = report_html(report)
    markdown = report_markdown(report)

    # The page: no element of the session's text, no address to load, no escape sequence.
    for tag in ("<img", "<script", "<link", "<iframe", "<style>@import"):
        assert tag not in page, tag
    assert not re.search(r"<[^>]*\ssrc\s*=", page)
    # The only links are the page's own table of contents.
    assert all(href.startswith("#") for href in re.findall(r"href=\"([^\"]*)\"", page))
    assert "&lt;img src=" in page and "&lt;/pre&gt;&lt;script&gt;" in page
    assert "\x1b" not in page and "\u202e" not in page and "&lt;U+202E&gt;" in page
    assert "Content-Security-Policy" in page and "default-src 'none'" in page

    # The Markdown, as a viewer that allows raw HTML would render it: still only text.
    rendered = MarkdownIt("commonmark", {"html": True}).render(markdown)
    for tag in ("<img", "<script", "<link", "<iframe", "<a ", "<style"):
        assert tag not in rendered, tag
    assert "\x1b" not in markdown
    # The fence around the reply outlives the backtick runs inside it.
    assert "not the end of a fence" in rendered.split("<pre>")[1]


def test_save_writes_two_new_files_and_refuses_inputs_and_existing_ones(tmp_path: Path) -> None:
    inspector = compacted(LONG)
    target = tmp_path / "r.md"
    markdown, page = inspector.save_report(target, overwrite=False)
    assert (markdown, page) == (target, tmp_path / "r.html")
    assert markdown.read_text(encoding="utf-8").startswith("# Compaction report:")
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    before = page.read_bytes()
    with pytest.raises(OverwriteRefused, match="already exists"):
        inspector.save_report(target, overwrite=False)
    assert page.read_bytes() == before
    # Named by its HTML file, the report is the same pair.
    assert inspector.save_report(tmp_path / "r.html") == (markdown, page)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".goose-tui-")]
    assert not inspector.unsaved_summary_edits()


def test_an_input_named_by_either_file_refuses_both(tmp_path: Path) -> None:
    reply = tmp_path / "reply.html"  # a reply file happens to be the report's HTML twin
    session, hostile = write_hostile_session(tmp_path, 9)
    reply.write_bytes(hostile.read_bytes())
    inspector = compacted(session, ModelSpec.parse(f"replay:{reply}"))
    with pytest.raises(OverwriteRefused, match="input file"):
        inspector.save_report(tmp_path / "reply.md")
    assert not (tmp_path / "reply.md").exists()  # checked before either file is written
    assert reply.read_bytes() == hostile.read_bytes()
