"""The analysis sub-commands of ``goose-tui``: retention, compare, timeline, batch.

``register(subparsers)`` adds them to the CLI's parser and returns their handlers; each
handler takes the parsed arguments and returns an exit code, and reports a failure by raising
``goose_tui.cli.CliError`` (imported inside the handlers: cli imports this module).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from goose_tui.analysis.compare import (
    Comparison,
    SideReport,
    SummarySide,
    compare_summaries,
    format_cost,
    side_from_result,
)
from goose_tui.analysis.retention import CATEGORY_LABELS, RetentionReport, format_score
from goose_tui.analysis.timeline import Timeline, marker_line, session_timeline, sparkline

Handler = Callable[[argparse.Namespace], int]
SUMMARY_PREFIX = "summary:"
SPARK_WIDTH = 64
MAX_MISSING_SHOWN = 40


def register(subparsers: Any) -> dict[str, Handler]:
    s = subparsers.add_parser("retention", help="what a summary lost from the history")
    _session_args(s)
    source = s.add_mutually_exclusive_group()
    source.add_argument("--summary", metavar="FILE", help="a saved summary (Markdown or text)")
    source.add_argument("--model", metavar="M", help="compact now with M (default offline)")
    source.add_argument("--replay", type=Path, metavar="FILE", help="compact with a saved reply")
    _prompts_dir(s, "--prompts-dir")
    s.add_argument("--api-base", metavar="URL", help="base URL of an OpenAI-compatible server")
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.set_defaults(offline_context_limit=None)

    s = subparsers.add_parser("compare", help="two summaries of one session side by side")
    _session_args(s)
    for side in ("a", "b"):
        s.add_argument(
            f"--{side}",
            required=True,
            metavar="SPEC",
            help="a model string, offline, replay:FILE, or summary:FILE (a saved summary)",
        )
        _prompts_dir(s, f"--{side}-prompts-dir")
    s.add_argument("--api-base", metavar="URL", help="base URL of an OpenAI-compatible server")
    s.add_argument("--json", action="store_true", help="print one JSON object")

    s = subparsers.add_parser("timeline", help="how the context grew, and where it compacts")
    _session_args(s)
    s.add_argument("--threshold", type=float, metavar="T", help="compaction threshold (0.8)")
    s.add_argument("--context-limit", type=int, metavar="N", help="context window in tokens")
    s.add_argument("--model", metavar="M", help="model whose context window to use")
    s.add_argument("--json", action="store_true", help="print one JSON object")

    s = subparsers.add_parser("batch", help="compact many sessions and report on all")
    s.add_argument("target", metavar="DIR_OR_DB", type=Path, help="a folder or a sessions.db")
    s.add_argument("--model", required=True, metavar="M", help="offline, replay:FILE or a model")
    s.add_argument("--concurrency", type=int, default=4, metavar="N", help="at once (4)")
    from goose_tui.cli import add_all_sessions_flag

    add_all_sessions_flag(s)
    _prompts_dir(s, "--prompts-dir")
    s.add_argument("--api-base", metavar="URL", help="base URL of an OpenAI-compatible server")
    s.add_argument("--json", action="store_true", help="print the report as JSON")
    s.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="REPORT",
        help="write the report as JSON here and as a Markdown table beside it (.md)",
    )
    s = subparsers.add_parser("probe", help="can the agent still act from the summary?")
    _session_args(s)
    s.add_argument("--summary", metavar="FILE", help="the summary to probe (default: compact now)")
    s.add_argument(
        "--model",
        metavar="M",
        help="offline (default: probes from the session's structure) or a model that "
        "writes and answers the probes (and compacts, without --summary)",
    )
    s.add_argument("--replay", type=Path, metavar="FILE", help="compact with a saved reply")
    s.add_argument("--judge", metavar="M", help="the model that scores answers (default --model)")
    _prompts_dir(s, "--prompts-dir")
    s.add_argument("--api-base", metavar="URL", help="base URL of an OpenAI-compatible server")
    s.add_argument("--no-cache", action="store_true", help="ask every model call again")
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.set_defaults(offline_context_limit=None)

    return {
        "probe": cmd_probe,
        "retention": cmd_retention,
        "compare": cmd_compare,
        "timeline": cmd_timeline,
        "batch": cmd_batch,
    }


def _session_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("session", metavar="SESSION", type=Path, help="a Goose session file or db")
    p.add_argument("--session", dest="session_id", metavar="ID", help="which session of a db")
    from goose_tui.cli import add_all_sessions_flag

    add_all_sessions_flag(p)


def _prompts_dir(p: argparse.ArgumentParser, flag: str) -> None:
    p.add_argument(flag, type=Path, metavar="DIR", help="compaction.md / compaction_summary.md")


# --- shared -------------------------------------------------------------------------------


def _templates(prompts_dir: Path | None, flag: str = "--prompts-dir") -> Any:
    from goose_tui.cli import load_templates_arg

    return load_templates_arg(prompts_dir, flag)


def _summarizer(spec: str, api_base: str | None) -> Any:
    from goose_tui.cli import summarizer_for

    return summarizer_for(spec, api_base)


def _run(coro: Any) -> Any:
    from goose_tui.cli import run_compaction

    return run_compaction(coro)


def _table(rows: list[list[str]], right: frozenset[int] | set[int] = frozenset()) -> list[str]:
    """Rows aligned in columns; the columns in ``right`` are right-aligned (numbers)."""
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    lines = []
    for r in rows:
        cells = [
            cell.rjust(widths[c]) if c in right else cell.ljust(widths[c])
            for c, cell in enumerate(r)
        ]
        lines.append("  ".join(cells).rstrip())
    return lines


def _one_line(text: str, width: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


# --- retention ----------------------------------------------------------------------------


def retention_lines(report: RetentionReport) -> list[str]:
    rows = [["CATEGORY", "FOUND", "TOTAL", "SCORE"]]
    for c in report.categories:
        rows.append(
            [CATEGORY_LABELS[c.category], str(c.found), str(c.total), format_score(c.score)]
        )
    rows.append(["overall", str(report.found), str(report.total), format_score(report.overall)])
    lines = _table(rows, right={1, 2, 3})
    missing = report.missing()
    if missing:
        lines += ["", f"missing ({len(missing)}):"]
        rows = [
            [f"#{i.message_index + 1}", CATEGORY_LABELS[i.category], _one_line(i.text)]
            for i in missing[:MAX_MISSING_SHOWN]
        ]
        lines += ["  " + line for line in _table(rows, right={0})]
        if len(missing) > MAX_MISSING_SHOWN:
            lines.append(f"  … and {len(missing) - MAX_MISSING_SHOWN} more (--json lists all)")
    return lines


def cmd_retention(args: argparse.Namespace) -> int:
    from goose_tui import cli
    from goose_tui.analysis.retention import retention_report
    from goose_tui.compaction.summarize import summarize

    if args.summary is None:
        cli.prepare_model_from_args(args)
    session = cli._load(args)
    if args.summary is not None:
        summary = cli.read_text_arg(args.summary, "summary")
        source = f"summary {args.summary}"
    else:
        templates = _templates(args.prompts_dir)
        summarizer = cli.make_summarizer_from_args(args)
        result = _run(summarize(session.messages, summarizer, templates))
        summary, source = result.summary, f"model {summarizer.name}"
    report = retention_report(summary, session.messages)
    if args.json:
        cli.print_json(
            {"session": session.title, "summary_source": source, **report.to_json_dict()}
        )
        return 0
    print(f"session  {session.title} ({len(session.messages)} messages)")
    print(f"summary  {source}")
    print()
    print("\n".join(retention_lines(report)))
    return 0


# --- probe --------------------------------------------------------------------------------


def probe_lines(report: Any) -> list[str]:
    from goose_tui.analysis.probes import PROBE_LABELS, format_probe_score

    rows = [["KIND", "PROBES", "SCORE"]]
    for k in report.kinds:
        rows.append([PROBE_LABELS[k.kind], str(k.probes), format_probe_score(k.score)])
    rows.append(["overall", str(len(report.results)), format_probe_score(report.overall)])
    lines = _table(rows, right={1, 2})
    lines.append("")
    for r in report.results:
        source = "-" if r.probe.message_index is None else f"#{r.probe.message_index + 1}"
        question = _one_line(r.probe.question, 80)
        lines.append(f"{format_probe_score(r.score):>4}  {source:>4}  {r.probe.kind}: {question}")
        lines.append(f"            expected: {_one_line(r.probe.expected, 80)}")
        lines.append(f"            answered: {_one_line(r.answer or '(nothing)', 80)}")
    if report.calls:
        made = [c for c in report.calls if not c.cached]
        lines += [
            "",
            f"{len(report.calls)} model calls ({len(made)} made, {len(report.calls) - len(made)} "
            f"from the cache), {report.tokens:,} tokens, cost {format_cost(report.cost_usd)}",
        ]
    return lines


def cmd_probe(args: argparse.Namespace) -> int:
    from goose_tui import cli
    from goose_tui.analysis.probe_model import ProbeCache, ProbeError, run_probes, uses_a_model
    from goose_tui.compaction.summarize import summarize

    session = cli._load(args)
    model = args.model or "offline"
    if args.judge is not None and not uses_a_model(model):
        raise cli.CliError("--judge needs --model with a real model", cli.EXIT_UNUSABLE)
    if args.judge is not None and not uses_a_model(args.judge):
        raise cli.CliError(f"--judge {args.judge}: not a model that can score", cli.EXIT_UNUSABLE)
    if args.summary is not None:
        summary = cli.read_text_arg(args.summary, "summary")
        source = f"summary {args.summary}"
    else:
        templates = _templates(args.prompts_dir)
        summarizer = cli.make_summarizer_from_args(args)
        result = _run(summarize(session.messages, summarizer, templates))
        summary, source = result.summary, f"model {summarizer.name}"
    if uses_a_model(model):
        _templates(args.prompts_dir)  # a bad --prompts-dir fails with exit code 2
    cache = None if args.no_cache else ProbeCache()
    try:
        report = _run(
            run_probes(
                session.messages,
                summary,
                model if args.replay is None else "offline",
                args.judge,
                api_base=args.api_base,
                prompts_dir=args.prompts_dir,
                cache=cache,
                working_dir=session.working_dir,
            )
        )
    except ProbeError as exc:
        raise cli.CliError(str(exc), cli.EXIT_FAILED) from exc
    if args.json:
        cli.print_json(
            {"session": session.title, "summary_source": source, **report.to_json_dict()}
        )
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


async def _make_side(
    spec: str, messages: list[Any], templates: Any, api_base: str | None
) -> SummarySide:
    from goose_tui.compaction.summarize import finish, summarize

    if spec.startswith(SUMMARY_PREFIX):
        from goose_tui.cli import read_text_arg

        text = read_text_arg(spec[len(SUMMARY_PREFIX) :], "summary")
        # A saved reply or summary JSON reads as structured; saved Markdown stays as is.
        extraction, rendered = finish(text, templates)
        if extraction.structured is None:
            return SummarySide(label=spec, summary=text.rstrip("\n"))
        return SummarySide(label=spec, summary=rendered, structured=extraction.structured)
    result = await summarize(messages, _summarizer(spec, api_base), templates)
    return side_from_result(spec, result)


async def _both_sides(
    args: argparse.Namespace, messages: list[Any], templates: tuple[Any, Any]
) -> list[SummarySide]:
    sides = await asyncio.gather(
        _make_side(args.a, messages, templates[0], args.api_base),
        _make_side(args.b, messages, templates[1], args.api_base),
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
    lines = _table(_side_rows(c.left, c.right))
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
        lines += _table(rows, right={2, 3})
    lines += ["", "rendered Markdown, A -> B:"]
    lines.append(c.markdown_diff.rstrip("\n") if c.markdown_diff else "(identical)")
    return lines


def cmd_compare(args: argparse.Namespace) -> int:
    from goose_tui import cli

    session = cli._load(args)
    templates = (
        _templates(args.a_prompts_dir, "--a-prompts-dir"),
        _templates(args.b_prompts_dir, "--b-prompts-dir"),
    )
    left, right = _run(_both_sides(args, session.messages, templates))
    comparison = compare_summaries(left, right, session.messages, session.working_dir)
    if args.json:
        cli.print_json({"session": session.title, **comparison.to_json_dict()})
        return 0
    print(f"session  {session.title} ({len(session.messages)} messages)")
    print()
    print("\n".join(comparison_lines(comparison)))
    return 0


# --- timeline -----------------------------------------------------------------------------


def timeline_lines(t: Timeline) -> list[str]:
    values = [p.cumulative for p in t.points]
    spark = sparkline(values, width=SPARK_WIDTH)
    marks = {e.index: "S" for e in t.events if e.kind == "summary"}
    first = t.triggers[0].first_index if t.triggers else None
    if first is not None:
        marks.setdefault(first, "^")
    peak_share = t.peak / t.context_limit if t.context_limit else 0.0
    lines = [
        f"window   {t.context_limit:,} tokens (from {t.limit_source}), threshold {t.threshold:g}",
        f"peak     {t.peak:,} tokens ({peak_share:.1%} of the window)",
        "",
        f"context  {spark}",
    ]
    under = marker_line(marks, len(values), len(spark))
    if under:
        lines.append(f"         {under}")
    lines.append("         ^ first over the threshold   S summary message")
    lines.append("")
    rows = [["TRIGGER", "FRACTION", "TOKENS", "FIRST OVER", "CROSSINGS"]]
    for trig in t.triggers:
        first_over = "never" if trig.first_index is None else f"message #{trig.first_index + 1}"
        rows.append(
            [
                trig.label,
                f"{trig.fraction:.3f}",
                f"{trig.tokens:,.0f}",
                first_over,
                str(len(trig.crossings)),
            ]
        )
    lines += _table(rows, right={1, 2, 4})
    lines.append("")
    if t.events:
        rows = [["MESSAGE", "KIND", "BEFORE", "AFTER", "TEXT"]]
        for e in t.events:
            rows.append(
                [
                    f"#{e.index + 1}",
                    e.kind,
                    f"{e.tokens_before:,}",
                    f"{e.tokens_after:,}",
                    e.preview,
                ]
            )
        lines += _table(rows, right={0, 2, 3})
    else:
        lines.append("no compactions in this session")
    return lines


def cmd_timeline(args: argparse.Namespace) -> int:
    from goose_tui import cli

    session = cli._load(args)
    if args.context_limit is not None and args.context_limit <= 0:
        raise cli.CliError("--context-limit must be a positive number of tokens", cli.EXIT_UNUSABLE)
    timeline = session_timeline(
        session, threshold=args.threshold, context_limit=args.context_limit, model=args.model
    )
    if args.json:
        cli.print_json({"session": session.title, **timeline.to_json_dict()})
        return 0
    print(f"session  {session.title} ({len(session.messages)} messages)")
    print("\n".join(timeline_lines(timeline)))
    return 0


# --- batch --------------------------------------------------------------------------------


def batch_lines(report: Any) -> list[str]:
    rows = [
        [
            "SESSION",
            "MSGS",
            "BEFORE",
            "SUMMARY",
            "FALLBACK",
            "RETENTION",
            "PROBES",
            "TRIES",
            "ERROR",
        ]
    ]
    for e in report.entries:
        rows.append(
            [
                _one_line(e.source, 48),
                "-" if e.messages is None else str(e.messages),
                "-" if e.tokens_before is None else f"{e.tokens_before:,}",
                "-"
                if e.summary_tokens is None
                else f"{e.summary_tokens:,}" + (" !" if e.not_smaller else ""),
                "-" if e.fallback is None else ("yes" if e.fallback else "no"),
                format_score(e.retention) if e.ok else "-",
                format_score(e.probes) if e.ok else "-",
                str(e.attempts),
                _one_line(e.error or "", 60),
            ]
        )
    t = report.totals
    lines = _table(rows, right={1, 2, 3, 5, 6, 7})
    lines += [
        "",
        f"{t.sessions} sessions: {t.succeeded} compacted, {t.failed} failed, "
        f"{t.fallbacks} raw-text fallbacks; mean retention {format_score(t.mean_retention)}, "
        f"mean probe score {format_score(t.mean_probes)}",
    ]
    if t.not_smaller:
        from goose_tui.analysis.batch import not_smaller_note

        lines.append(f"! {not_smaller_note(t.not_smaller)}: compacting them frees no context")
    return lines


def _report_paths(output: Path) -> tuple[Path, Path]:
    if output.suffix.lower() == ".md":
        return output.with_suffix(".json"), output
    return output, output.with_suffix(".md")


def cmd_batch(args: argparse.Namespace) -> int:
    import json

    from goose_tui import cli
    from goose_tui.analysis.batch import collect_jobs, run_batch, to_markdown
    from goose_tui.files import OverwriteRefused, atomic_write_text, refuse_overwriting_inputs

    if not args.target.exists():
        raise cli.CliError(f"{args.target}: no such file or folder", cli.EXIT_UNUSABLE)
    if args.concurrency < 1:
        raise cli.CliError("--concurrency must be at least 1", cli.EXIT_UNUSABLE)
    jobs = collect_jobs(args.target, all_sessions=args.all_sessions)
    if not jobs:
        raise cli.CliError(f"{args.target}: no session files found", cli.EXIT_UNUSABLE)
    if args.output is not None:
        try:
            for target in _report_paths(args.output):
                refuse_overwriting_inputs(target, [args.target, *(j.path for j in jobs)])
        except OverwriteRefused as exc:
            raise cli.CliError(str(exc), cli.EXIT_UNUSABLE) from exc
    _templates(args.prompts_dir)  # a bad --prompts-dir fails here, with exit code 2
    summarizer = _summarizer(args.model, args.api_base)
    report = _run(
        run_batch(
            args.target,
            args.model,
            concurrency=args.concurrency,
            prompts_dir=args.prompts_dir,
            api_base=args.api_base,
            summarizer=summarizer,
            on_entry=lambda e: print(
                f"goose-tui: {e.source}: {'ok' if e.ok else 'FAILED'}", file=sys.stderr
            ),
        )
    )
    if args.output is not None:
        json_path, md_path = _report_paths(args.output)
        data = json.dumps(report.to_json_dict(), ensure_ascii=False, indent=2) + "\n"
        atomic_write_text(json_path, data)
        atomic_write_text(md_path, to_markdown(report))
    if args.json:
        cli.print_json(report.to_json_dict())
    else:
        print("\n".join(batch_lines(report)))
    # A failed session fails the run (for CI), but only after every other one was reported.
    return cli.EXIT_FAILED if report.totals.failed else 0
