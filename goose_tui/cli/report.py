"""``report``: one inspection written as a Markdown file and an HTML page to share (the
input, the analysis, the parsed fields, the rendered summary, retention, probes, and a
comparison with another summary when asked)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from goose_tui.cli.common import (
    add_command,
    add_focus,
    add_model_args,
    add_profile_arg,
    add_prompts_dir,
    add_session_args,
    check_output_arg,
    keys_removed,
    load_session_arg,
    model_arg,
    path_arg,
    prepare,
    run_compaction,
)


def register(sub: Any) -> None:
    prompt = (add_session_args, add_model_args, add_prompts_dir, add_profile_arg, add_focus)
    s = add_command(sub, "report", cmd_report, *prompt)
    s.add_argument(
        "--compare",
        metavar="SPEC",
        help="also compare with another summary: a model string, offline, replay:FILE, or "
        "summary:FILE (a saved summary)",
    )
    s.add_argument(
        "-o",
        "--output",
        type=path_arg,
        metavar="FILE",
        help="the Markdown report; the HTML page goes beside it with .html (default: "
        "SESSION.report.md beside the session, or in the current folder)",
    )
    s.add_argument("--overwrite", action="store_true", help="replace existing report files")


def cmd_report(args: argparse.Namespace) -> int:
    """Compacted as ``compact`` does (one ``Inspector``), with both files refused before the
    (perhaps paid) model call."""
    from goose_tui.cli.analysis import _make_side, _side_source
    from goose_tui.cli.pipeline import compacting_inspector
    from goose_tui.saving import default_target, report_paths

    choice = prepare(model_arg(args))
    session = load_session_arg(args)
    inspector, summarizer = compacting_inspector(args, session, choice)
    target = args.output or default_target(session, "report")
    inputs = [args.session, *inspector.input_files()]
    for path in report_paths(target):
        check_output_arg(path, inputs, overwrite=args.overwrite)
    other = None
    if args.compare is not None:
        other = _side_source("--compare", args.compare, args.api_base, args.timeout)
    run_compaction(inspector.compact(summarizer=summarizer))
    compare_with = None
    if other is not None:
        compare_with = run_compaction(
            _make_side("--compare", args.compare, other, session.messages, inspector.templates)
        )
    markdown, page = inspector.save_report(
        target,
        overwrite=args.overwrite,
        compare_with=compare_with,
        keep=[args.session],
        on_keys_removed=keys_removed,
    )
    print(markdown)
    print(page)
    print(f"goose-tui: wrote the report to {markdown} and {page}", file=sys.stderr)
    return 0
