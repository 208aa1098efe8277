"""What the sub-commands share: the exit codes and ``CliError``, reading file arguments,
loading the session and the templates, the model choice, running a compaction, and the
arguments several commands take.

Everything that would import something slow (asyncio, the pipeline, litellm) imports it
inside the function that needs it: ``import goose_tui.cli`` stays cheap
(tests/test_core_imports.py).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from goose_tui.settings import SettingsProblems

if TYPE_CHECKING:
    from goose_tui.cli.progress import StatusLine
    from goose_tui.compaction.summarize import CompactionResult
    from goose_tui.compaction.templates import Templates
    from goose_tui.llm.base import Summarizer
    from goose_tui.llm.spec import ModelSpec
    from goose_tui.session.models import Message, Session

EXIT_FAILED = 1
EXIT_UNUSABLE = 2

T = TypeVar("T")


class CliError(Exception):
    def __init__(self, message: str, exit_code: int):
        super().__init__(message)
        self.exit_code = exit_code


def path_arg(text: str) -> Path:
    """A file or folder argument; an empty name is refused as one (``Path("")`` would be
    the current folder)."""
    if not text:
        raise argparse.ArgumentTypeError("an empty path")
    return Path(text)


class Parser(argparse.ArgumentParser):
    """The CLI's argument parser, whose ``--help`` and ``--version`` fail as any output
    does when stdout cannot be written (argparse would ignore the error): a ``CliError``
    (a broken pipe stays ``BrokenPipeError``)."""

    def _print_message(self, message: str, file: Any = None) -> None:
        if not message:
            return
        # argparse passes sys.stdout for help and version, and sys.stdout is None when the
        # process started with it closed (`>&-`).
        to_stdout = file is sys.stdout or (file is None and sys.stderr is not None)
        if not to_stdout:
            super()._print_message(message, file or sys.stderr)
            return
        checked = CheckedStdout(sys.stdout)
        checked.write(message)
        checked.flush()


class CheckedStdout:
    """``sys.stdout`` while a sub-command runs: a write that fails (a full disk, /dev/full;
    a broken pipe stays ``BrokenPipeError``) is a ``CliError`` saying so, not a bug of ours.
    ``stream`` is None when the process started with stdout closed (`>&-`): a write fails
    the same way, and a command that writes nothing there (``compact -o``) succeeds. What
    is written loses the API keys the process knows, as a file does (``compact > file``)."""

    def __init__(self, stream: Any):
        self._stream = stream

    def write(self, text: str) -> int:
        from goose_tui.redact import remove_known_keys

        if self._stream is None:
            raise CliError("cannot write to stdout: it is closed", EXIT_FAILED)
        try:
            written = self._stream.write(remove_known_keys(text)[0])
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _output_failed(exc) from None
        return len(text) if written is None else int(written)

    def writelines(self, texts: Any) -> None:
        for text in texts:
            self.write(text)

    def flush(self) -> None:
        if self._stream is None:
            return  # nothing was written (a write would have failed)
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _output_failed(exc) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _output_failed(exc: OSError) -> CliError:
    return CliError(f"cannot write to stdout: {exc.strerror or exc}", EXIT_FAILED)


def keys_removed(target: Path, count: int) -> None:
    """A write left API keys out of ``target``: said on stderr (files.keys_removed_note)."""
    from goose_tui.files import keys_removed_note

    print(f"goose-tui: warning: {keys_removed_note(target, count)}", file=sys.stderr)


def print_json(value: BaseModel | Any) -> None:
    """One JSON value on stdout: a ``--json`` output model dumped, or a plain value."""
    from goose_tui.terminal import json_text

    data = value.model_dump(mode="json") if isinstance(value, BaseModel) else value
    sys.stdout.write(json_text(data) + "\n")


def read_text_arg(name: str, what: str) -> str:
    """The text of a file argument, or standard input for ``-``, byte for byte: no newline
    translation (a reply's "\r\n" reaches the reader as the model wrote it)."""
    from goose_tui.files import NotRegularFile, open_regular

    try:
        if name == "-":
            if sys.stdin is None:  # the process started with it closed (`<&-`)
                raise CliError(
                    f"-: cannot read the {what}: standard input is closed", EXIT_UNUSABLE
                )
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


# --- arguments ------------------------------------------------------------------------------

AddArguments = Callable[[argparse.ArgumentParser], None]
Handler = Callable[[argparse.Namespace], int]


def add_command(sub: Any, name: str, handler: Handler, *parts: AddArguments) -> Parser:
    """A sub-command's parser, its arguments added by ``parts`` in the order its --help
    lists them (``add_session_args``, ``add_model_args``, ``json_flag(...)``, ...), and
    ``handler`` to run it."""
    p: Parser = sub.add_parser(name)
    for add in parts:
        add(p)
    p.set_defaults(handler=handler)
    return p


def json_flag(help: str = "print one JSON object") -> AddArguments:
    def add(p: argparse.ArgumentParser) -> None:
        p.add_argument("--json", action="store_true", help=help)

    return add


SESSION_HELP = "a Goose session file, a sessions.db, or a folder"


def add_session_args(p: argparse.ArgumentParser, *, optional: bool = False) -> None:
    p.add_argument(
        "session",
        metavar="SESSION",
        type=path_arg,
        nargs="?" if optional else None,
        help=SESSION_HELP,
    )
    p.add_argument(
        "--session",
        dest="session_id",
        metavar="ID",
        help="which session of a sessions.db or a folder (`goose-tui sessions PATH` lists them)",
    )
    add_all_sessions_flag(p)


def add_all_sessions_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--all-sessions",
        action="store_true",
        help="every session of a sessions.db, not only those `goose session list` shows "
        "(user and scheduled sessions with messages)",
    )


