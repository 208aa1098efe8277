"""How good a summary is: ``retention`` (what it kept of the history), ``probe`` (can the
agent still act from it) and ``compare`` (two or more summaries side by side)."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any, NamedTuple

from goose_tui.analysis.compare import (
    Comparison,
    SummarySide,
    compare_summaries,
    field_rows,
    fields_by_name,
    format_cost,
    side_from_result,
    side_letter,
    side_rows,
    status_text,
)
from goose_tui.analysis.probes import ProbeReport, probe_kind_rows
from goose_tui.analysis.retention import (
    CATEGORY_LABELS,
    RetentionReport,
    format_score,
    retention_rows,
)
from goose_tui.cli.common import (
    EXIT_FAILED,
    EXIT_UNUSABLE,
    CliError,
    add_command,
    add_connection_args,
    add_model_args,
    add_prompts_dir,
    add_session_args,
    compaction_error,
    json_flag,
    load_session_arg,
    load_templates_arg,
    model_arg,
    parse_model,
    path_arg,
    prepare,
    print_json,
    print_session_head,
    read_text_arg,
    run_compaction,
    session_model_arg,
    summarizer_of,
    usable,
    usable_summary,
)
from goose_tui.cli.tables import table
from goose_tui.compaction.templates import Templates
from goose_tui.llm.base import Summarizer
from goose_tui.llm.spec import ModelSpec, prefix_case_problem
from goose_tui.session.models import Message, Session
from goose_tui.terminal import shorten

SUMMARY_PREFIX = "summary:"
SIDE_SPEC = "a model string, offline, replay:FILE, or summary:FILE (a saved summary)"
MAX_MISSING_SHOWN = 40


def register(sub: Any) -> None:
    s = add_command(sub, "retention", cmd_retention, add_session_args)
    source = s.add_mutually_exclusive_group()
    source.add_argument("--summary", metavar="FILE", help="a saved summary (Markdown or text)")
    add_model_args(s, model_in=source, replay_in=source)
    add_prompts_dir(s)
    json_flag()(s)

    s = add_command(sub, "compare", cmd_compare, add_session_args)
    for side in ("a", "b"):
        s.add_argument(f"--{side}", metavar="SPEC", help=f"side {side.upper()}: {SIDE_SPEC}")
        add_prompts_dir(s, f"--{side}-prompts-dir")
    s.add_argument(
        "--side",
        action="append",
        nargs="+",
        metavar=("SPEC", "DIR"),
        help=f"one more side, after --a and --b if given (repeat --side for each): {SIDE_SPEC}, "
        "then at most one DIR, a folder of templates for that side (as --a-prompts-dir)",
    )
    add_connection_args(s)
    json_flag()(s)

    s = add_command(sub, "probe", cmd_probe, add_session_args)
    summary_or_reply = s.add_mutually_exclusive_group()
    summary_or_reply.add_argument(
        "--summary", metavar="FILE", help="the summary to probe (default: compact now)"
    )
    add_model_args(s, replay_in=summary_or_reply)
    s.add_argument(
        "--answerer",
        metavar="M",
        help="the model that answers the probes from the summary alone (default --model)",
    )
    s.add_argument(
        "--judge",
        metavar="M",
        help="the model that scores each answer against the history's (default --model); a "
        "real --model writes the probes (and compacts, without --summary), offline ones come "
        "from the session's structure",
    )
    add_prompts_dir(s)
    s.add_argument("--no-cache", action="store_true", help="ask every model call again")
    json_flag()(s)


def _summary_to_judge(
    args: argparse.Namespace, session: Session, choice: ModelSpec | CliError
) -> tuple[str, str]:
    """(summary, where it came from): the --summary file, or a compaction now."""
    if args.summary is not None:
        return read_text_arg(args.summary, "summary"), f"summary {args.summary}"
    templates = load_templates_arg(args.prompts_dir)
    summarizer = summarizer_of(usable(choice))
    result = run_compaction(usable_summary(session.messages, summarizer, templates))
    return result.summary, f"model {summarizer.name}"


# --- retention ----------------------------------------------------------------------------


def retention_lines(report: RetentionReport) -> list[str]:
    rows = [["CATEGORY", "FOUND", "TOTAL", "SCORE"], *retention_rows(report)]
    lines = table(rows, right={1, 2, 3})
    missing = report.missing()
    if missing:
        lines += ["", f"missing ({len(missing)}):"]
        rows = [
            [f"#{i.message_index + 1}", CATEGORY_LABELS[i.category], shorten(i.text, 90)]
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
    choice = session_model_arg(args, session, choice)
    summary, source = _summary_to_judge(args, session, choice)
    report = retention_report(summary, session.messages)
    if args.json:
        from goose_tui.cli.reports import RetentionOutput

        print_json(RetentionOutput.of(session.title, source, report))
        return 0
    print_session_head(session, source)
    print()
    print("\n".join(retention_lines(report)))
    return 0


# --- probe --------------------------------------------------------------------------------


def probe_lines(report: ProbeReport) -> list[str]:
    rows = [["KIND", "PROBES", "FOUND", "PARTIAL", "MISSING", "SCORE"], *probe_kind_rows(report)]
    lines = table(rows, right={1, 2, 3, 4, 5})
    lines.append("")
    for r in report.results:
        source = "-" if r.probe.message_index is None else f"#{r.probe.message_index + 1}"
        question = shorten(r.probe.question, 80)
        score = f"{format_score(r.score):>4} {r.outcome:<8}"
        lines.append(f"{score}  {source:>4}  {r.probe.kind}: {question}")
        lines.append(f"{'':21}expected: {shorten(r.probe.expected, 80)}")
        lines.append(f"{'':21}answered: {shorten(r.answer or '(nothing)', 80)}")
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
    choice = session_model_arg(args, session, model_arg(args))
    writer = choice if isinstance(choice, ModelSpec) else None
    roles: dict[str, ModelSpec | None] = {"answerer": None, "judge": None}
    for role, does in (("answerer", "answer"), ("judge", "score")):
        text = getattr(args, role)
        if text is None:
            continue
        if not uses_a_model(writer):
            raise CliError(f"--{role} needs --model with a real model", EXIT_UNUSABLE)
        roles[role] = parse_model(text, args.api_base, args.timeout)
        if not uses_a_model(roles[role]):
            raise CliError(f"--{role} {text}: not a model that can {does}", EXIT_UNUSABLE)
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
                roles["judge"],
                answerer=roles["answerer"],
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
    print_session_head(session, source)
    who = (
        "offline (from the session's structure)"
        if report.mode == "offline"
        else (
            f"written by {report.writer}, answered by {report.answerer}, judged by {report.judge}"
        )
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
        return await summary_side(label, source, messages, templates)
    except Exception as exc:
        error = compaction_error(exc)
        if error is None:
            raise
        raise CliError(f"{side}: {error}", error.exit_code) from exc


async def summary_side(
    label: str, source: str | Summarizer, messages: list[Message], templates: Templates
) -> SummarySide:
    from goose_tui.compaction.summarize import finish

    if isinstance(source, str):
        # A saved reply or summary JSON reads as structured; saved Markdown stays as is.
        extraction, rendered = finish(source, templates)
        if extraction.structured is None:
            return SummarySide(label=label, summary=source.rstrip("\n"))
        return SummarySide(label=label, summary=rendered, structured=extraction.structured)
    return side_from_result(label, await usable_summary(messages, source, templates))


class SideArg(NamedTuple):
    """One side of ``compare`` as given: its letter, SPEC, and templates folder with the
    option that named it."""

    letter: str
    spec: str
    prompts_dir: Path | None
    folder_flag: str


def _side_args(args: argparse.Namespace) -> list[SideArg]:
    """--a and --b (each with its prompts folder), then each --side SPEC [DIR], lettered in
    that order."""
    given: list[tuple[str, Path | None, str]] = []
    if args.b is not None and args.a is None:
        raise CliError("--b needs --a (A is the side the others are read against)", EXIT_UNUSABLE)
    for flag in ("a", "b"):
        spec, folder = getattr(args, flag), getattr(args, f"{flag}_prompts_dir")
        if spec is None and folder is not None:
            raise CliError(f"--{flag}-prompts-dir needs --{flag}", EXIT_UNUSABLE)
        if spec is not None:
            given.append((spec, folder, f"--{flag}-prompts-dir"))
    for values in args.side or []:
        if len(values) > 2:
            raise CliError(
                f"--side {' '.join(values)}: one SPEC and at most one templates folder "
                "(repeat --side for another side)",
                EXIT_UNUSABLE,
            )
        given.append((values[0], path_arg(values[1]) if len(values) == 2 else None, "--side"))
    if len(given) < 2:
        raise CliError("compare needs two sides or more: --a and --b, or --side", EXIT_UNUSABLE)
    return [SideArg(side_letter(n), *side) for n, side in enumerate(given)]


async def _all_sides(
    sides: list[SideArg],
    sources: list[str | Summarizer],
    messages: list[Message],
    templates: list[Templates],
) -> list[SummarySide]:
    made = await asyncio.gather(
        *(
            _make_side(side.letter, side.spec, source, messages, side_templates)
            for side, source, side_templates in zip(sides, sources, templates, strict=True)
        )
    )
    # Name the templates too, so that the same model with two prompt folders reads apart.
    for summary, side in zip(made, sides, strict=True):
        if side.prompts_dir is not None:
            summary.label = f"{summary.label} + {side.prompts_dir}"
    return list(made)


def _field_matrix(c: Comparison) -> list[list[str]]:
    """Several later sides: a column for each against A, as ``changed +1 -2``."""
    letters = [side_letter(n) for n in range(1, len(c.sides))]
    rows = [["FIELD", *(f"A -> {letter}" for letter in letters)]]
    for name, found in fields_by_name(c, skip_empty=True):
        rows.append([name, *(status_text(f, x) for f, x in zip(found, letters, strict=True))])
    return rows


def comparison_lines(c: Comparison) -> list[str]:
    letters = [side_letter(n) for n in range(len(c.sides))]
    lines = table([["", *letters], *side_rows(c.sides)])
    lines.append("")
    if len(c.diffs) == 1:
        (diff,) = c.diffs
        lines += (
            [diff.note]
            if diff.note
            else table([["FIELD", "STATUS", "ADDED", "REMOVED"], *field_rows(diff)], right={2, 3})
        )
    else:
        if any(d.fields for d in c.diffs):
            lines += table(_field_matrix(c))
        lines += [
            f"A -> {letter}: {d.note}"
            for d, letter in zip(c.diffs, letters[1:], strict=True)
            if d.note
        ]
    for diff, letter in zip(c.diffs, letters[1:], strict=True):
        lines += ["", f"rendered Markdown, A -> {letter}:"]
        lines.append(diff.markdown_diff.rstrip("\n") if diff.markdown_diff else "(identical)")
    return lines


def cmd_compare(args: argparse.Namespace) -> int:
    sides = _side_args(args)
    session = load_session_arg(args)
    templates = [load_templates_arg(side.prompts_dir, side.folder_flag) for side in sides]
    sources = [_side_source(side.letter, side.spec, args.api_base, args.timeout) for side in sides]
    made = run_compaction(_all_sides(sides, sources, session.messages, templates))
    comparison = compare_summaries(made, session.messages, session.working_dir)
    if args.json:
        from goose_tui.cli.reports import CompareOutput

        print_json(CompareOutput.of(session.title, comparison))
        return 0
    print_session_head(session)
    print()
    print("\n".join(comparison_lines(comparison)))
    return 0
