"""``goose-tui batch``: compact every session of a folder or a sessions.db with one model and
one pair of templates, and report on all of them (JSON, and a Markdown table); with several
--prompts-dir, the same sessions with each folder's templates, one table per folder."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from goose_tui.analysis.batch import BatchEntry, BatchReport, TemplateBatches
from goose_tui.analysis.probes import SCORE_NAME, found_by_kind
from goose_tui.analysis.retention import EVIDENCE_NAME, format_score
from goose_tui.cli.common import (
    EXIT_FAILED,
    EXIT_UNUSABLE,
    CliError,
    add_all_sessions_flag,
    add_command,
    add_model_args,
    add_prompts_dir,
    json_flag,
    keys_removed,
    load_templates_arg,
    model_arg,
    path_arg,
    print_json,
    run_compaction,
    summarizer_of,
    usable,
)
from goose_tui.cli.tables import table
from goose_tui.session.models import warning_count, warnings_note
from goose_tui.terminal import shorten


def register(sub: Any) -> None:
    s = add_command(sub, "batch", cmd_batch)
    s.add_argument("target", metavar="DIR_OR_DB", type=path_arg, help="a folder or a sessions.db")
    add_model_args(s)
    s.add_argument(
        "--concurrency", type=int, default=4, metavar="N", help="sessions compacted at once (4)"
    )
    add_all_sessions_flag(s)
    add_prompts_dir(s, repeated=True)
    json_flag("print the report as JSON")(s)
    s.add_argument(
        "-o",
        "--output",
        type=path_arg,
        metavar="REPORT",
        help="write the report as JSON and as a Markdown table, both named on stderr: a "
        "REPORT ending in .md gets the Markdown table and the JSON goes beside it (.json); "
        "any other REPORT gets the JSON and the Markdown table goes beside it (.md)",
    )
    s.add_argument(
        "--overwrite", action="store_true", help="replace existing report files (both of -o's)"
    )


def batch_lines(report: BatchReport) -> list[str]:
    rows = [
        [
            "SESSION",
            "MSGS",
            "BEFORE",
            "SUMMARY",
            "FALLBACK",
            "EVIDENCE",
            "CAN ACT",
            "PROBES FOUND",
            "TRIES",
            "WARN",
            "ERROR",
        ]
    ]
    for e in report.entries:
        rows.append(_row(e))
    t = report.totals
    lines = table(rows, right={1, 2, 3, 5, 6, 8, 9})
    lines += [
        "",
        f"{t.sessions} sessions: {t.succeeded} compacted, {t.failed} failed, "
        f"{t.fallbacks} raw-text fallbacks; mean {EVIDENCE_NAME} (retention) "
        f"{format_score(t.mean_retention)}, mean {SCORE_NAME} (probes) "
        f"{format_score(t.mean_probes)}",
    ]
    if t.not_smaller:
        from goose_tui.analysis.batch import not_smaller_note

        lines.append(f"! {not_smaller_note(t.not_smaller)}: compacting them frees no context")
    return lines


def template_batch_lines(batches: TemplateBatches) -> list[str]:
    """The template folders side by side, then each one's table."""
    from goose_tui.analysis.batch import template_rows, templates_label

    lines = table(template_rows(batches), right={1, 2, 3, 4, 5, 6})
    for report in batches.reports:
        lines += ["", f"templates {templates_label(report)}", *batch_lines(report)]
    return lines


def _row(e: BatchEntry) -> list[str]:
    return [
        shorten(e.source, 48),
        "-" if e.messages is None else str(e.messages),
        "-" if e.tokens_before is None else f"{e.tokens_before:,}",
        "-"
        if e.summary_tokens is None
        else f"{e.summary_tokens:,}" + (" !" if e.not_smaller else ""),
        "-" if e.fallback is None else ("yes" if e.fallback else "no"),
        format_score(e.retention) if e.ok else "-",
        format_score(e.probes) if e.ok else "-",
        found_by_kind(e.probe_kinds) if e.ok and e.probe_kinds else "-",
        str(e.attempts),
        str(warning_count(e.warnings)),
        shorten(e.error or "", 60),
    ]


def say(line: str) -> None:
    """A progress line on stderr (main guards the streams: paths and warnings come from
    files)."""
    print(f"goose-tui: {line}", file=sys.stderr)


