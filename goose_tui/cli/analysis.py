"""How good a summary is: ``retention`` (what it kept of the history), ``probe`` (can the
agent still act from it) and ``compare`` (two summaries side by side)."""

from __future__ import annotations

import argparse
import asyncio
from typing import TYPE_CHECKING, Any

from goose_tui.analysis.compare import (
    Comparison,
    SideReport,
    SummarySide,
    compare_summaries,
    format_cost,
    side_from_result,
)
from goose_tui.analysis.probes import ProbeReport
from goose_tui.analysis.retention import CATEGORY_LABELS, RetentionReport, format_score
from goose_tui.cli.common import (
    EXIT_FAILED,
    EXIT_UNUSABLE,
    CliError,
    add_connection_args,
    add_model_args,
    add_prompts_dir,
    add_session_args,
    compaction_error,
    load_session_arg,
    load_templates_arg,
    model_arg,
    parse_model,
    prepare,
    print_json,
    read_text_arg,
    run_compaction,
    summarizer_of,
    usable,
)
from goose_tui.cli.tables import one_line, table
from goose_tui.compaction.templates import Templates
from goose_tui.llm.base import Summarizer
from goose_tui.llm.spec import ModelSpec, prefix_case_problem
from goose_tui.session.models import Message, Session

if TYPE_CHECKING:
    from goose_tui.compaction.summarize import CompactionResult

SUMMARY_PREFIX = "summary:"
SIDE_SPEC = "a model string, offline, replay:FILE, or summary:FILE (a saved summary)"
MAX_MISSING_SHOWN = 40


def register(sub: Any) -> None:
    s = sub.add_parser("retention")
    add_session_args(s)
    source = s.add_mutually_exclusive_group()
    source.add_argument("--summary", metavar="FILE", help="a saved summary (Markdown or text)")
    add_model_args(s, model_in=source, replay_in=source)
    add_prompts_dir(s)
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.set_defaults(handler=cmd_retention)

    s = sub.add_parser("compare")
    add_session_args(s)
    for side in ("a", "b"):
        s.add_argument(
            f"--{side}", required=True, metavar="SPEC", help=f"side {side.upper()}: {SIDE_SPEC}"
        )
        add_prompts_dir(s, f"--{side}-prompts-dir")
    add_connection_args(s)
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.set_defaults(handler=cmd_compare)

    s = sub.add_parser("probe")
    add_session_args(s)
    summary_or_reply = s.add_mutually_exclusive_group()
    summary_or_reply.add_argument(
        "--summary", metavar="FILE", help="the summary to probe (default: compact now)"
    )
    add_model_args(s, replay_in=summary_or_reply)
    s.add_argument(
        "--judge",
        metavar="M",
        help="the model that scores answers (default --model); a real --model writes and "
        "answers the probes (and compacts, without --summary), offline ones come from the "
        "session's structure",
    )
    add_prompts_dir(s)
    s.add_argument("--no-cache", action="store_true", help="ask every model call again")
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.set_defaults(handler=cmd_probe)


def _summary_to_judge(
    args: argparse.Namespace, session: Session, choice: ModelSpec | CliError
) -> tuple[str, str]:
    """(summary, where it came from): the --summary file, or a compaction now."""
    from goose_tui.compaction.reply_check import require_usable
    from goose_tui.compaction.summarize import summarize

    if args.summary is not None:
        return read_text_arg(args.summary, "summary"), f"summary {args.summary}"
    templates = load_templates_arg(args.prompts_dir)
    summarizer = summarizer_of(usable(choice))

    async def compacted() -> CompactionResult:
        result = await summarize(session.messages, summarizer, templates)
        require_usable(result)  # an empty reply or an error page is no summary (exit 1)
        return result

    result = run_compaction(compacted())
    return result.summary, f"model {summarizer.name}"


# --- retention ----------------------------------------------------------------------------


def retention_lines(report: RetentionReport) -> list[str]:
    rows = [["CATEGORY", "FOUND", "TOTAL", "SCORE"]]
    for c in report.categories:
        rows.append(
            [CATEGORY_LABELS[c.category], str(c.found), str(c.total), format_score(c.score)]
        )
    rows.append(["overall", str(report.found), str(report.total), format_score(report.overall)])
    lines = table(rows, right={1, 2, 3})
    missing = report.missing()
    if missing:
        lines += ["", f"missing ({len(missing)}):"]
        rows = [
            [f"#{i.message_index + 1}", CATEGORY_LABELS[i.category], one_line(i.text)]
            for i in missing[:MAX_MISSING_SHOWN]
        ]
        lines += ["  " + line for line in table(rows, right={0})]
        if len(missing) > MAX_MISSING_SHOWN:
            lines.append(f"  … and {len(missing) - MAX_MISSING_SHOWN} more (--json lists all)")
    return lines


