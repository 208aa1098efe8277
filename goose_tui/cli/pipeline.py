"""The pipeline's steps one at a time: ``format`` (what fills ``{{ messages }}``), ``prompt``
(the system prompt), ``parse`` (read a reply), ``render`` (a hand-written summary JSON) and
``compact`` (all of them with a model, optionally saving the compacted session)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from goose_tui.cli.common import (
    EXIT_FAILED,
    EXIT_UNUSABLE,
    CliError,
    add_command,
    add_focus,
    add_model_args,
    add_profile_arg,
    add_prompts_dir,
    add_raw,
    add_session_args,
    check_output_arg,
    json_flag,
    keys_removed,
    load_session_arg,
    load_templates_arg,
    model_arg,
    path_arg,
    prepare,
    print_json,
    read_text_arg,
    run_compaction,
    session_model_arg,
    summarizer_of,
    usable,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from goose_tui.compaction.templates import Templates
    from goose_tui.inspector import Inspector
    from goose_tui.llm.base import Summarizer
    from goose_tui.llm.spec import ModelSpec
    from goose_tui.saving import SaveKind
    from goose_tui.session.models import Session


# What a prompt is built from, after the session (and compact's model): its templates, the
# Goose version's format and the focus; and --raw for the output.
PROMPT_ARGS = (add_prompts_dir, add_profile_arg, add_focus, add_raw)


def register(sub: Any) -> None:
    add_command(sub, "format", cmd_format, add_session_args, add_profile_arg, add_raw)
    add_command(sub, "prompt", cmd_prompt, add_session_args, *PROMPT_ARGS)
    s = add_command(sub, "parse", cmd_parse)
    s.add_argument("reply", metavar="REPLY_FILE", help="a file with the model's reply, or -")
    add_prompts_dir(s)
    add_raw(s)
    json_flag()(s)
    s = add_command(sub, "render", cmd_render)
    s.add_argument("summary", metavar="SUMMARY_JSON", help="a summary JSON file, or -")
    add_prompts_dir(s)
    add_raw(s)


def register_compact(sub: Any) -> None:
    every_step = json_flag("print one JSON object with every step")
    s = add_command(sub, "compact", cmd_compact, add_session_args, add_model_args, *PROMPT_ARGS)
    every_step(s)
    s.add_argument("-o", "--output", type=path_arg, metavar="FILE", help="write the summary here")
    s.add_argument(
        "--save-session",
        type=path_arg,
        metavar="PATH",
        help="also write the compacted session to PATH, as Goose leaves one after a compaction: "
        "the old messages kept but hidden from the agent, then the summary; a new file for "
        "Goose to import or resume (--save-format)",
    )
    s.add_argument(
        "--save-format",
        choices=("json", "jsonl"),
        help="json (the default, except for a .jsonl name): the session JSON today's Goose "
        "imports; jsonl: the legacy session file, for older Goose",
    )
    s.add_argument(
        "--add-to-goose-db",
        nargs="?",
        const="",
        type=str,
        metavar="SESSIONS_DB",
        help="also add the compacted session to Goose's sessions.db as a new session (for the "
        "Goose CLI, which has no import): a backup of it first; default: Goose's own",
    )
    s.add_argument(
        "--overwrite", action="store_true", help="replace an existing -o or --save-session file"
    )


def _template_failure(exc: Exception) -> CliError:
    return CliError(str(exc), EXIT_FAILED)


def cmd_format(args: argparse.Namespace) -> int:
    from goose_tui.compaction.profiles import format_for_profile
    from goose_tui.compaction.visibility import summarizer_messages

    session = load_session_arg(args)
    # Exactly what fills {{ messages }}: the messages (and items) the summarizer receives,
    # in the chosen Goose version's format.
    messages = summarizer_messages(session.messages)
    sys.stdout.write(format_for_profile(messages, args.goose_profile) + "\n")
    return 0


def cmd_prompt(args: argparse.Namespace) -> int:
    from goose_tui.compaction.templates import TemplateError

    session = load_session_arg(args)
    inspector = _inspector(args, session, load_templates_arg(args.prompts_dir))
    try:
        request = inspector.build_request()  # what the app's input pane shows
    except TemplateError as exc:
        raise _template_failure(exc) from exc
    sys.stdout.writelines(request.prompt.parts)  # written from its pieces, not joined
    sys.stdout.write("\n")
    return 0


def cmd_parse(args: argparse.Namespace) -> int:
    from goose_tui.compaction.reply_check import reply_problem
    from goose_tui.compaction.summarize import finish
    from goose_tui.compaction.templates import TemplateError

    reply = read_text_arg(args.reply, "reply")
    templates = load_templates_arg(args.prompts_dir)
    try:
        extraction, summary = finish(reply, templates)
    except TemplateError as exc:
        raise _template_failure(exc) from exc
    # Shown all the same (this command is for looking at a reply), but an empty reply or an
    # error page is no summary: exit 1, as compact refuses it (that line then says why, not
    # the fallback's as well).
    problem = reply_problem(reply, extraction.structured is not None)
    if args.json:
        from goose_tui.cli.reports import ParseOutput

        print_json(ParseOutput.of(extraction, summary))
    else:
        if extraction.fallback and problem is None:
            print(f"goose-tui: raw-text fallback: {extraction.fallback_reason}", file=sys.stderr)
        sys.stdout.write(summary + "\n")
    if problem is not None:
        raise CliError(problem, EXIT_FAILED)
    return 0


def cmd_render(args: argparse.Namespace) -> int:
    from goose_tui.compaction.structured import StructuredSummary
    from goose_tui.compaction.templates import TemplateError, render_summary

    text = read_text_arg(args.summary, "summary JSON")
    try:
        summary = StructuredSummary.parse_json_text(text)
    except ValueError as exc:
        raise CliError(f"{args.summary}: {exc}", EXIT_UNUSABLE) from exc
    templates = load_templates_arg(args.prompts_dir)
    try:
        sys.stdout.write(render_summary(templates, summary.normalized()) + "\n")
    except TemplateError as exc:
        raise _template_failure(exc) from exc
    return 0


def cmd_compact(args: argparse.Namespace) -> int:
    """The session through one ``Inspector``, as the app compacts it, with the CLI's own
    rules on top: templates loaded strictly (a broken override is an error, exit 2), every
    output refused before the (perhaps paid) model call, and a summary that cannot be
    written printed on stdout instead."""
    from goose_tui.cli.progress import CompactProgress, StatusLine
    from goose_tui.saving import summary_file_text

    choice = prepare(model_arg(args))
    # On a terminal, what is happening from the load to the reply (nothing on a pipe).
    progress = CompactProgress(
        StatusLine.on_stderr(), args.model or ("offline" if args.replay is None else "replay")
    )
    with progress.shown():
        progress.loading = True
        progress.redraw()
        session = load_session_arg(args, status=progress.line)
        progress.loading = False
        inspector, summarizer = compacting_inspector(args, session, choice)
        spec = inspector.model
        progress.model, progress.client_ready = spec.name, spec.client_ready
        # Before the model is called: a refused path must not cost a (paid) compaction.
        if args.output is not None and args.save_session is not None:
            if args.output.expanduser().resolve() == args.save_session.expanduser().resolve():
                raise CliError(
                    f"-o and --save-session name the same file ({args.output}): the summary "
                    "and the compacted session each need a file of their own",
                    EXIT_UNUSABLE,
                )
        check_output_arg(
            args.output, [args.session, *inspector.input_files()], overwrite=args.overwrite
        )
        if args.save_session is not None:
            _check_save_target(args, inspector)
        goose_db = _check_goose_db(args)
        # The JSON reports every attempt's tokens and the usage; the summary alone needs no
        # count.
        compaction = inspector.compact(
            summarizer=summarizer,
            estimate_tokens=args.json,
            on_attempt=progress.on_attempt,
            on_chunk=progress.on_chunk,
        )
        result = run_compaction(progress.around(compaction))

    # Checked before the model was called; a file made since is not replaced either (unless
    # --overwrite), and the summary is kept on stdout.
    write_failure = _write_failure(
        args.output,
        lambda: inspector.save(
            "markdown", args.output, overwrite=args.overwrite, on_keys_removed=keys_removed
        ),
    )
    session_failure = _write_failure(args.save_session, lambda: _save_session(args, inspector))
    if goose_db is not None and session_failure is None:
        session_failure = _add_to_goose_db(goose_db, inspector)
    if args.json:
        from goose_tui.cli.reports import CompactOutput

        first = result.first_request_tokens
        fit = spec.request_fit(session, first) if first is not None else None
        print_json(CompactOutput.of(result, args.goose_profile, fit))
    elif args.output is None or write_failure is not None:
        if result.extraction.fallback:
            print(
                f"goose-tui: raw-text fallback: {result.extraction.fallback_reason}",
                file=sys.stderr,
            )
        sys.stdout.write(summary_file_text(result.summary))  # as -o would have written it
    if write_failure is not None:
        where = "in the JSON on stdout" if args.json else "printed on stdout instead"
        raise CliError(f"{write_failure}; the summary is {where}", EXIT_FAILED)
    if session_failure is not None:
        where = (
            "in the JSON on stdout"
            if args.json
            else f"in {args.output}"
            if args.output is not None
            else "printed on stdout"
        )
        raise CliError(f"{session_failure}; the summary is {where}", EXIT_FAILED)
    return 0


def _write_failure(target: Path | None, write: Callable[[], object]) -> str | None:
    """Why writing ``target`` failed after the checks (a file made meanwhile, a folder made
    read-only), or None: written, or no such option."""
    from goose_tui.files import OverwriteRefused, write_error

    if target is None:
        return None
    try:
        write()
    except OverwriteRefused as exc:
        return str(exc)
    except OSError as exc:
        return write_error(target, exc)
    return None


def compacting_inspector(
    args: argparse.Namespace, session: Session, choice: ModelSpec | CliError
) -> tuple[Inspector, Summarizer]:
    """The Inspector a compaction of ``session`` runs in, with the templates (loaded strictly)
    and the model chosen (``--model session`` now known), and the model's summarizer."""
    templates = load_templates_arg(args.prompts_dir)
    spec = usable(session_model_arg(args, session, choice))
    summarizer = summarizer_of(spec)
    return _inspector(args, session, templates, spec), summarizer


