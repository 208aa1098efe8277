"""The ``goose-tui`` command: the inspector app, and headless sub-commands over the same core.

Exit codes: 0 success, 1 the operation failed (a model error, a template that does not
render), 2 unusable input (a file that is missing or is not a session). Every failure prints
one line on stderr saying why; where there is advice, it follows on a line of its own.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from goose_tui import __version__

EXIT_FAILED = 1
EXIT_UNUSABLE = 2


class CliError(Exception):
    def __init__(self, message: str, exit_code: int):
        super().__init__(message)
        self.exit_code = exit_code


def print_json(value: Any) -> None:
    from goose_tui.terminal import json_text

    sys.stdout.write(json_text(value) + "\n")


def read_text_arg(name: str, what: str) -> str:
    """The text of a file argument, or standard input for ``-``, byte for byte: no newline
    translation (a reply's "\r\n" reaches the reader as the model wrote it)."""
    from goose_tui.files import NotRegularFile, open_regular

    try:
        if name == "-":
            stream = getattr(sys.stdin, "buffer", None)  # absent on a replaced stdin
            return stream.read().decode("utf-8") if stream is not None else sys.stdin.read()
        with open_regular(Path(name)) as handle:
            return handle.read().decode("utf-8")
    except NotRegularFile as exc:
        raise CliError(str(exc), EXIT_UNUSABLE) from exc
    except FileNotFoundError as exc:
        raise CliError(f"{name}: no such {what} file", EXIT_UNUSABLE) from exc
    except UnicodeDecodeError as exc:
        raise CliError(f"{name}: not UTF-8 text ({exc.reason})", EXIT_UNUSABLE) from exc
    except OSError as exc:
        raise CliError(f"{name}: cannot read: {exc.strerror}", EXIT_UNUSABLE) from exc


SUBCOMMANDS = (
    "format",
    "prompt",
    "parse",
    "render",
    "usage",
    "sessions",
    "compact",
    "retention",
    "probe",
    "compare",
    "timeline",
    "batch",
)

DESCRIPTION = """\
Inspect how Goose compacts an agent session: load a session, see its context usage
against the compaction threshold, compact it with a model, and see every step: the
formatted input, the discarded analysis, the parsed summary fields and the rendered
Markdown.

With no sub-command, opens the inspector on SESSION (a Goose .jsonl, a sessions.db, a
`goose session export` JSON, a JSON array of chat messages, or a folder of sessions).
Without SESSION it opens a bundled sample session with the built-in offline summarizer.
"""

EPILOG = """\
headless sub-commands (run `goose-tui COMMAND --help` for each):
  format SESSION        print the conversation text the summarizer receives
  prompt SESSION        print the rendered compaction system prompt
  parse REPLY_FILE      find, read and render the summary in a model reply
  render SUMMARY_JSON   render a hand-written summary JSON (file or -)
  usage SESSION         tokens used, context limit, threshold, whether compaction is due
  sessions [PATH]       list the sessions in a sessions.db, a folder, or Goose's data dir
                        (what `goose session list` shows; --all-sessions for every one)
  compact SESSION       compact a session with a model and print the summary
  retention SESSION     what a summary kept and lost: user messages, files, errors, commands
  probe SESSION         can the agent still act: recall, artifact, continuation, decision probes
  compare SESSION       two summaries side by side (two models, two templates, a saved one)
  timeline SESSION      how the context grew turn by turn and where compaction triggers
  batch DIR_OR_DB       compact many sessions and write one report

models (--model): `offline` (default; built in, no network), `replay:FILE` (the reply is
the file's text), or any litellm model string such as `openai/gpt-4o-mini`,
`anthropic/claude-sonnet-4-5`, `ollama/llama3.2`; with --api-base any OpenAI-compatible
server. API keys are read from the environment as litellm reads them (OPENAI_API_KEY, ...).

templates: --prompts-dir DIR overrides compaction.md and/or compaction_summary.md; then
$GOOSE_PATH_ROOT/config/prompts/, then $XDG_CONFIG_HOME/goose/prompts/
(~/.config/goose/prompts/), then the built-in copies.

exit codes: 0 success, 1 the operation failed, 2 unusable input.
"""


def _add_session_args(p: argparse.ArgumentParser, *, optional: bool = False) -> None:
    p.add_argument(
        "session",
        metavar="SESSION",
        type=Path,
        nargs="?" if optional else None,
        help="a Goose session file, a sessions.db, or a folder",
    )
    p.add_argument(
        "--session", dest="session_id", metavar="ID", help="which session of a sessions.db"
    )
    add_all_sessions_flag(p)


def add_all_sessions_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--all-sessions",
        action="store_true",
        help="in a sessions.db, list and pick from every session; by default only those "
        "`goose session list` shows (user and scheduled sessions with messages)",
    )


