"""``goose-tui audit``: the compactions Goose already made in a session, scored against the
history each one summarized; ``--at N`` shows one. With ``--model``, each one shown (every
one without ``--at``) is compacted again from the same history with your templates and model
and compared with Goose's summary."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from goose_tui.cli.common import (
    EXIT_UNUSABLE,
    CliError,
    add_command,
    add_model_args,
    add_prompts_dir,
    add_session_args,
    json_flag,
    load_session_arg,
    load_templates_arg,
    model_arg,
    prepare,
    print_json,
    print_session_head,
    run_compaction,
    summarizer_of,
    usable,
)
from goose_tui.cli.tables import table

if TYPE_CHECKING:
    from goose_tui.analysis.audit import AuditScore


def register(sub: Any) -> None:
    s = add_command(sub, "audit", cmd_audit, add_session_args)
    s.add_argument(
        "--at",
        type=int,
        metavar="N",
        help="one past compaction (1 = the first; `goose-tui audit SESSION` lists them); "
        "without --at, --model or --replay compacts every past compaction again (one model "
        "call each)",
    )
    add_model_args(s)
    add_prompts_dir(s)
    json_flag()(s)


def cmd_audit(args: argparse.Namespace) -> int:
    from goose_tui.analysis.audit import audit_session, compaction_at, score_compaction

    session = load_session_arg(args)
    again = args.model is not None or args.replay is not None
    if args.at is None:
        scores = audit_session(session)
    else:
        try:
            scores = [
                score_compaction(compaction_at(session.messages, args.at), session.working_dir)
            ]
        except LookupError as exc:
            raise CliError(str(exc), EXIT_UNUSABLE) from exc
    label = None
    if again and scores:
        label, scores = _recompacted(args, session, scores)
    if args.json:
        from goose_tui.cli.reports import AuditOutput

        print_json(AuditOutput.from_scores(session.title, scores))
        return 0
    if args.at is None:
        _print_list(session, scores, label)
        return 0
    (score,) = scores
    if score.recompacted is not None:
        from goose_tui.cli.analysis import comparison_lines

        print(f"session  {session.title}, past compaction {score.compaction.number}")
        print()
        print("\n".join(comparison_lines(score.recompacted)))
        return 0
    from goose_tui.cli.analysis import probe_lines, retention_lines

    compaction = score.compaction
    first, last = compaction.history_range
    print_session_head(
        session,
        f"Goose's, message #{compaction.summary_index + 1}, of messages #{first + 1}-#{last + 1}",
    )
    print()
    print("\n".join(retention_lines(score.retention)))
    print()
    print("\n".join(probe_lines(score.probes)))
    return 0


def _print_list(session: Any, scores: list[Any], label: str | None) -> None:
    """One row per past compaction: Goose's scores, and the re-compaction's (B) if any."""
    from goose_tui.analysis.retention import format_score

    print_session_head(session)
    if not scores:
        print("no past compaction: Goose has not summarized this session")
        return
    head = ["#", "SUMMARY", "HISTORY", "RETENTION", "PROBES"]
    rows = [head + (["RETENTION B", "PROBES B"] if label else [])]
    for s in scores:
        first, last = s.compaction.history_range
        row = [
            str(s.compaction.number),
            f"#{s.compaction.summary_index + 1}",
            f"#{first + 1}-#{last + 1}" if s.compaction.history else "-",
            format_score(s.retention.overall),
            format_score(s.probes.overall),
        ]
        if s.recompacted is not None:
            mine = s.recompacted.sides[1]
            row += [
                format_score(mine.retention.overall if mine.retention else None),
                format_score(mine.probes.overall if mine.probes else None),
            ]
        rows.append(row)
    print()
    print("\n".join(table(rows, right=set(range(3, len(rows[0]))))))
    if label:
        print(f"\nB: the same history compacted again with {label}")
    print("\n`goose-tui audit SESSION --at N [--model M]` shows one, or compacts it again")


def _recompacted(
    args: argparse.Namespace, session: Any, scores: list[AuditScore]
) -> tuple[str, list[AuditScore]]:
    """Each past compaction's history compacted again with the user's model and templates,
    compared with Goose's summary (A) side by side; the model's name, and the scores with
    their comparison."""
    from goose_tui.analysis.compare import SummarySide, compare_summaries
    from goose_tui.cli.analysis import summary_side
    from goose_tui.compaction.summarize import finish

    choice = prepare(model_arg(args))
    templates = load_templates_arg(args.prompts_dir)
    spec = usable(choice)
    summarizer = summarizer_of(spec)
    done = []
    for score in scores:
        compaction = score.compaction
        mine = run_compaction(summary_side(spec.name, summarizer, compaction.history, templates))
        extraction, rendered = finish(compaction.summary, templates)
        goose = SummarySide(
            label=f"Goose (message #{compaction.summary_index + 1})",
            summary=rendered if extraction.structured is not None else compaction.summary,
            structured=extraction.structured,
        )
        comparison = compare_summaries([goose, mine], compaction.history, session.working_dir)
        done.append(score.model_copy(update={"recompacted": comparison}))
    return spec.name, done