def _inspector(
    args: argparse.Namespace, session: Session, templates: Templates, model: ModelSpec | None = None
) -> Inspector:
    """One Inspector, as the app holds it, on the CLI's session, templates (loaded strictly),
    Goose profile and focus."""
    from goose_tui.inspector import Inspector

    inspector = Inspector(
        model=model,
        prompts_dir=args.prompts_dir,
        goose_profile=args.goose_profile,
        templates=templates,
    )
    inspector.load(session)
    inspector.set_focus(args.focus or "")
    return inspector


def _session_kind(args: argparse.Namespace) -> SaveKind:
    from goose_tui.saving import SESSION_KINDS
    from goose_tui.session.writer import format_for

    return SESSION_KINDS[format_for(args.save_session, args.save_format)]


def _save_options(args: argparse.Namespace) -> dict[str, Any]:
    """--overwrite, and the files a --save-session must not replace besides the inspector's
    inputs: the session as named and the summary file of -o."""
    return {"overwrite": args.overwrite, "keep": [args.session, args.output]}


def _check_save_target(args: argparse.Namespace, inspector: Inspector) -> None:
    """Before the model is called: a target that will be refused fails at once (exit 2)."""
    from goose_tui.files import OverwriteRefused

    try:
        inspector.check_save(_session_kind(args), args.save_session, **_save_options(args))
    except OverwriteRefused as exc:
        raise CliError(str(exc), EXIT_UNUSABLE) from exc