def add_raw(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--raw",
        action="store_true",
        help="on a terminal too, write the text byte for byte (control characters included)",
    )


def add_prompts_dir(
    p: argparse.ArgumentParser, flag: str = "--prompts-dir", *, repeated: bool = False
) -> None:
    """A templates folder; ``repeated``: the option may be given more than once (a list)."""
    p.add_argument(
        flag,
        type=path_arg,
        metavar="DIR",
        action="append" if repeated else "store",
        help="a folder with compaction.md and/or compaction_summary.md overrides",
    )


def add_profile_arg(p: argparse.ArgumentParser) -> None:
    from goose_tui.compaction.profiles import ALIASES, PROFILES

    p.add_argument(
        "--goose-profile",
        choices=(*PROFILES, *ALIASES),
        metavar="{" + ",".join(PROFILES) + "}",
        default=None,
        help="which Goose version to compact as: goose-sdk-wheel (the default) is released "
        "Goose, as the goose-sdk wheels 0.1.0a8 to 0.1.0a13 run it: [role]: lines; "
        "goose-pr-11845 is Goose's open pull request #11845, in no release: one JSON record "
        "per message, and with Goose's own compaction.md the line that change adds to it "
        "(its old name goose-main still works); the app also reads goose_profile from the "
        "settings file",
    )


def resolve_profile(args: argparse.Namespace, from_settings: str | None = None) -> SettingsProblems:
    """--goose-profile, else the settings file's (the app), else the installed wheel's, an
    old name read as its profile. Returns what to report: a settings value that is no
    profile (ignored), or the note on an old name."""
    from goose_tui.compaction.profiles import DEFAULT_PROFILE, PROFILES, profile_named

    if not hasattr(args, "goose_profile"):
        return SettingsProblems()
    if args.goose_profile is not None:
        args.goose_profile, note = profile_named(args.goose_profile)
        return SettingsProblems(notes=(note,) if note else ())
    if from_settings is None:
        args.goose_profile = DEFAULT_PROFILE
        return SettingsProblems()
    profile, note = profile_named(from_settings)
    args.goose_profile = profile or DEFAULT_PROFILE
    if profile is None:
        known = ", ".join(PROFILES)
        return SettingsProblems((f"goose_profile {from_settings!r} is not one of {known}",))
    return SettingsProblems(notes=(f"settings: {note}",) if note else ())


def add_focus(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--focus",
        metavar="TEXT",
        help="a one-off instruction for this summary (what to keep), the template variable "
        "{{ focus }}; appended as the prompt's last paragraph when the template does not use it",
    )


