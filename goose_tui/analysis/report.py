"""One inspection as a report to share: what the summarizer read, what it wrote (the discarded
analysis, the parsed fields, the rendered summary), what the summary kept (retention), whether
the agent could still act from it (offline probes), and the comparison with another summary
when there is one. A rendering of results the inspector already has, as Markdown and as one
self-contained HTML page.

The HTML must open offline and stay inert: session text is untrusted, so every string is
escaped, the summary's Markdown is rendered with raw HTML, links and images turned off, and a
Content-Security-Policy forbids every request and every script.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BaseModel

from goose_tui.analysis.compare import (
    Comparison,
    SummarySide,
    compare_summaries,
    field_rows,
    side_rows,
)
from goose_tui.analysis.probes import (
    SCORE_NAME,
    ProbeReport,
    offline_report,
    probe_kind_rows,
)
from goose_tui.analysis.retention import (
    CATEGORY_LABELS,
    EVIDENCE_NAME,
    RetentionReport,
    format_score,
    retention_report,
    retention_rows,
)
from goose_tui.compaction.structured import StructuredSummary
from goose_tui.inert import inert
from goose_tui.session.models import Session

# The sections, in the order both renderings show them: (anchor, heading).
SECTIONS: tuple[tuple[str, str], ...] = (
    ("input", "Input: what the summarizer read"),
    ("analysis", "Analysis: the scratchpad Goose discards"),
    ("fields", "Parsed fields"),
    ("summary", "Rendered summary"),
    ("retention", f"Retention: {EVIDENCE_NAME}"),
    ("probes", f"Probes: {SCORE_NAME}"),
    ("compare", "Compare"),
)
HEADINGS = dict(SECTIONS)


class SessionFacts(BaseModel):
    title: str
    source: str | None
    session_id: str | None
    messages: int
    recorded_model: str | None  # "provider/model" as the session recorded it


class InspectionReport(BaseModel):
    """Everything one report shows; built by ``build_report`` from the inspector's state."""

    session: SessionFacts
    summary_by: str  # "summary by MODEL", or "summary edited by hand"
    goose_profile: str
    templates: tuple[str, str]  # which compaction.md and compaction_summary.md were used
    focus: str
    system_prompt: str
    user_request: str
    reply: str | None  # the model's reply; None when the summary was written by hand
    reading: str  # how the summary was read from the reply (the fields banner)
    analysis: str | None
    structured: dict[str, Any] | None
    summary: str
    retention: RetentionReport
    probes: ProbeReport
    comparison: Comparison | None = None


def build_report(
    session: Session,
    *,
    system_prompt: str,
    user_request: str,
    reply: str | None,
    reading: str,
    analysis: str | None,
    structured: StructuredSummary | None,
    summary: str,
    summary_by: str,
    goose_profile: str,
    templates: tuple[str, str],
    focus: str = "",
    compare_with: SummarySide | None = None,
) -> InspectionReport:
    """The report of one summary of ``session``; with ``compare_with``, the comparison of
    that summary (left) with this one (right)."""
    comparison = None
    if compare_with is not None:
        this = SummarySide(label=summary_by, summary=summary, structured=structured)
        comparison = compare_summaries([compare_with, this], session.messages, session.working_dir)
    provider, model = session.provider_name, session.model_name
    recorded = "/".join(part for part in (provider, model) if part) or None
    return InspectionReport(
        session=SessionFacts(
            title=session.title,
            source=str(session.source_path) if session.source_path else None,
            session_id=session.id,
            messages=len(session.messages),
            recorded_model=recorded,
        ),
        summary_by=summary_by,
        goose_profile=goose_profile,
        templates=templates,
        focus=focus,
        system_prompt=system_prompt,
        user_request=user_request,
        reply=reply,
        reading=reading,
        analysis=analysis,
        structured=structured.to_json_dict() if structured is not None else None,
        summary=summary,
        retention=retention_report(summary, session.messages),
        probes=offline_report(session.messages, summary, session.working_dir),
        comparison=comparison,
    )


