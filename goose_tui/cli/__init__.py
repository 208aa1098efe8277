"""The ``goose-tui`` command: the inspector app, and headless sub-commands over the same core.

Exit codes: 0 success, 1 the operation failed (a model error, a template that does not
render), 2 unusable input (a file that is missing or is not a session). Every failure prints
one line on stderr saying why; where there is advice, it follows on a line of its own.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple

from goose_tui import __version__
from goose_tui.cli.common import (
    EXIT_FAILED,
    EXIT_UNUSABLE,
    CliError,
    Parser,
    add_model_args,
    add_profile_arg,
    add_prompts_dir,
    add_session_args,
    add_window_args,
    check_limits,
    check_prompts_dir,
    resolve_profile,
    run_compaction,
    wants_settings_threshold,
)

__all__ = ["EXIT_FAILED", "EXIT_UNUSABLE", "CliError", "main", "run_compaction"]


class Command(NamedTuple):
    """A sub-command: the module of goose_tui.cli that adds it and the function that does,
    what it takes, and what it does (said at the top and in its own --help)."""

    module: str
    register: str
    arguments: str
    summary: str


COMMANDS: dict[str, Command] = {
    "format": Command(
        "pipeline", "register", "SESSION", "print the conversation text the summarizer receives"
    ),
    "prompt": Command(
        "pipeline", "register", "SESSION", "print the rendered compaction system prompt"
    ),
    "parse": Command(
        "pipeline",
        "register",
        "REPLY_FILE",
        "find, read and render the summary in a model reply (file or -)",
    ),
    "render": Command(
        "pipeline", "register", "SUMMARY_JSON", "render a hand-written summary JSON (file or -)"
    ),
    "usage": Command(
        "sessions",
        "register",
        "SESSION",
        "tokens used, context limit, threshold, whether compaction is due",
    ),
    "sessions": Command(
        "sessions",
        "register",
        "[PATH]",
        "list the sessions in a sessions.db, a folder, or Goose's data dir (those "
        "`goose session list` shows; --all-sessions for every one)",
    ),
    "compact": Command(
        "pipeline",
        "register_compact",
        "SESSION",
        "compact a session with a model and print the summary",
    ),
    "retention": Command(
        "analysis",
        "register",
        "SESSION",
        "evidence found: which user messages, files, errors and commands the summary still "
        "writes out (strings kept, not proof the agent can use them)",
    ),
    "probe": Command(
        "analysis",
        "register",
        "SESSION",
        "can the agent act: the open problem and next step, decisions and their reasons, "
        "files changed, the user's facts, found or missing per kind",
    ),
    "compare": Command(
        "analysis",
        "register",
        "SESSION",
        "two or more summaries side by side (models, template folders, saved summaries)",
    ),
    "timeline": Command(
        "timeline",
        "register",
        "SESSION",
        "how the context grew turn by turn and where compaction triggers",
    ),
    "audit": Command(
        "audit", "register", "SESSION", "score the compactions Goose already made in a session"
    ),
    "batch": Command(
        "batch",
        "register",
        "DIR_OR_DB",
        "compact many sessions and write one report (one table per --prompts-dir)",
    ),
    "report": Command(
        "report",
        "register",
        "SESSION",
        "compact a session and write the inspection as Markdown and HTML",
    ),
    "schema": Command(
        "schema",
        "register",
        "[NAME]",
        "print the JSON Schema of the --json outputs (all, or one by name)",
    ),
}
SUBCOMMANDS = tuple(COMMANDS)


def _command_lines() -> str:
    """The sub-commands as the top --help lists them, each summary wrapped beside its name."""
    import textwrap

    lines = []
    for name, command in COMMANDS.items():
        head = f"  {name} {command.arguments}"
        wrapped = textwrap.wrap(command.summary, width=96 - 24)
        first = head.ljust(22) + "  " + wrapped[0] if len(head) <= 22 else head
        lines.append(first)
        rest = wrapped[1:] if len(head) <= 22 else wrapped
        lines += [" " * 24 + line for line in rest]
    return "\n".join(lines) + "\n"


DESCRIPTION = """\
Inspect how Goose compacts an agent session: load a session, see its context usage
against the compaction threshold, compact it with a model, and see every step: the
formatted input, the discarded analysis, the parsed summary fields and the rendered
Markdown.