def seconds_arg(text: str) -> float:
    """A positive, finite number of seconds (``--timeout``)."""
    import math

    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (0 < value < math.inf):
        raise argparse.ArgumentTypeError("must be a number of seconds above 0")
    return value


def add_timeout(p: argparse.ArgumentParser) -> None:
    from goose_tui.llm.base import DEFAULT_TIMEOUT

    p.add_argument(
        "--timeout",
        type=seconds_arg,
        metavar="SECONDS",
        help=f"give up on a model call after this many seconds ({DEFAULT_TIMEOUT:g}; the app "
        "also reads timeout from the settings file)",
    )


def add_connection_args(p: argparse.ArgumentParser) -> None:
    """Where and how long to call a model: --api-base and --timeout."""
    add_api_base(p)
    add_timeout(p)


def add_api_base(p: argparse.ArgumentParser) -> None:
    p.add_argument("--api-base", metavar="URL", help="base URL of an OpenAI-compatible server")


def add_model_args(
    p: argparse.ArgumentParser, *, model_in: Any = None, replay_in: Any = None
) -> None:
    """The summarizer: --model, --replay, --offline-context-limit, --api-base, --timeout.
    ``model_in`` / ``replay_in``: a mutually exclusive group of the command's to put
    --model / --replay in (by default the parser itself)."""
    (model_in or p).add_argument(
        "--model",
        metavar="M",
        default=None,
        help="offline (the default), replay:FILE, session (the provider and model the session "
        "recorded), or a litellm model string",
    )
    (replay_in or p).add_argument(
        "--replay", type=path_arg, metavar="FILE", help="same as --model replay:FILE"
    )
    add_api_base(p)
    p.add_argument(
        "--offline-context-limit",
        type=int,
        metavar="N",
        help="make the offline model reject prompts over N tokens (to watch the ladder)",
    )
    add_timeout(p)


def add_window_args(p: argparse.ArgumentParser) -> None:
    """The context window and the compaction threshold a session is measured against (its
    own model's window unless --context-limit says otherwise)."""
    p.add_argument(
        "--context-limit",
        type=int,
        metavar="N",
        help="context window in tokens, instead of the model's",
    )
    p.add_argument(
        "--threshold",
        type=float,
        metavar="T",
        help="compaction threshold as a fraction (default $GOOSE_AUTO_COMPACT_THRESHOLD, else "
        "the settings file's, else 0.8)",
    )


def wants_settings_threshold(args: argparse.Namespace) -> bool:
    """Whether the settings file's threshold applies: the command takes --threshold, it was
    not given, and ``$GOOSE_AUTO_COMPACT_THRESHOLD`` (which wins over the file) is not set."""
    from goose_tui.tokens import THRESHOLD_ENV

    return hasattr(args, "threshold") and args.threshold is None and THRESHOLD_ENV not in os.environ


def check_limits(args: argparse.Namespace) -> str | None:
    """Numbers the parser cannot judge alone: a window of at least one token and a
    ``--threshold`` in [0, 1] (0 or 1 turns auto compaction off). Where a threshold is used
    and --threshold does not override it, ``$GOOSE_AUTO_COMPACT_THRESHOLD`` is read as Goose
    reads it: any number (outside (0, 1) auto compaction is off: check_if_compaction_needed,
    crates/goose/src/context_mgmt/mod.rs), and one it cannot read is its default 0.8: the
    warning that says so is returned, for the caller to show."""
    import math

    from goose_tui.settings import threshold_problem
    from goose_tui.tokens import DEFAULT_THRESHOLD, THRESHOLD_ENV

    for flag, value in (
        ("--context-limit", getattr(args, "context_limit", None)),
        ("--offline-context-limit", getattr(args, "offline_context_limit", None)),
    ):
        if value is not None and value <= 0:
            raise CliError(f"{flag} {value}: must be a positive number of tokens", EXIT_UNUSABLE)
    if not hasattr(args, "threshold"):
        return None
    value = args.threshold
    if value is None and (raw := os.environ.get(THRESHOLD_ENV)) is not None:
        try:
            readable = math.isfinite(float(raw))
        except ValueError:
            readable = False
        if readable:
            return None  # tokens.resolve_threshold reads it so
        return (
            f"${THRESHOLD_ENV}={raw!r} is not a number: Goose uses {DEFAULT_THRESHOLD:g} then, "
            "and so does goose-tui"
        )
    if value is not None and (problem := threshold_problem(value)) is not None:
        raise CliError(f"--threshold {problem}", EXIT_UNUSABLE)
    return None