def _facts(report: InspectionReport) -> list[tuple[str, str]]:
    s = report.session
    facts = [
        ("session", s.title),
        ("file", s.source or "(none)"),
        ("session id", s.session_id or "(none)"),
        ("messages", f"{s.messages:,}"),
        ("session's model", s.recorded_model or "(not recorded)"),
        ("summary", report.summary_by),
        ("Goose format", report.goose_profile),
        ("compaction prompt", report.templates[0]),
        ("summary template", report.templates[1]),
    ]
    if report.focus:
        facts.append(("focus", report.focus))
    facts.append(("reading", report.reading))
    return facts


def _missing_rows(r: RetentionReport) -> list[list[str]]:
    return [
        [
            f"#{i.message_index + 1}",
            CATEGORY_LABELS[i.category],
            i.text,
            "" if i.word_overlap is None else f"{i.word_overlap:.0%}",
        ]
        for i in r.missing()
    ]


PROBE_KIND_HEAD = ["kind", "probes", "found", "partial", "missing", "score"]


def _probe_result_rows(p: ProbeReport) -> list[list[str]]:
    return [
        [
            format_score(r.score),
            "-" if r.probe.message_index is None else f"#{r.probe.message_index + 1}",
            f"{r.probe.kind}: {r.probe.question}",
            r.probe.expected,
            r.answer or "(nothing)",
        ]
        for r in p.results
    ]


def _side_rows(c: Comparison) -> list[list[str]]:
    (_, *labels), *rest = side_rows(c.sides[:2])
    return [["summary", *labels], *rest]  # a report reader knows the sides as summaries


MISSING_HEAD = ["message", "category", "item", "its words in the summary"]
PROBE_HEAD = ["score", "from", "probe", "expected", "answered"]
MISSING_NOTE = (
    "An item is missing when the summary does not hold it as a whole (exactly, or with case, "
    "quotes and punctuation ignored); the last column is the share of its words the summary "
    "holds anyway, to tell a paraphrase from a loss."
)
PROBES_NOTE = (
    "Offline probes, built from the session's structure: the questions the agent must answer "
    "from the summary alone to go on, each one's evidence looked up in the summary by its "
    "meaning (no model call)."
)


# --- Markdown -----------------------------------------------------------------------------

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#|!~&])")