def cmd_retention(args: argparse.Namespace) -> int:
    from goose_tui.analysis.retention import retention_report

    choice = model_arg(args)
    if args.summary is None:
        prepare(choice)
    session = load_session_arg(args)
    summary, source = _summary_to_judge(args, session, choice)
    report = retention_report(summary, session.messages)
    if args.json:
        from goose_tui.cli.reports import RetentionOutput

        print_json(RetentionOutput.of(session.title, source, report))
        return 0
    print(f"session  {session.title} ({len(session.messages)} messages)")
    print(f"summary  {source}")
    print()
    print("\n".join(retention_lines(report)))
    return 0


# --- probe --------------------------------------------------------------------------------


def probe_lines(report: ProbeReport) -> list[str]:
    from goose_tui.analysis.probes import PROBE_LABELS, format_probe_score

    rows = [["KIND", "PROBES", "SCORE"]]
    for k in report.kinds:
        rows.append([PROBE_LABELS[k.kind], str(k.probes), format_probe_score(k.score)])
    rows.append(["overall", str(len(report.results)), format_probe_score(report.overall)])
    lines = table(rows, right={1, 2})
    lines.append("")
    for r in report.results:
        source = "-" if r.probe.message_index is None else f"#{r.probe.message_index + 1}"
        question = one_line(r.probe.question, 80)
        lines.append(f"{format_probe_score(r.score):>4}  {source:>4}  {r.probe.kind}: {question}")
        lines.append(f"            expected: {one_line(r.probe.expected, 80)}")
        lines.append(f"            answered: {one_line(r.answer or '(nothing)', 80)}")
    if report.calls:
        made = [c for c in report.calls if not c.cached]
        lines += [
            "",
            f"{len(report.calls)} model calls ({len(made)} made, {len(report.calls) - len(made)} "
            f"from the cache), {report.tokens:,} tokens, cost {format_cost(report.cost_usd)}",
        ]
    return lines


def cmd_probe(args: argparse.Namespace) -> int:
    from goose_tui.analysis.probe_model import ProbeCache, ProbeError, run_probes, uses_a_model

    session = load_session_arg(args)
    choice = model_arg(args)
    writer = choice if isinstance(choice, ModelSpec) else None
    if args.judge is not None and not uses_a_model(writer):
        raise CliError("--judge needs --model with a real model", EXIT_UNUSABLE)
    judge = None
    if args.judge is not None:
        judge = parse_model(args.judge, args.api_base, args.timeout)
        if not uses_a_model(judge):
            raise CliError(f"--judge {args.judge}: not a model that can score", EXIT_UNUSABLE)
    summary, source = _summary_to_judge(args, session, choice)
    if uses_a_model(writer):
        load_templates_arg(args.prompts_dir)  # a bad --prompts-dir fails with exit code 2
    cache = None if args.no_cache else ProbeCache()
    try:
        report = run_compaction(
            run_probes(
                session.messages,
                summary,
                writer,
                judge,
                prompts_dir=args.prompts_dir,
                cache=cache,
                working_dir=session.working_dir,
            )
        )
    except ProbeError as exc:
        raise CliError(str(exc), EXIT_FAILED) from exc
    if args.json:
        from goose_tui.cli.reports import ProbeOutput

        print_json(ProbeOutput.of(session.title, source, report))
        return 0
    print(f"session  {session.title} ({len(session.messages)} messages)")
    print(f"summary  {source}")
    who = (
        "offline (from the session's structure)"
        if report.mode == "offline"
        else (f"written and answered by {report.writer}, judged by {report.judge}")
    )
    print(f"probes   {who}")
    print()
    print("\n".join(probe_lines(report)))
    return 0


# --- compare ------------------------------------------------------------------------------


def _side_source(
    side: str, text: str, api_base: str | None, timeout: float | None
) -> str | Summarizer:
    """A side of ``compare``: a saved summary's text (``summary:FILE``), or a model's
    summarizer (a missing reply file fails here, before either side calls a model). Its
    errors name the side."""
    try:
        if (problem := prefix_case_problem(text, SUMMARY_PREFIX)) is not None:
            raise CliError(problem, EXIT_UNUSABLE)
        if text.startswith(SUMMARY_PREFIX):
            path = text[len(SUMMARY_PREFIX) :]
            if not path:  # Path("") is ".": "is a folder"
                raise CliError(
                    f"{SUMMARY_PREFIX} needs a file, as in {SUMMARY_PREFIX}summary.md",
                    EXIT_UNUSABLE,
                )
            return read_text_arg(path, "summary")
        return summarizer_of(parse_model(text, api_base, timeout))
    except CliError as exc:
        raise CliError(f"{side}: {exc}", exc.exit_code) from exc