def _add_raw(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--raw",
        action="store_true",
        help="on a terminal too, write the text byte for byte (control characters included)",
    )


def _add_prompts_dir(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--prompts-dir",
        type=Path,
        metavar="DIR",
        help="a folder with compaction.md and/or compaction_summary.md overrides",
    )


def _add_usage_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", metavar="M", help="model whose context window to use")
    p.add_argument(
        "--context-limit", type=int, metavar="N", help="context window in tokens (overrides)"
    )
    p.add_argument(
        "--threshold",
        type=float,
        metavar="T",
        help="compaction threshold as a fraction (default $GOOSE_AUTO_COMPACT_THRESHOLD or 0.8)",
    )


def _add_profile_arg(p: argparse.ArgumentParser) -> None:
    from goose_tui.compaction.profiles import PROFILES

    p.add_argument(
        "--goose-profile",
        choices=PROFILES,
        default=None,
        help="which Goose version's conversation format to use: goose-sdk-wheel ([role]: "
        "lines, the installed reference and released Goose; the default) or goose-main "
        "(one JSON record per message, Goose's main branch); the app also reads "
        "goose_profile from the settings file",
    )


def _resolve_profile(args: argparse.Namespace, from_settings: str | None = None) -> None:
    """--goose-profile, else the settings file's (the app), else the installed wheel's."""
    from goose_tui.compaction.profiles import DEFAULT_PROFILE, PROFILES

    if not hasattr(args, "goose_profile") or args.goose_profile is not None:
        return
    if from_settings is not None and from_settings not in PROFILES:
        print(
            f"goose-tui: settings ignored: goose_profile {from_settings!r} is not one of "
            f"{', '.join(PROFILES)}",
            file=sys.stderr,
        )
        from_settings = None
    args.goose_profile = from_settings or DEFAULT_PROFILE


def _add_focus(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--focus",
        metavar="TEXT",
        help="a one-off instruction for this summary (what to keep), the template variable "
        "{{ focus }}; appended as the prompt's last paragraph when the template does not use it",
    )


def _add_model_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--model",
        metavar="M",
        default=None,
        help="offline (default), replay:FILE, or a litellm model string",
    )
    p.add_argument("--replay", type=Path, metavar="FILE", help="same as --model replay:FILE")
    p.add_argument("--api-base", metavar="URL", help="base URL of an OpenAI-compatible server")
    p.add_argument(
        "--offline-context-limit",
        type=int,
        metavar="N",
        help="make the offline model reject prompts over N tokens (to watch the ladder)",
    )


def settings_epilog() -> str:
    from goose_tui.settings import config_path

    return (
        f"settings: {config_path()} (TOML: theme, model, api_base, threshold, goose_profile,\n"
        "and a [keymap] table of binding id = keys); command-line options win over it, and\n"
        "the theme picked in the app is saved there.\n"
    )


def build_app_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="goose-tui",
        description=DESCRIPTION,
        epilog=EPILOG + "\n" + settings_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"goose-tui {__version__}")
    _add_session_args(p, optional=True)
    _add_model_args(p)
    _add_prompts_dir(p)
    _add_profile_arg(p)
    p.add_argument("--threshold", type=float, metavar="T", help="compaction threshold (0.8)")
    p.add_argument("--context-limit", type=int, metavar="N", help="context window in tokens")
    return p