def _md_inline(text: str) -> str:
    """One line of untrusted text as inert Markdown: every character Markdown (or the HTML a
    viewer allows in it) would read as markup is escaped."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(inert(text).split()))


def _md_block(text: str, info: str = "text") -> list[str]:
    """A fenced block longer than any run of backticks inside, so the text cannot end it."""
    text = inert(text)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{info}", text.rstrip("\n"), fence]


def _md_table(head: list[str], rows: Iterable[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(_md_inline(cell) for cell in row) + " |" for row in rows]
    return lines


def report_markdown(report: InspectionReport) -> str:
    """The report as one Markdown document (untrusted text in fenced blocks or escaped)."""
    out = [f"# Compaction report: {_md_inline(report.session.title)}", ""]
    out += [f"- **{name}**: {_md_inline(value)}" for name, value in _facts(report)]

    def section(anchor: str) -> None:
        out.extend(["", f"## {HEADINGS[anchor]}", ""])

    section("input")
    out += ["System prompt:", "", *_md_block(report.system_prompt)]
    out += ["", "User message:", "", *_md_block(report.user_request)]
    if report.reply is not None:
        out += ["", "The model's reply, as received:", "", *_md_block(report.reply)]
    section("analysis")
    out += _md_block(report.analysis) if report.analysis else ["(no analysis block)"]
    section("fields")
    if report.structured is None:
        out.append("(no summary JSON: the raw-text fallback)")
    else:
        out += _md_block(json.dumps(report.structured, indent=2, ensure_ascii=False), "json")
    section("summary")
    out += _md_block(report.summary, "markdown")
    section("retention")
    out += _md_table(["category", "found", "total", "score"], retention_rows(report.retention))
    missing = _missing_rows(report.retention)
    if missing:
        out += ["", f"Missing ({len(missing)}). {MISSING_NOTE}", ""]
        out += _md_table(MISSING_HEAD, missing)
    section("probes")
    out += [PROBES_NOTE, ""]
    out += _md_table(PROBE_KIND_HEAD, probe_kind_rows(report.probes))
    if report.probes.results:
        out += ["", *_md_table(PROBE_HEAD, _probe_result_rows(report.probes))]
    section("compare")
    c = report.comparison
    if c is None:
        out.append("(no other summary to compare with)")
    else:
        out += _md_table(["", "A", "B"], _side_rows(c))
        out.append("")
        if c.diffs[0].note:
            out.append(_md_inline(c.diffs[0].note))
        else:
            out += _md_table(["field", "status", "added", "removed"], field_rows(c.diffs[0]))
        out += ["", "Rendered Markdown, A → B:", ""]
        out += _md_block(c.diffs[0].markdown_diff or "(identical)", "diff")
    return "\n".join(out) + "\n"


# --- HTML ---------------------------------------------------------------------------------

# No request may leave the page (no network asset, no script): the policy says it to the
# browser, on top of the escaping.
CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"

_STYLE = """
body { font: 15px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 72rem;
  padding: 1rem 2rem; color: #1d1d1f; background: #fff; }
h1 { font-size: 1.6rem; margin-bottom: .5rem; }
h2 { border-bottom: 2px solid #d0d7de; padding-bottom: .2rem; margin-top: 2rem; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .1rem 1rem; }
dl.facts dt { font-weight: 600; color: #57606a; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
nav a { margin-right: .8rem; }
pre { background: #f6f8fa; border: 1px solid #d0d7de; padding: .6rem; overflow-x: auto;
  white-space: pre-wrap; overflow-wrap: anywhere; font-size: 13px; }
table { border-collapse: collapse; margin: .5rem 0; }
th, td { border: 1px solid #d0d7de; padding: .2rem .5rem; text-align: left;
  vertical-align: top; overflow-wrap: anywhere; }
th { background: #f6f8fa; white-space: nowrap; }
td.num { text-align: right; white-space: nowrap; }
.rendered { border-left: 4px solid #0969da; padding: 0 1rem; }
.note { color: #57606a; }
details > summary { cursor: pointer; color: #0969da; }
"""


def _e(text: str) -> str:
    return html.escape(inert(text), quote=True)


def _html_table(
    head: list[str], rows: Iterable[list[str]], numeric: frozenset[int] = frozenset()
) -> str:
    cells = "".join(f"<th>{_e(h)}</th>" for h in head)
    body = []
    for row in rows:
        tds = "".join(
            f'<td class="num">{_e(c)}</td>' if i in numeric else f"<td>{_e(c)}</td>"
            for i, c in enumerate(row)
        )
        body.append(f"<tr>{tds}</tr>")
    return f"<table><thead><tr>{cells}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _pre(text: str) -> str:
    return f"<pre>{_e(text)}</pre>"


def _details(label: str, inner: str, *, open_: bool = False) -> str:
    return f"<details{' open' if open_ else ''}><summary>{_e(label)}</summary>{inner}</details>"


def _markdown_renderer() -> Callable[[str], str]:
    """Markdown to HTML with everything that could reach outside the page or run turned off:
    raw HTML is escaped, links and images stay as their text."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "linkify": False})
    md.disable(["image", "link", "autolink", "html_inline", "html_block", "reference"])
    return md.render


def _fields_html(structured: dict[str, Any]) -> str:
    def value_html(value: Any) -> str:
        if isinstance(value, list):
            if not value:
                return '<p class="note">(empty)</p>'
            return "<ul>" + "".join(f"<li>{value_html(v)}</li>" for v in value) + "</ul>"
        if isinstance(value, dict):
            items = "".join(
                f"<dt>{_e(str(k))}</dt><dd>{value_html(v)}</dd>" for k, v in value.items()
            )
            return f'<dl class="facts">{items}</dl>'
        if value is None or value == "":
            return '<p class="note">(empty)</p>'
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        return _pre(text) if "\n" in text else _e(text)

    parts = [f"<h3>{_e(name)}</h3>{value_html(value)}" for name, value in structured.items()]
    return "".join(parts)


def report_html(report: InspectionReport) -> str:
    """The report as one HTML page: inline CSS, no script, no network asset, every string
    escaped."""
    render_markdown = _markdown_renderer()
    title = f"Compaction report: {report.session.title}"
    facts = "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in _facts(report))
    nav = "".join(
        f'<a href="#{anchor}">{_e(heading.split(":")[0])}</a>' for anchor, heading in SECTIONS
    )
    body: dict[str, str] = {}

    inputs = _details(
        f"system prompt ({len(report.system_prompt):,} characters)", _pre(report.system_prompt)
    )
    inputs += _details("user message", _pre(report.user_request))
    if report.reply is not None:
        inputs += _details(
            f"the model's reply, as received ({len(report.reply):,} characters)", _pre(report.reply)
        )
    body["input"] = inputs
    body["analysis"] = (
        _pre(report.analysis) if report.analysis else '<p class="note">(no analysis block)</p>'
    )
    if report.structured is None:
        body["fields"] = '<p class="note">(no summary JSON: the raw-text fallback)</p>'
    else:
        as_json = json.dumps(report.structured, indent=2, ensure_ascii=False)
        body["fields"] = _fields_html(report.structured) + _details("as JSON", _pre(as_json))
    body["summary"] = (
        f'<div class="rendered">{render_markdown(inert(report.summary))}</div>'
        + _details("Markdown source", _pre(report.summary))
    )
    retention = _html_table(
        ["category", "found", "total", "score"],
        retention_rows(report.retention),
        frozenset({1, 2, 3}),
    )
    missing = _missing_rows(report.retention)
    if missing:
        retention += f'<h3>Missing ({len(missing):,})</h3><p class="note">{_e(MISSING_NOTE)}</p>'
        retention += _html_table(MISSING_HEAD, missing, frozenset({0, 3}))
    body["retention"] = retention
    probes = f'<p class="note">{_e(PROBES_NOTE)}</p>'
    probes += _html_table(PROBE_KIND_HEAD, probe_kind_rows(report.probes), frozenset(range(1, 6)))
    if report.probes.results:
        probes += _html_table(PROBE_HEAD, _probe_result_rows(report.probes), frozenset({0, 1}))
    body["probes"] = probes
    c = report.comparison
    if c is None:
        body["compare"] = '<p class="note">(no other summary to compare with)</p>'
    else:
        compare = _html_table(["", "A", "B"], _side_rows(c))
        if c.diffs[0].note:
            compare += f'<p class="note">{_e(c.diffs[0].note)}</p>'
        else:
            compare += _html_table(
                ["field", "status", "added", "removed"], field_rows(c.diffs[0]), frozenset({2, 3})
            )
        compare += "<h3>Rendered Markdown, A → B</h3>" + _pre(
            c.diffs[0].markdown_diff or "(identical)"
        )
        body["compare"] = compare

    sections = "".join(
        f'<section id="{anchor}"><h2>{_e(heading)}</h2>{body[anchor]}</section>'
        for anchor, heading in SECTIONS
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="referrer" content="no-referrer">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)}</title><style>{_STYLE}</style></head>\n"
        f'<body><header><h1>{_e(title)}</h1><dl class="facts">{facts}</dl>'
        f"<nav>{nav}</nav></header>\n<main>{sections}</main></body></html>\n"
    )