# --- loading --------------------------------------------------------------------------------


def load_session_arg(args: argparse.Namespace, status: StatusLine | None = None) -> Session:
    """The session the arguments name (``SESSION``, ``--session``, ``--all-sessions``); its
    loading warnings on stderr (``status``: a status line there, erased before them)."""
    from goose_tui.session.loader import SessionLoadError, load_session

    try:
        session = load_session(
            args.session,
            session_id=getattr(args, "session_id", None),
            all_sessions=getattr(args, "all_sessions", False),
        )
    except SessionLoadError as exc:
        raise CliError(str(exc), EXIT_UNUSABLE) from exc
    if session.warnings and status is not None:
        status.clear()
    for warning in session.warnings:
        print(f"goose-tui: {args.session}: {warning}", file=sys.stderr)
    return session


def check_prompts_dir(prompts_dir: Path | None, flag: str = "--prompts-dir") -> None:
    """A prompts-dir option that is no folder is unusable input (exit 2), for the app too."""
    if prompts_dir is not None and not prompts_dir.is_dir():
        raise CliError(f"{flag} {prompts_dir}: not a folder", EXIT_UNUSABLE)


def load_templates_arg(prompts_dir: Path | None, flag: str = "--prompts-dir") -> Templates:
    """The templates for a prompts-dir option, as CLI errors (exit 2) when unusable."""
    from goose_tui.compaction.templates import TemplateError, load_templates

    check_prompts_dir(prompts_dir, flag)
    try:
        templates = load_templates(prompts_dir)
        # Compiled now: a syntax error is unusable input (exit 2) before any work, not a
        # failure of the render (exit 1) after the session was read and formatted.
        templates.compaction.check()
        templates.summary.check()
    except TemplateError as exc:
        raise CliError(str(exc), EXIT_UNUSABLE) from exc
    except OSError as exc:
        raise CliError(f"cannot read templates: {exc}", EXIT_UNUSABLE) from exc
    return templates


# --- the model ------------------------------------------------------------------------------


def parse_model(text: str, api_base: str | None = None, timeout: float | None = None) -> ModelSpec:
    """A model typed on the command line (``--a``, ``--judge``, batch's ``--model``): a
    litellm model is called in the worker, as ``--model`` is (see ``model_arg``)."""
    from goose_tui.llm.spec import ModelSpec

    try:
        return ModelSpec.parse(text, api_base=api_base, in_worker_process=True, timeout=timeout)
    except ValueError as exc:
        raise CliError(str(exc), EXIT_UNUSABLE) from exc


def model_arg(args: argparse.Namespace) -> ModelSpec | CliError:
    """``--model`` / ``--replay`` (with ``--api-base``, ``--offline-context-limit``), parsed
    once, at the start: litellm's import can then begin while the session loads. A choice
    that cannot work comes back as its error, for the command to raise where the user has
    always seen it: after the session's and the templates' own errors."""
    from goose_tui.llm.spec import SESSION_MODEL, ModelSpec

    if args.model == SESSION_MODEL:  # known once the session is loaded: session_model_arg
        return CliError(
            f"--model {SESSION_MODEL}: not available here; name the model", EXIT_UNUSABLE
        )
    try:
        return ModelSpec.from_options(
            args.model,
            args.replay,
            api_base=args.api_base,
            offline_context_limit=args.offline_context_limit,
            timeout=getattr(args, "timeout", None),
            # litellm is imported in the worker process while the session loads and the
            # prompt is built (goose_tui/llm/litellm_worker.py).
            in_worker_process=True,
        )
    except ValueError as exc:
        return CliError(str(exc), EXIT_UNUSABLE)


def session_model_arg(
    args: argparse.Namespace, session: Session, choice: ModelSpec | CliError
) -> ModelSpec | CliError:
    """``--model session``, once the session is loaded: the provider and model it recorded,
    as a litellm model string (``llm.spec.session_model``); any other choice as it was."""
    from goose_tui.llm.spec import SESSION_MODEL

    if args.model != SESSION_MODEL:
        return choice
    try:
        args.model = recorded_model(session)
    except CliError as exc:
        return exc
    return prepare(model_arg(args))