def _save_session(args: argparse.Namespace, inspector: Inspector) -> None:
    """Raises ``OverwriteRefused`` (a target refused at the last check) or ``OSError``."""
    kind = _session_kind(args)
    written = inspector.save(
        kind, args.save_session, **_save_options(args), on_keys_removed=keys_removed
    )
    print(f"goose-tui: saved the compacted session to {written}", file=sys.stderr)
    for note in inspector.session_save_notes(kind):
        print(f"goose-tui: warning: {note}", file=sys.stderr)


def _check_goose_db(args: argparse.Namespace) -> Path | None:
    """--add-to-goose-db's database, checked before the model is called (exit 2)."""
    from goose_tui.session.goose_db import GooseDbRefused, check_db, default_goose_db

    if args.add_to_goose_db is None:
        return None
    db = Path(args.add_to_goose_db).expanduser() if args.add_to_goose_db else default_goose_db()
    if db is None:
        raise CliError(
            "--add-to-goose-db: no Goose sessions.db found in Goose's data folders; name it",
            EXIT_UNUSABLE,
        )
    try:
        check_db(db)
    except GooseDbRefused as exc:
        raise CliError(str(exc), EXIT_UNUSABLE) from exc
    return db


def _add_to_goose_db(db: Path, inspector: Inspector) -> str | None:
    """Add the compacted session to ``db``; what failed, or None."""
    from goose_tui.session.goose_db import GooseDbRefused

    try:
        added = inspector.add_to_goose_db(db)
    except GooseDbRefused as exc:
        return str(exc)
    print(f"goose-tui: backed up {db} to {added.backup}", file=sys.stderr)
    print(
        f"goose-tui: added session {added.session_id} ({added.message_count} messages) to {db}",
        file=sys.stderr,
    )
    for note in added.notes:
        print(f"goose-tui: warning: {note}", file=sys.stderr)
    print(f"goose-tui: continue it with: {added.resume_command}", file=sys.stderr)
    return None
