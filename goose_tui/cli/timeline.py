"""``goose-tui timeline``: how the context grew message by message, where each threshold is
first crossed, and the compactions already in the session."""

from __future__ import annotations

import argparse
from typing import Any

from goose_tui.analysis.timeline import Timeline, marker_line, session_timeline, sparkline
from goose_tui.cli.common import (
    add_command,
    add_session_args,
    add_window_args,
    json_flag,
    load_session_arg,
    print_json,
    print_session_head,
)
from goose_tui.cli.tables import table
from goose_tui.tokens import limit_source_text

SPARK_WIDTH = 64


def register(sub: Any) -> None:
    add_command(sub, "timeline", cmd_timeline, add_session_args, add_window_args, json_flag())


def recorded_lines(t: Timeline) -> list[str]:
    """Goose's recorded count, when the session has one: what the gauge and `usage` show
    beside the timeline's own count."""
    if t.recorded is None:
        return []
    share = t.recorded / t.context_limit if t.context_limit else 0.0
    return [
        f"recorded {t.recorded:,} tokens ({share:.1%} of the window): Goose's count of the "
        "last call, which usage and the app's gauge show"
    ]


def timeline_lines(t: Timeline) -> list[str]:
    values = [p.cumulative for p in t.points]
    spark = sparkline(values, width=SPARK_WIDTH)
    marks = {e.index: "S" for e in t.events if e.kind == "summary"}
    first = t.chosen.first_index if t.chosen is not None else None
    if first is not None:
        marks.setdefault(first, "^")
    off = "" if t.chosen is not None else " (auto compaction off: needs 0 < T < 1)"
    peak_share = t.peak / t.context_limit if t.context_limit else 0.0
    lines = [
        f"window   {t.context_limit:,} tokens ({limit_source_text(t.limit_source)}), "
        f"threshold {t.threshold:g}{off}",
        f"peak     {t.peak:,} tokens ({peak_share:.1%} of the window)",
        *recorded_lines(t),
        "",
        f"context  {spark}",
    ]
    under = marker_line(marks, len(values), len(spark))
    if under:
        lines.append(f"         {under}")
    legend = ["^ first over the threshold"] if first is not None else []
    legend += ["S summary message"] if marks.keys() - {first} else []
    if legend:
        lines.append("         " + "   ".join(legend))
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
    lines += table(rows, right={1, 2, 4})
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
        lines += table(rows, right={0, 2, 3})
    else:
        lines.append("no compactions in this session")
    return lines


def cmd_timeline(args: argparse.Namespace) -> int:
    session = load_session_arg(args)
    timeline = session_timeline(session, threshold=args.threshold, context_limit=args.context_limit)
    if args.json:
        from goose_tui.cli.reports import TimelineOutput

        print_json(TimelineOutput.of(session.title, timeline))
        return 0
    print_session_head(session)
    print("\n".join(timeline_lines(timeline)))
    return 0