def build_parser() -> argparse.ArgumentParser:
    """The sub-command parser (the app's own arguments are parsed by build_app_parser)."""
    p = argparse.ArgumentParser(prog="goose-tui", description=DESCRIPTION)
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    s = sub.add_parser("format", help="print the text that fills {{ messages }}")
    _add_session_args(s)
    _add_profile_arg(s)
    _add_raw(s)

    s = sub.add_parser("prompt", help="print the rendered compaction system prompt")
    _add_session_args(s)
    _add_prompts_dir(s)
    _add_profile_arg(s)
    _add_focus(s)
    _add_raw(s)

    s = sub.add_parser("parse", help="extract, read and render the summary in a model reply")
    s.add_argument("reply", metavar="REPLY_FILE", help="a file with the model's reply, or -")
    _add_prompts_dir(s)
    _add_raw(s)
    s.add_argument("--json", action="store_true", help="print one JSON object")

    s = sub.add_parser("render", help="render a hand-written summary JSON")
    s.add_argument("summary", metavar="SUMMARY_JSON", help="a summary JSON file, or -")
    _add_prompts_dir(s)
    _add_raw(s)

    s = sub.add_parser("usage", help="context usage against the compaction threshold")
    _add_session_args(s)
    _add_usage_args(s)
    s.add_argument("--json", action="store_true", help="print one JSON object")

    s = sub.add_parser("sessions", help="list sessions")
    s.add_argument(
        "path",
        metavar="PATH",
        type=Path,
        nargs="?",
        help="a sessions.db or a folder (default: Goose's data dir)",
    )
    s.add_argument("--json", action="store_true", help="print a JSON array")
    add_all_sessions_flag(s)

    s = sub.add_parser("compact", help="compact a session with a model")
    _add_session_args(s)
    _add_model_args(s)
    _add_prompts_dir(s)
    _add_profile_arg(s)
    _add_focus(s)
    _add_raw(s)
    s.add_argument("--json", action="store_true", help="print one JSON object with every step")
    s.add_argument("-o", "--output", type=Path, metavar="FILE", help="write the summary here")
    s.add_argument(
        "--save-session",
        type=Path,
        metavar="PATH",
        help="also write the compacted session, in a shape Goose imports (see README)",
    )
    s.add_argument(
        "--save-format",
        choices=("jsonl", "json"),
        help="jsonl: Goose's legacy session file; json: the export shape (default: by suffix)",
    )
    s.add_argument("--overwrite", action="store_true", help="replace an existing --save-session")

    from goose_tui.analysis.commands import register

    for name, handler in register(sub).items():
        sub.choices[name].set_defaults(handler=handler)
    return p


# --- commands -------------------------------------------------------------------------------


def _load(args: argparse.Namespace):  # -> Session
    from goose_tui.session.loader import SessionLoadError, load_session

    try:
        session = load_session(
            args.session,
            session_id=getattr(args, "session_id", None),
            all_sessions=getattr(args, "all_sessions", False),
        )
    except SessionLoadError as exc:
        raise CliError(str(exc), EXIT_UNUSABLE) from exc
    for warning in session.warnings:
        print(f"goose-tui: {args.session}: {warning}", file=sys.stderr)
    return session


def load_templates_arg(prompts_dir: Path | None, flag: str = "--prompts-dir"):  # -> Templates
    """The templates for a prompts-dir option, as CLI errors (exit 2) when unusable."""
    from goose_tui.compaction.templates import TemplateError, load_templates

    if prompts_dir is not None and not prompts_dir.is_dir():
        raise CliError(f"{flag} {prompts_dir}: not a folder", EXIT_UNUSABLE)
    try:
        return load_templates(prompts_dir)
    except TemplateError as exc:
        raise CliError(str(exc), EXIT_UNUSABLE) from exc
    except OSError as exc:
        raise CliError(f"cannot read templates: {exc}", EXIT_UNUSABLE) from exc


def _templates(args: argparse.Namespace):  # -> Templates
    return load_templates_arg(getattr(args, "prompts_dir", None))


def _template_failure(exc: Exception) -> CliError:
    return CliError(str(exc), EXIT_FAILED)


def cmd_format(args: argparse.Namespace) -> int:
    from goose_tui.compaction.profiles import format_for_profile
    from goose_tui.compaction.visibility import summarizer_messages

    session = _load(args)
    # Exactly what fills {{ messages }}: the messages (and items) the summarizer receives,
    # in the chosen Goose version's format.
    messages = summarizer_messages(session.messages)
    sys.stdout.write(format_for_profile(messages, args.goose_profile) + "\n")
    return 0


