"""``goose-tui audit``: the compactions Goose already made in a session, scored against the
history each one summarized; ``--at N`` shows one, and with ``--model`` compacts the same
history again with your templates and model, beside Goose's summary."""

from __future__ import annotations

import argparse
from typing import Any

from goose_tui.cli.common import (
    EXIT_UNUSABLE,
    CliError,
    add_model_args,
    add_prompts_dir,
    add_session_args,
    load_session_arg,
    load_templates_arg,
    model_arg,
    prepare,
    print_json,
    run_compaction,
    summarizer_of,
    usable,
)
from goose_tui.cli.tables import table


def register(sub: Any) -> None:
    s = sub.add_parser("audit")
    add_session_args(s)
    s.add_argument(
        "--at",
        type=int,
        metavar="N",
        help="one past compaction (1 = the first; `goose-tui audit SESSION` lists them)",
    )
    add_model_args(s)
    add_prompts_dir(s)
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.set_defaults(handler=cmd_audit)


def _pct(score: float | None) -> str:
    return "n/a" if score is None else f"{score:.0%}"


def cmd_audit(args: argparse.Namespace) -> int:
    from goose_tui.analysis.audit import audit_session, compaction_at, score_compaction

    session = load_session_arg(args)
    if args.at is None:
        if args.model is not None or args.replay is not None:
            raise CliError("--model and --replay go with --at N", EXIT_UNUSABLE)
        scores = audit_session(session)
        if args.json:
            from goose_tui.cli.reports import AuditOutput

            print_json(AuditOutput.of(session.title, scores))
            return 0
        print(f"session  {session.title} ({len(session.messages)} messages)")
        if not scores:
            print("no past compaction: Goose has not summarized this session")
            return 0
        rows = [["#", "SUMMARY", "HISTORY", "RETENTION", "PROBES"]]
        for s in scores:
            first, last = s.compaction.history_range
            rows.append(
                [
                    str(s.compaction.number),
                    f"#{s.compaction.summary_index + 1}",
                    f"#{first + 1}-#{last + 1}" if s.compaction.history else "-",
                    _pct(s.retention.overall),
                    _pct(s.probes.overall),
                ]
            )
        print()
        print("\n".join(table(rows, right={3, 4})))
        print("\n`goose-tui audit SESSION --at N [--model M]` shows one, or compacts it again")
        return 0
    try:
        compaction = compaction_at(session.messages, args.at)
    except LookupError as exc:
        raise CliError(str(exc), EXIT_UNUSABLE) from exc
    if args.model is None and args.replay is None:
        score = score_compaction(compaction, session.working_dir)
        if args.json:
            from goose_tui.cli.reports import AuditOutput

            print_json(AuditOutput.of(session.title, [score]))
            return 0
        from goose_tui.cli.analysis import probe_lines, retention_lines

        first, last = compaction.history_range
        print(f"session  {session.title} ({len(session.messages)} messages)")
        print(
            f"summary  Goose's, message #{compaction.summary_index + 1}, of messages "
            f"#{first + 1}-#{last + 1}"
        )
        print()
        print("\n".join(retention_lines(score.retention)))
        print()
        print("\n".join(probe_lines(score.probes)))
        return 0
    return _recompact(args, session, compaction)


def _recompact(args: argparse.Namespace, session: Any, compaction: Any) -> int:
    """The same history compacted again with the user's model and templates, compared with
    Goose's summary (A) side by side."""
    from goose_tui.analysis.compare import SummarySide, compare_summaries, side_from_result
    from goose_tui.cli.analysis import comparison_lines
    from goose_tui.compaction.reply_check import require_usable
    from goose_tui.compaction.summarize import finish, summarize

    choice = prepare(model_arg(args))
    templates = load_templates_arg(args.prompts_dir)
    spec = usable(choice)

    async def again() -> Any:
        result = await summarize(compaction.history, summarizer_of(spec), templates)
        require_usable(result)
        return result

    result = run_compaction(again())
    extraction, rendered = finish(compaction.summary, templates)
    goose = SummarySide(
        label=f"Goose (message #{compaction.summary_index + 1})",
        summary=rendered if extraction.structured is not None else compaction.summary,
        structured=extraction.structured,
    )
    mine = side_from_result(spec.name, result)
    comparison = compare_summaries([goose, mine], compaction.history, session.working_dir)
    if args.json:
        from goose_tui.cli.reports import CompareOutput

        print_json(CompareOutput.of(session.title, comparison))
        return 0
    print(f"session  {session.title}, past compaction {compaction.number}")
    print()
    print("\n".join(comparison_lines(comparison)))
    return 0