With no sub-command, opens the inspector on SESSION (a Goose .jsonl, a sessions.db, a
`goose session export` JSON, a JSON array of chat messages, or a folder of sessions).
Without SESSION it opens a bundled sample session with the built-in offline summarizer.
"""

EXIT_CODES = "exit codes: 0 success, 1 the operation failed, 2 unusable input, 130 Ctrl-C.\n"

EPILOG = (
    """\
headless sub-commands (run `goose-tui COMMAND --help` for each):
"""
    + _command_lines()
    + """
models (--model): `offline` (default; built in, no network), `replay:FILE` (the reply is
the file's text), `session` (the provider and model the session recorded), or any litellm
model string such as `openai/gpt-4o-mini`,
`anthropic/claude-sonnet-4-5`, `ollama/llama3.2`; with --api-base any OpenAI-compatible
server. API keys are read from the environment as litellm reads them (OPENAI_API_KEY, ...).

templates: --prompts-dir DIR overrides compaction.md and/or compaction_summary.md; then
$GOOSE_PATH_ROOT/config/prompts/, then $XDG_CONFIG_HOME/goose/prompts/
(~/.config/goose/prompts/), then the built-in copies.

"""
    + EXIT_CODES
)


def settings_epilog() -> str:
    from goose_tui.settings import config_path

    return (
        f"settings: {config_path()} (TOML: theme, model, api_base, threshold, goose_profile,\n"
        "timeout and a [keymap] table of binding id = keys); command-line options win over\n"
        "it, the headless commands read only its threshold, and the theme picked in the app\n"
        "is saved there.\n"
    )


def build_app_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="goose-tui",
        description=DESCRIPTION,
        epilog=EPILOG + "\n" + settings_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"goose-tui {__version__}")
    add_session_args(p, optional=True)
    add_model_args(p)
    add_prompts_dir(p)
    add_profile_arg(p)
    add_window_args(p)
    return p


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The sub-command parser (the app's own arguments are parsed by build_app_parser); each
    command group's module adds its commands, each with its handler as ``args.handler``.
    With ``command``, only the module of that command is imported: `goose-tui usage` does
    not import what compare, probe and batch need, which every run would pay for."""
    import importlib

    p = Parser(prog="goose-tui", description=DESCRIPTION)
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_parser = sub.add_parser

    def add_with_help(name: str, **kwargs: Any) -> Parser:
        # Each command's --help opens with what it does and ends with the exit codes.
        kwargs.setdefault("help", COMMANDS[name].summary)
        kwargs.setdefault("description", kwargs["help"])
        kwargs.setdefault("epilog", EXIT_CODES)
        return add_parser(name, **kwargs)

    sub.add_parser = add_with_help  # type: ignore[method-assign]
    wanted = [COMMANDS[command]] if command is not None else list(COMMANDS.values())
    for module, function in dict.fromkeys((c.module, c.register) for c in wanted):
        getattr(importlib.import_module(f"goose_tui.cli.{module}"), function)(sub)
    return p


def _refuse_a_mistyped_command(argv: Sequence[str]) -> None:
    """``goose-tui retenton s.jsonl`` opened the app on a file "retenton" (argparse then
    said "unrecognized arguments: s.jsonl"): a first word that is no file but close to a
    command's name is named as such."""
    import difflib
    from pathlib import Path

    first = argv[0] if argv else ""
    if not first or first.startswith("-") or Path(first).exists():
        return
    close = difflib.get_close_matches(first, SUBCOMMANDS, n=1)
    if close:
        raise CliError(
            f"{first}: no such file or folder, and no command of that name "
            f"(did you mean `goose-tui {close[0]}`?)",
            EXIT_UNUSABLE,
        )


def run_app_from_args(argv: Sequence[str]) -> int:
    from goose_tui.llm.spec import ModelSpec
    from goose_tui.settings import SettingsProblems, load_settings

    args = build_app_parser().parse_args(argv)
    threshold_problem = check_limits(args)
    if args.session is not None and not args.session.exists():
        raise CliError(f"{args.session}: no such file or folder", EXIT_UNUSABLE)
    check_prompts_dir(args.prompts_dir)
    # What is wrong with the settings file is shown by the app once it is up: printed now,
    # it would be covered by the app's screen before anyone read it.
    settings, problems = load_settings()
    if threshold_problem is not None:
        problems += SettingsProblems(notes=(threshold_problem,))
    if args.model is None and args.replay is None and settings.model:
        args.model = settings.model
    problems += resolve_profile(args, settings.goose_profile)
    if wants_settings_threshold(args):
        args.threshold = settings.threshold
    from goose_tui.llm.spec import SESSION_MODEL

    try:
        # --model session: the app takes each opened session's own model.
        spec = ModelSpec.from_options(
            None if args.model == SESSION_MODEL else args.model,
            args.replay,
            offline_context_limit=args.offline_context_limit,
            timeout=args.timeout or settings.timeout,
        )
    except ValueError as exc:
        raise CliError(str(exc), EXIT_UNUSABLE) from exc
    from goose_tui.tui.app import GooseTUI, NoTerminal, run_app

    try:
        # Non-zero when an error ended the app (the traceback is on the screen): exit 1.
        code = run_app(
            GooseTUI(
                args.session,
                session_id=args.session_id,
                all_sessions=args.all_sessions,
                model=SESSION_MODEL if args.model == SESSION_MODEL else spec.name,
                api_base=args.api_base or settings.api_base,
                timeout=spec.timeout,
                prompts_dir=args.prompts_dir,
                threshold=args.threshold,
                context_limit=args.context_limit,
                theme=settings.theme,
                keymap=settings.keymap,
                goose_profile=args.goose_profile,
                settings_problems=problems,
            )
        )
    except NoTerminal as exc:
        raise CliError(str(exc), EXIT_UNUSABLE) from exc
    return EXIT_FAILED if code else 0


def _settings_threshold(args: argparse.Namespace) -> None:
    """A headless command's threshold from the settings file; what is wrong with the file
    goes to stderr, and the command goes on without it."""
    from goose_tui.settings import load_settings

    settings, problems = load_settings()
    problems.print()
    args.threshold = settings.threshold
    if settings.threshold is not None:
        args.threshold_source = "settings"


def _run_checked(handler: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """A sub-command, with its output flushed before it counts as done: a stdout that cannot
    be written (a full disk) is a ``CliError`` (``CheckedStdout``)."""
    from goose_tui.cli.common import CheckedStdout
    from goose_tui.terminal import guarded_streams

    real = sys.stdout
    sys.stdout = CheckedStdout(real)
    try:
        # Data commands keep the exact bytes with --raw; everything else on a terminal
        # shows control characters visibly.
        with guarded_streams(() if getattr(args, "raw", False) else ("stdout",)):
            code = handler(args)
            sys.stdout.flush()
            return code
    finally:
        sys.stdout = real


def _hold_closed_standard_fds() -> None:
    """A standard stream the process started without (``>&-``) is /dev/null for the run:
    otherwise the next file opened takes its number, and what a worker started later writes
    to its stdout lands in that file. ``sys.stdout`` stays None (``CheckedStdout``)."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            os.open(os.devnull, os.O_RDWR)  # the lowest free number: this one


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP, handled as Ctrl-C is: every write in progress removes its
    temporary file, every worker is stopped."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _stop(signum: int, frame: object) -> None:
    raise Stopped(signum)


@contextmanager
def _stopping_on_signals() -> Iterator[None]:
    """SIGTERM and SIGHUP raise ``Stopped`` in the main thread while inside; the handlers
    before are restored after (``main`` is called in process by tests and tools)."""
    kept = {sig: signal.signal(sig, _stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in kept.items():
            signal.signal(sig, handler)


def main(argv: Sequence[str] | None = None) -> int:
    from goose_tui.terminal import guarded_streams

    _hold_closed_standard_fds()
    argv = list(sys.argv[1:] if argv is None else argv)
    with guarded_streams(("stderr",)), _stopping_on_signals():
        try:
            if argv and argv[0] in SUBCOMMANDS:
                args = build_parser(argv[0]).parse_args(argv)
                handler: Callable[[argparse.Namespace], int] = args.handler
                if (threshold_problem := check_limits(args)) is not None:
                    print(f"goose-tui: {threshold_problem}", file=sys.stderr)
                resolve_profile(args).print()
                if wants_settings_threshold(args):
                    _settings_threshold(args)
                return _run_checked(handler, args)
            _refuse_a_mistyped_command(argv)
            return run_app_from_args(argv)
        except CliError as exc:
            print(f"goose-tui: {exc}", file=sys.stderr)
            return exc.exit_code
        except BrokenPipeError:
            return 0
        except Stopped as exc:
            print(f"goose-tui: stopped by {signal.Signals(exc.signum).name}", file=sys.stderr)
            return 128 + exc.signum
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