def cmd_prompt(args: argparse.Namespace) -> int:
    from goose_tui.compaction.summarize import build_request
    from goose_tui.compaction.templates import TemplateError

    session = _load(args)
    templates = _templates(args)
    try:
        request = build_request(session.messages, templates, args.focus, profile=args.goose_profile)
    except TemplateError as exc:
        raise _template_failure(exc) from exc
    sys.stdout.write(request.system_prompt + "\n")
    return 0


def cmd_parse(args: argparse.Namespace) -> int:
    from goose_tui.compaction.summarize import finish
    from goose_tui.compaction.templates import TemplateError

    reply = read_text_arg(args.reply, "reply")
    templates = _templates(args)
    try:
        extraction, summary = finish(reply, templates)
    except TemplateError as exc:
        raise _template_failure(exc) from exc
    if args.json:
        print_json(
            {
                "analysis": extraction.analysis,
                "structured": extraction.structured.to_json_dict()
                if extraction.structured
                else None,
                "summary": summary,
                "fallback": extraction.fallback,
                "fallback_reason": extraction.fallback_reason,
                "candidate": extraction.candidate.describe() if extraction.candidate else None,
            }
        )
    else:
        if extraction.fallback:
            print(f"goose-tui: raw-text fallback: {extraction.fallback_reason}", file=sys.stderr)
        sys.stdout.write(summary + "\n")
    return 0


def cmd_render(args: argparse.Namespace) -> int:
    from goose_tui.compaction.structured import StructuredSummary
    from goose_tui.compaction.templates import TemplateError, render_summary

    text = read_text_arg(args.summary, "summary JSON")
    try:
        summary = StructuredSummary.parse_json_text(text)
    except ValueError as exc:
        raise CliError(f"{args.summary}: {exc}", EXIT_UNUSABLE) from exc
    templates = _templates(args)
    try:
        sys.stdout.write(render_summary(templates, summary.normalized()) + "\n")
    except TemplateError as exc:
        raise _template_failure(exc) from exc
    return 0


def cmd_usage(args: argparse.Namespace) -> int:
    from goose_tui.analysis.breakdown import context_breakdown, format_breakdown
    from goose_tui.tokens import context_usage

    session = _load(args)
    breakdown = context_breakdown(session)
    u = context_usage(
        session, model=args.model, context_limit=args.context_limit, threshold=args.threshold
    )
    if args.json:
        print_json(
            {
                "used": u.used,
                "used_source": u.used_source,
                "limit": u.limit,
                "limit_source": u.limit_source,
                "fraction": u.fraction,
                "threshold": u.threshold,
                "auto_compact_enabled": u.auto_compact_enabled,
                "compaction_due": u.compaction_due,
                "model": u.model,
                "messages": len(session.messages),
                "breakdown": breakdown.to_json_dict(),
            }
        )
        return 0
    assumed = " (assumed: pass --context-limit or --model)" if u.limit_source == "assumed" else ""
    print(f"session     {session.title} ({len(session.messages)} messages)")
    print(f"model       {u.model or 'unknown'}")
    print(f"used        {u.used:,} tokens ({u.used_source})")
    print(f"limit       {u.limit:,} tokens (from {u.limit_source}){assumed}")
    print(f"usage       {u.fraction:.1%}")
    if u.auto_compact_enabled:
        due = "yes" if u.compaction_due else "no"
        print(f"threshold   {u.threshold:g} -> compaction due: {due}")
    else:
        print(f"threshold   {u.threshold:g} -> auto compaction is off (needs 0 < T < 1)")
    print()
    print("what fills the context (estimated, o200k_base)")
    for line in format_breakdown(breakdown):
        print(line)
    return 0