def recorded_model(session: Session) -> str:
    """The provider and model ``session`` recorded, as a litellm model string
    (``llm.spec.session_model``); a ``CliError`` when it recorded none usable."""
    from goose_tui.llm.spec import SESSION_MODEL, session_model

    try:
        return session_model(session.provider_name, session.model_name)
    except ValueError as exc:
        raise CliError(f"--model {SESSION_MODEL}: {exc}", EXIT_UNUSABLE) from exc


def prepare(spec: ModelSpec | CliError) -> ModelSpec | CliError:
    """Start importing the model's client (litellm: seconds) while the session loads."""
    if not isinstance(spec, CliError):
        spec.prepare()
    return spec


def usable(choice: ModelSpec | CliError) -> ModelSpec:
    """The parsed model choice, or its error raised now."""
    if isinstance(choice, CliError):
        raise choice
    return choice


def summarizer_of(spec: ModelSpec) -> Summarizer:
    """The summarizer for a model, as CLI errors (exit 2) when unusable: a reply file that
    is missing or not a regular file."""
    problem = spec.problem()
    if problem is not None:
        raise CliError(problem, EXIT_UNUSABLE)
    try:
        return spec.summarizer()
    except ValueError as exc:
        raise CliError(str(exc), EXIT_UNUSABLE) from exc


def compaction_error(exc: BaseException) -> CliError | None:
    """The CLI error of one of the pipeline's failures (exit 1; a model string litellm knows
    no provider for is unusable input, exit 2), or None for anything else."""
    from goose_tui.analysis.failures import failure_text
    from goose_tui.compaction.reply_check import UnusableReply
    from goose_tui.compaction.summarize import CompactionFailed
    from goose_tui.compaction.templates import TemplateError
    from goose_tui.llm.base import ModelError, UnknownModel

    if isinstance(exc, UnknownModel):
        return CliError(str(exc), EXIT_UNUSABLE)
    if isinstance(exc, (CompactionFailed, ModelError, TemplateError, UnusableReply)):
        return CliError(failure_text(exc), EXIT_FAILED)
    return None


def run_compaction(coro: Coroutine[Any, Any, T]) -> T:
    """Run a compaction coroutine, turning the pipeline's failures into CLI errors
    (``compaction_error``)."""
    import asyncio

    # The result is kept outside the task: on Python 3.11 with the default SIGINT handler,
    # asyncio.Runner formats repr(task) (result included) after the run, and the repr of a
    # big session's CompactionResult is tens of millions of characters, built twice.
    holder: list[T] = []

    async def run() -> None:
        holder.append(await coro)

    try:
        asyncio.run(run())
        return holder[0]
    except Exception as exc:
        error = compaction_error(exc)
        if error is None:
            raise
        raise error from exc
    # Ctrl-C goes on to main(): "cancelled", exit 130, whenever it comes.


async def usable_summary(
    messages: Sequence[Message], summarizer: Summarizer, templates: Templates
) -> CompactionResult:
    """A compaction whose reply must hold a summary: an empty reply or an error page is
    none (``UnusableReply``, exit 1)."""
    from goose_tui.compaction.reply_check import require_usable
    from goose_tui.compaction.summarize import summarize

    result = await summarize(messages, summarizer, templates)
    require_usable(result)
    return result


def print_session_head(session: Session, summary_source: str | None = None) -> None:
    """The lines an analysis's text output opens with: the session, and where the summary
    it judges came from."""
    print(f"session  {session.title} ({len(session.messages)} messages)")
    if summary_source is not None:
        print(f"summary  {summary_source}")


def check_output_arg(
    target: Path | None, inputs: list[Path | None], flag: str = "-o", *, overwrite: bool = False
) -> None:
    """Refuse an output path before any work is done (exit 2): also an existing file, unless
    ``overwrite`` (the command's --overwrite)."""
    from goose_tui.files import check_output_target

    if target is None:
        return
    problem = check_output_target(target, inputs, replace=overwrite)
    if problem is not None:
        raise CliError(f"{flag} {problem}", EXIT_UNUSABLE)