def _progress(entry: BatchEntry) -> str:
    """A session's line as it finishes: ok or FAILED, and its load warnings."""
    line = f"{entry.source}: {'ok' if entry.ok else 'FAILED'}"
    note = warnings_note(entry.warnings)
    return f"{line}, {note}" if note else line


def _report_paths(output: Path) -> tuple[Path, Path]:
    """(the JSON report, the Markdown table) of ``-o``: the one its suffix names, the other
    beside it."""
    if output.suffix.lower() == ".md":
        return output.with_suffix(".json"), output
    return output, output.with_suffix(".md")


def cmd_batch(args: argparse.Namespace) -> int:
    import json

    from goose_tui.analysis.batch import (
        collect_jobs,
        run_batch,
        run_template_batches,
        skipped_folders,
        skipped_reports,
        templates_markdown,
        to_markdown,
    )
    from goose_tui.files import atomic_write_text, check_output_target, write_error

    if not args.target.exists():
        raise CliError(f"{args.target}: no such file or folder", EXIT_UNUSABLE)
    if args.concurrency < 1:
        raise CliError("--concurrency must be at least 1", EXIT_UNUSABLE)
    jobs = collect_jobs(args.target, all_sessions=args.all_sessions)
    if not jobs:
        raise CliError(f"{args.target}: no session files found", EXIT_UNUSABLE)
    if args.output is not None:
        inputs = [args.target, *(j.path for j in jobs)]
        for target in _report_paths(args.output):  # the .md beside it is written too
            problem = check_output_target(target, inputs, replace=args.overwrite)
            if problem is not None:
                raise CliError(problem, EXIT_UNUSABLE)
    folders: list[Path | None] = list(args.prompts_dir or [None])
    for folder in folders:  # a bad --prompts-dir fails here, with exit code 2
        load_templates_arg(folder)
    for folder in skipped_folders(args.target):
        say(
            f"skipped the sub-folder {folder} (batch reads the folder given; pass it to include it)"
        )
    for written in skipped_reports(args.target):  # an earlier run's -o, or this run's
        say(f"left out {written} (a goose-tui batch report, not a session)")
    summarizer = summarizer_of(usable(model_arg(args)))
    report: BatchReport | TemplateBatches
    if len(folders) == 1:
        report = run_compaction(
            run_batch(
                args.target,
                summarizer,
                concurrency=args.concurrency,
                prompts_dir=folders[0],
                all_sessions=args.all_sessions,
                on_entry=lambda e: say(_progress(e)),
            )
        )
        markdown, lines = to_markdown(report), batch_lines(report)
    else:
        report = run_compaction(
            run_template_batches(
                args.target,
                summarizer,
                folders,
                args.concurrency,
                all_sessions=args.all_sessions,
                on_entry=lambda folder, e: say(f"{folder}: {_progress(e)}"),
            )
        )
        markdown, lines = templates_markdown(report), template_batch_lines(report)
    write_failure: str | None = None
    if args.output is not None:
        json_path, md_path = _report_paths(args.output)
        data = json.dumps(report.to_json_dict(), ensure_ascii=False, indent=2) + "\n"
        writing = json_path
        try:
            # Not over a file made while the models ran, unless --overwrite (checked first).
            atomic_write_text(json_path, data, replace=args.overwrite, on_keys_removed=keys_removed)
            writing = md_path
            atomic_write_text(
                md_path, markdown, replace=args.overwrite, on_keys_removed=keys_removed
            )
        except OSError as exc:
            write_failure = write_error(writing, exc)
            if writing == md_path:
                write_failure += f" (the JSON report is in {json_path})"
        else:
            say(f"wrote the report as JSON to {json_path} and as a Markdown table to {md_path}")
    if args.json:
        print_json(report)
    else:
        print("\n".join(lines))
    if write_failure is not None:  # the report, a run of model calls, is on stdout all the same
        raise CliError(f"{write_failure}; the report is printed on stdout", EXIT_FAILED)
    # A failed session fails the run (for CI), but only after every other one was reported.
    reports = report.reports if isinstance(report, TemplateBatches) else [report]
    return EXIT_FAILED if any(r.totals.failed for r in reports) else 0