def cmd_sessions(args: argparse.Namespace) -> int:
    from goose_tui.session.loader import SessionLoadError, list_sessions

    try:
        infos = list_sessions(args.path, all_sessions=args.all_sessions)
    except SessionLoadError as exc:
        raise CliError(str(exc), EXIT_UNUSABLE) from exc
    if args.json:
        print_json([info.model_dump(mode="json") for info in infos])
        return 0
    if not infos:
        print("goose-tui: no sessions found", file=sys.stderr)
        return 0
    # With --all-sessions the session type says why a row is not in `goose session list`.
    kind = (lambda i: f"{(i.session_type or '-'):<10} ") if args.all_sessions else (lambda i: "")
    head = f"{'TYPE':<10} " if args.all_sessions else ""
    print(f"{'ID':<28} {'UPDATED':<20} {'MSGS':>5} {'TOKENS':>9}  {'MODEL':<22} {head}NAME")
    for i in infos:
        updated = i.updated_at.strftime("%Y-%m-%d %H:%M") if i.updated_at else "-"
        tokens = f"{i.total_tokens:,}" if i.total_tokens is not None else "-"
        name = i.name or i.description or ""
        print(
            f"{i.id:<28} {updated:<20} {i.message_count:>5} {tokens:>9}  "
            f"{(i.model_name or '-'):<22} {kind(i)}{name}"
        )
    return 0


def _model_spec(args: argparse.Namespace) -> str:
    if args.replay is not None:
        if args.model:
            raise CliError("give either --model or --replay, not both", EXIT_UNUSABLE)
        return f"replay:{args.replay}"
    return args.model or "offline"


def summarizer_for(
    spec: str, api_base: str | None = None, offline_context_limit: int | None = None
):  # -> Summarizer
    """The summarizer for a model spec, as CLI errors (exit 2) when unusable."""
    from goose_tui.llm import make_summarizer

    if spec.startswith("replay:"):
        replay = Path(spec[len("replay:") :])
        if not replay.exists():
            raise CliError(f"{replay}: no such reply file", EXIT_UNUSABLE)
        if not replay.is_file():
            raise CliError(f"{replay}: the reply file is not a regular file", EXIT_UNUSABLE)
    try:
        return make_summarizer(spec, api_base=api_base, offline_context_limit=offline_context_limit)
    except ValueError as exc:
        raise CliError(str(exc), EXIT_UNUSABLE) from exc


def make_summarizer_from_args(args: argparse.Namespace):  # -> Summarizer
    return summarizer_for(_model_spec(args), args.api_base, args.offline_context_limit)


def run_compaction(coro: Any) -> Any:
    """Run a compaction coroutine, turning the pipeline's failures into CLI errors (exit 1)."""
    import asyncio

    from goose_tui.compaction.summarize import CompactionFailed
    from goose_tui.compaction.templates import TemplateError
    from goose_tui.llm.base import ModelError

    # The result is kept outside the task: on Python 3.11 with the default SIGINT handler,
    # asyncio.Runner formats repr(task) (result included) after the run, and the repr of a
    # big session's CompactionResult is tens of millions of characters, built twice.
    holder: list[Any] = []

    async def run() -> None:
        holder.append(await coro)

    try:
        asyncio.run(run())
        return holder[0]
    except (CompactionFailed, ModelError, TemplateError) as exc:
        raise CliError(str(exc), EXIT_FAILED) from exc
    except KeyboardInterrupt as exc:
        raise CliError("cancelled", EXIT_FAILED) from exc


def prepare_model_from_args(args: argparse.Namespace) -> None:
    """Start importing the model's client (litellm: seconds) while the session loads."""
    from goose_tui.llm.spec import ModelSpec

    try:
        spec = ModelSpec.parse(_model_spec(args))
    except (CliError, ValueError):
        return  # reported in order, after the session's own errors
    spec.prepare()


def compaction_inputs(session_path: Path | None, spec: str, templates: Any) -> list[Path | None]:
    """Every file a compaction reads: the session, the replay file, the overrides in use."""
    replay = Path(spec[len("replay:") :]) if spec.startswith("replay:") else None
    return [
        session_path,
        replay,
        templates.compaction.source.path,
        templates.summary.source.path,
    ]


def check_output_arg(target: Path | None, inputs: list[Path | None], flag: str = "-o") -> None:
    """Refuse an output path before any work is done (exit 2)."""
    from goose_tui.files import check_output_target

    if target is None:
        return
    problem = check_output_target(target, inputs)
    if problem is not None:
        raise CliError(f"{flag} {problem}", EXIT_UNUSABLE)


