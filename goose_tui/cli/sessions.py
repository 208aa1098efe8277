"""The sessions themselves: ``sessions`` lists them (what `goose session list` shows), and
``usage`` measures one against its context window and the compaction threshold."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

from goose_tui.cli.common import (
    EXIT_FAILED,
    EXIT_UNUSABLE,
    CliError,
    add_all_sessions_flag,
    add_command,
    add_session_args,
    add_window_args,
    json_flag,
    load_session_arg,
    parse_model,
    path_arg,
    print_json,
    recorded_model,
)

if TYPE_CHECKING:
    from goose_tui.llm.spec import ModelSpec
    from goose_tui.session.models import Session
    from goose_tui.tokens import RequestFit, ThresholdSource


def register(sub: Any) -> None:
    s = add_command(sub, "usage", cmd_usage, add_session_args, add_window_args)
    s.add_argument(
        "--model",
        metavar="M",
        help="a summarizer (offline, replay:FILE, session or a litellm model string): whether "
        "the compaction request (built-in templates) fits its own context window; the "
        "session's window and verdict stay the session's",
    )
    json_flag()(s)

    s = add_command(sub, "sessions", cmd_sessions)
    s.add_argument(
        "path",
        metavar="PATH",
        type=path_arg,
        nargs="?",
        help="a sessions.db or a folder (default: Goose's data dir)",
    )
    json_flag("print a JSON array")(s)
    add_all_sessions_flag(s)


def threshold_source(args: argparse.Namespace) -> ThresholdSource:
    """Where the threshold of a command came from, by the precedence of ``--threshold``'s
    help: the option, the environment, the settings file (``main`` marks it), the default."""
    from goose_tui.tokens import THRESHOLD_ENV

    if getattr(args, "threshold_source", None) == "settings":
        return "settings"
    if args.threshold is not None:
        return "cli"
    if THRESHOLD_ENV in os.environ:
        return "env"
    return "default"


def cmd_usage(args: argparse.Namespace) -> int:
    from goose_tui.analysis.breakdown import context_breakdown, format_breakdown
    from goose_tui.tokens import THRESHOLD_SOURCE_TEXT, context_usage, limit_source_text

    session = load_session_arg(args)
    spec = summarizer_arg(args.model, session) if args.model is not None else None
    breakdown = context_breakdown(session)
    u = context_usage(session, context_limit=args.context_limit, threshold=args.threshold)
    fit = request_fit(session, spec) if spec is not None else None
    if args.json:
        from goose_tui.cli.reports import UsageOutput

        print_json(UsageOutput.of(u, len(session.messages), breakdown, threshold_source(args), fit))
        return 0
    assumed = ""
    if u.limit_source == "assumed":
        known = f"no known context window for {u.model}" if u.model else "no model recorded"
        assumed = f" (assumed: {known}; pass --context-limit)"
    print(f"session     {session.title} ({len(session.messages)} messages)")
    print(f"model       {u.model or 'unknown'}")
    print(f"used        {u.used:,} tokens ({u.used_source})")
    where = assumed or f" ({limit_source_text(u.limit_source)})"
    print(f"limit       {u.limit:,} tokens{where}")
    print(f"usage       {u.fraction:.1%}")
    threshold = f"{u.threshold:g} ({THRESHOLD_SOURCE_TEXT[threshold_source(args)]})"
    if u.auto_compact_enabled:
        due = "yes" if u.compaction_due else "no"
        print(f"threshold   {threshold} -> compaction due: {due}")
    else:
        print(f"threshold   {threshold} -> auto compaction is off (needs 0 < T < 1)")
    if spec is not None:
        print(f"summarizer  {spec.name}" + (f": {fit.text()}" if fit is not None else ""))
    print()
    print("what fills the context (estimated, o200k_base)")
    for line in format_breakdown(breakdown):
        print(line)
    return 0


def summarizer_arg(text: str, session: Session) -> ModelSpec:
    """``usage --model``: a model as ``compact`` takes it, ``session`` included."""
    from goose_tui.llm.spec import SESSION_MODEL

    return parse_model(recorded_model(session) if text == SESSION_MODEL else text)


def request_fit(session: Session, spec: ModelSpec) -> RequestFit | None:
    """Whether the compaction request, built as ``compact`` builds it with the built-in
    templates, fits the summarizer's own window."""
    from goose_tui.inspector import Inspector

    inspector = Inspector(model=spec)
    inspector.load(session)
    return spec.request_fit(session, inspector.build_request().estimated_tokens())


def cmd_sessions(args: argparse.Namespace) -> int:
    from goose_tui.session.loader import SessionLoadError, list_sessions

    unreadable: list[str] = []
    try:
        infos = list_sessions(args.path, all_sessions=args.all_sessions, unreadable=unreadable)
    except SessionLoadError as exc:
        raise CliError(str(exc), EXIT_UNUSABLE) from exc
    for problem in unreadable:  # left out of the list, never silently
        print(f"goose-tui: left out {problem}", file=sys.stderr)
    if not infos and unreadable:
        noun = "file" if len(unreadable) == 1 else "files"
        raise CliError(
            f"no session could be read ({len(unreadable):,} {noun} left out, above)", EXIT_FAILED
        )
    if args.json:
        from goose_tui.cli.reports import SessionsOutput

        print_json(SessionsOutput(infos))
        return 0
    if not infos:
        print("goose-tui: no sessions found", file=sys.stderr)
        return 0
    # With --all-sessions the session type says why a row is not in `goose session list`.
    head = f"{'TYPE':<10} " if args.all_sessions else ""
    print(f"{'ID':<28} {'UPDATED':<20} {'MSGS':>5} {'TOKENS':>9}  {'MODEL':<22} {head}NAME")
    from goose_tui.terminal import one_line

    for i in infos:
        updated = i.updated_at.strftime("%Y-%m-%d %H:%M") if i.updated_at else "-"
        tokens = f"{i.total_tokens:,}" if i.total_tokens is not None else "-"
        name = one_line(i.name or i.description or "")
        kind = f"{one_line(i.session_type or '-'):<10} " if args.all_sessions else ""
        print(
            f"{one_line(i.id):<28} {updated:<20} {i.message_count:>5} {tokens:>9}  "
            f"{one_line(i.model_name or '-'):<22} {kind}{name}"
        )
    return 0