async def _make_side(
    side: str,
    label: str,
    source: str | Summarizer,
    messages: list[Message],
    templates: Templates,
) -> SummarySide:
    """One side's summary; a failure is the CLI error of the pipeline's, naming the side."""
    try:
        return await _summary_side(label, source, messages, templates)
    except Exception as exc:
        error = compaction_error(exc)
        if error is None:
            raise
        raise CliError(f"{side}: {error}", error.exit_code) from exc


async def _summary_side(
    label: str, source: str | Summarizer, messages: list[Message], templates: Templates
) -> SummarySide:
    from goose_tui.compaction.reply_check import require_usable
    from goose_tui.compaction.summarize import finish, summarize

    if isinstance(source, str):
        # A saved reply or summary JSON reads as structured; saved Markdown stays as is.
        extraction, rendered = finish(source, templates)
        if extraction.structured is None:
            return SummarySide(label=label, summary=source.rstrip("\n"))
        return SummarySide(label=label, summary=rendered, structured=extraction.structured)
    result = await summarize(messages, source, templates)
    require_usable(result)
    return side_from_result(label, result)


async def _both_sides(
    args: argparse.Namespace,
    sources: tuple[str | Summarizer, str | Summarizer],
    messages: list[Message],
    templates: tuple[Templates, Templates],
) -> list[SummarySide]:
    sides = await asyncio.gather(
        _make_side("A", args.a, sources[0], messages, templates[0]),
        _make_side("B", args.b, sources[1], messages, templates[1]),
    )
    # Name the templates too, so that the same model with two prompt folders reads apart.
    for side, folder in zip(sides, (args.a_prompts_dir, args.b_prompts_dir), strict=True):
        if folder is not None:
            side.label = f"{side.label} + {folder}"
    return list(sides)


def _side_rows(a: SideReport, b: SideReport) -> list[list[str]]:
    rows = [
        ["", "A", "B"],
        ["spec", a.label, b.label],
        ["tokens", f"{a.tokens:,}", f"{b.tokens:,}"],
        [
            "structured",
            "no (raw text)" if a.fallback else "yes",
            "no (raw text)" if b.fallback else "yes",
        ],
        ["cost", format_cost(a.cost_usd), format_cost(b.cost_usd)],
    ]
    if a.retention and b.retention:
        rows.append(
            ["retention", format_score(a.retention.overall), format_score(b.retention.overall)]
        )
        for ca, cb in zip(a.retention.categories, b.retention.categories, strict=True):
            label = "  " + CATEGORY_LABELS[ca.category]
            rows.append([label, f"{ca.found}/{ca.total}", f"{cb.found}/{cb.total}"])
    if a.probes and b.probes:
        from goose_tui.analysis.probes import PROBE_LABELS, format_probe_score

        rows.append(
            ["probes", format_probe_score(a.probes.overall), format_probe_score(b.probes.overall)]
        )
        for ka, kb in zip(a.probes.kinds, b.probes.kinds, strict=True):
            rows.append(
                [
                    "  " + PROBE_LABELS[ka.kind],
                    f"{format_probe_score(ka.score)} of {ka.probes}",
                    f"{format_probe_score(kb.score)} of {kb.probes}",
                ]
            )
    return rows


def comparison_lines(c: Comparison) -> list[str]:
    lines = table(_side_rows(c.left, c.right))
    lines.append("")
    if c.note:
        lines.append(c.note)
    else:
        rows = [["FIELD", "STATUS", "ADDED", "REMOVED"]]
        for f in c.fields:
            if f.status == "same" and not f.left:
                continue  # empty on both sides: nothing to say
            rows.append(
                [f.field, f.status.replace("_", " "), f"+{len(f.added)}", f"-{len(f.removed)}"]
            )
        lines += table(rows, right={2, 3})
    lines += ["", "rendered Markdown, A -> B:"]
    lines.append(c.markdown_diff.rstrip("\n") if c.markdown_diff else "(identical)")
    return lines


def cmd_compare(args: argparse.Namespace) -> int:
    session = load_session_arg(args)
    templates = (
        load_templates_arg(args.a_prompts_dir, "--a-prompts-dir"),
        load_templates_arg(args.b_prompts_dir, "--b-prompts-dir"),
    )
    sources = (
        _side_source("A", args.a, args.api_base, args.timeout),
        _side_source("B", args.b, args.api_base, args.timeout),
    )
    left, right = run_compaction(_both_sides(args, sources, session.messages, templates))
    comparison = compare_summaries(left, right, session.messages, session.working_dir)
    if args.json:
        from goose_tui.cli.reports import CompareOutput

        print_json(CompareOutput.of(session.title, comparison))
        return 0
    print(f"session  {session.title} ({len(session.messages)} messages)")
    print()
    print("\n".join(comparison_lines(comparison)))
    return 0