def _compact_json(result: Any, goose_profile: str) -> dict[str, Any]:
    ex = result.extraction
    return {
        "model": result.model,
        "goose_profile": goose_profile,
        "focus": result.focus,
        "system_prompt": result.request.system_prompt,
        "request": [m.model_dump() for m in result.request.messages],
        "raw_response": result.raw_response,
        "analysis": ex.analysis,
        "structured": ex.structured.to_json_dict() if ex.structured else None,
        "summary": result.summary,
        "fallback": ex.fallback,
        "fallback_reason": ex.fallback_reason,
        "candidate": ex.candidate.describe() if ex.candidate else None,
        "attempts": [
            {
                "removed_percent": a.removed_percent,
                "removed_messages": a.removed_messages,
                "outcome": a.outcome,
                "tokens_sent": a.tokens_sent,
            }
            for a in result.attempts
        ],
        "usage": result.usage.model_dump(),
        "reported_usage": result.reported_usage.model_dump(),
    }


def cmd_compact(args: argparse.Namespace) -> int:
    from goose_tui.compaction.reply_check import reply_problem
    from goose_tui.compaction.summarize import summarize
    from goose_tui.files import atomic_write_text

    prepare_model_from_args(args)
    session = _load(args)
    if args.save_session is not None:
        _check_save_target(args)
    templates = _templates(args)
    spec = _model_spec(args)
    summarizer = make_summarizer_from_args(args)
    # Before the model is called: a refused path must not cost a (paid) compaction.
    check_output_arg(args.output, compaction_inputs(args.session, spec, templates))

    result = run_compaction(
        summarize(
            session.messages,
            summarizer,
            templates,
            focus=args.focus,
            profile=args.goose_profile,
        )
    )
    problem = reply_problem(result.raw_response, result.extraction.structured is not None)
    if problem is not None:
        raise CliError(problem, EXIT_FAILED)

    write_failure: str | None = None
    if args.output is not None:
        try:
            atomic_write_text(args.output, result.summary + "\n")
        except OSError as exc:
            write_failure = f"{args.output}: cannot write: {exc.strerror or exc}"
    if args.save_session is not None:
        _save_session(args, session, result.summary)
    if args.json:
        print_json(_compact_json(result, args.goose_profile))
    elif args.output is None or write_failure is not None:
        if result.extraction.fallback:
            print(
                f"goose-tui: raw-text fallback: {result.extraction.fallback_reason}",
                file=sys.stderr,
            )
        sys.stdout.write(result.summary + "\n")
    if write_failure is not None:
        where = "in the JSON on stdout" if args.json else "printed on stdout instead"
        raise CliError(f"{write_failure}; the summary is {where}", EXIT_FAILED)
    return 0


def _save_inputs(args: argparse.Namespace) -> list[Path | None]:
    return [args.session, args.output, args.replay]


def _check_save_target(args: argparse.Namespace) -> None:
    """Before the model is called: a target that will be refused fails at once (exit 2)."""
    from goose_tui.session.writer import SaveRefused, check_target

    try:
        check_target(args.save_session, _save_inputs(args), overwrite=args.overwrite)
    except SaveRefused as exc:
        raise CliError(str(exc), EXIT_UNUSABLE) from exc


def _save_session(args: argparse.Namespace, session: Any, summary: str) -> None:
    from goose_tui.session.writer import SaveRefused, save_compacted_session

    try:
        written = save_compacted_session(
            args.save_session,
            session,
            summary,
            args.save_format,
            inputs=_save_inputs(args),
            overwrite=args.overwrite,
        )
    except SaveRefused as exc:
        raise CliError(str(exc), EXIT_UNUSABLE) from exc
    print(f"goose-tui: saved the compacted session to {written}", file=sys.stderr)


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "format": cmd_format,
    "prompt": cmd_prompt,
    "parse": cmd_parse,
    "render": cmd_render,
    "usage": cmd_usage,
    "sessions": cmd_sessions,
    "compact": cmd_compact,
}


def check_limits(args: argparse.Namespace) -> None:
    """Numbers the parser cannot judge alone: a window of at least one token, a threshold in
    (0, 1] (1 turns auto compaction off), and a readable $GOOSE_AUTO_COMPACT_THRESHOLD
    where a threshold is used and --threshold does not override it."""
    from goose_tui.tokens import THRESHOLD_ENV

    for flag, value in (
        ("--context-limit", getattr(args, "context_limit", None)),
        ("--offline-context-limit", getattr(args, "offline_context_limit", None)),
    ):
        if value is not None and value <= 0:
            raise CliError(f"{flag} {value}: must be a positive number of tokens", EXIT_UNUSABLE)
    if not hasattr(args, "threshold"):
        return
    source, value = "--threshold", args.threshold
    if value is None and os.environ.get(THRESHOLD_ENV) is not None:
        source, raw = f"${THRESHOLD_ENV}", os.environ[THRESHOLD_ENV]
        try:
            value = float(raw)
        except ValueError:
            raise CliError(f"{source}={raw!r}: not a number", EXIT_UNUSABLE) from None
    if value is not None and not 0 < value <= 1:
        raise CliError(
            f"{source} {value:g}: must be in (0, 1] (a fraction of the window; 1 turns auto "
            "compaction off)",
            EXIT_UNUSABLE,
        )


def run_app_from_args(argv: Sequence[str]) -> int:
    from goose_tui.settings import load_settings
    from goose_tui.tokens import THRESHOLD_ENV

    args = build_app_parser().parse_args(argv)
    check_limits(args)
    if args.session is not None and not args.session.exists():
        raise CliError(f"{args.session}: no such file or folder", EXIT_UNUSABLE)
    settings, problem = load_settings()
    if problem:
        print(f"goose-tui: settings ignored: {problem}", file=sys.stderr)
    if args.model is None and args.replay is None and settings.model:
        args.model = settings.model
    _resolve_profile(args, settings.goose_profile)
    threshold = args.threshold
    if threshold is None and THRESHOLD_ENV not in os.environ:
        threshold = settings.threshold
    spec = _model_spec(args)
    if args.offline_context_limit is not None and spec != "offline":
        raise CliError("--offline-context-limit goes with the offline model", EXIT_UNUSABLE)
    from goose_tui.tui.app import run_app

    run_app(
        args.session,
        session_id=args.session_id,
        all_sessions=args.all_sessions,
        model=spec,
        api_base=args.api_base or settings.api_base,
        prompts_dir=args.prompts_dir,
        threshold=threshold,
        context_limit=args.context_limit,
        theme=settings.theme,
        keymap=settings.keymap,
        goose_profile=args.goose_profile,
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    from goose_tui.terminal import guarded_streams

    argv = list(sys.argv[1:] if argv is None else argv)
    with guarded_streams(("stderr",)):
        try:
            if argv and argv[0] in SUBCOMMANDS:
                args = build_parser().parse_args(argv)
                handler = getattr(args, "handler", None) or COMMANDS[args.command]
                check_limits(args)
                _resolve_profile(args)
                # Data commands keep the exact bytes with --raw; everything else on a
                # terminal shows control characters visibly.
                with guarded_streams(() if getattr(args, "raw", False) else ("stdout",)):
                    return handler(args)
            return run_app_from_args(argv)
        except CliError as exc:
            print(f"goose-tui: {exc}", file=sys.stderr)
            return exc.exit_code
        except BrokenPipeError:
            return 0
        except KeyboardInterrupt:
            print("goose-tui: cancelled", file=sys.stderr)
            return 130
        except Exception as exc:  # a bug of ours: still one line, the traceback on request
            if os.environ.get("GOOSE_TUI_DEBUG"):
                raise
            print(
                f"goose-tui: internal error: {type(exc).__name__}: {exc} "
                "(set GOOSE_TUI_DEBUG=1 for the traceback)",
                file=sys.stderr,
            )
            return EXIT_FAILED


if __name__ == "__main__":
    # Run the imported module's main, not this __main__ copy: the analysis commands raise
    # goose_tui.cli.CliError, which a second copy of the class would not catch.
    from goose_tui.cli import main as _main

    sys.exit(_main())
