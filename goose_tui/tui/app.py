"""The goose-tui inspector app: opens a session (or a picker), holds the options, the active
templates and model, and turns worker errors into one error modal."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from rich.console import RenderableType
from textual import on, work
from textual.actions import ActionParseResult
from textual.app import App
from textual.binding import Binding, Keymap
from textual.dom import DOMNode
from textual.notifications import SeverityLevel

from goose_tui.compaction.profiles import DEFAULT_PROFILE, DESCRIPTIONS, GooseProfile
from goose_tui.compaction.summarize import CompactionFailed
from goose_tui.compaction.templates import (
    COMPACTION,
    TemplateError,
    TemplateName,
    Templates,
    load_template,
)
from goose_tui.dirs import goose_dir
from goose_tui.files import (
    OverwriteRefused,
    atomic_write_text,
    check_writable,
    keys_removed_note,
    write_error,
)
from goose_tui.inert import inert
from goose_tui.inspector import Inspector, broken_override_message
from goose_tui.llm.spec import OFFLINE, REPLAY_PREFIX, SESSION_MODEL, ModelSpec
from goose_tui.samples import bundled_sample
from goose_tui.saving import SaveKind
from goose_tui.session.models import SessionInfo
from goose_tui.settings import SettingsProblems, config_path, did_you_mean, save_theme
from goose_tui.tui.commands import Commands
from goose_tui.tui.messages import (
    AuditCompaction,
    ConfirmRequested,
    GooseProfileRequested,
    ModelChoiceRequested,
    PaneDrawn,
    SaveRequested,
    ShowMessage,
    TemplateEditRequested,
    TemplateOriginsChanged,
    WorkerErrorsUp,
    WorkerFailed,
)
from goose_tui.tui.screens.confirm import confirm_then
from goose_tui.tui.screens.error_modal import ErrorModal
from goose_tui.tui.screens.help import HelpScreen
from goose_tui.tui.screens.input_prompt import InputPrompt
from goose_tui.tui.screens.main import MainScreen
from goose_tui.tui.screens.save_dialog import SaveDialog
from goose_tui.tui.screens.session_picker import SessionPicker, lists_sessions
from goose_tui.tui.screens.template_editor import TemplateEditor, read_override
from goose_tui.tui.widgets.compaction_status import OPEN_BINDING, compact_key, no_session_hint

POLL_SECONDS = 1.0
# How long the settings' problems stay up (they are on stderr too once the app ends).
SETTINGS_TOAST_SECONDS = 30.0

# The error modal's title for a failed worker, by worker group.
FAILED_TITLES = {
    "load": "Could not open the session",
    "compact": "Compaction failed",
    "compare": "Compaction failed",  # the same modal as a failed compaction on the inspector
    "retention": "Retention check failed",
    "probes": "Probes failed",
    "context": "Counting failed",
    "projection": "Counting failed",
    "prompt-count": "Counting failed",
    "timeline": "Timeline failed",
    "goose-db": "Not added to Goose",
}


def settings_title(ignored: int) -> str:
    """The settings toast's title: only what its ``ignored`` lines name is ignored, not the
    whole file (unless a line says so)."""
    if ignored == 0:
        return "settings"
    if ignored == 1:
        return "settings: only this is ignored"
    return f"settings: only these {ignored} are ignored"


def describe_error(error: BaseException | None) -> str:
    """A worker's error for the modal: its message (with its type only for a bug of ours,
    ``failure_text``), and for a compaction that gave up, every attempt of the ladder."""
    from goose_tui.analysis.failures import failure_text  # only when something failed

    text = failure_text(error) if error is not None else "unknown error"
    if isinstance(error, CompactionFailed):
        tried = "\n".join(
            f"  {a.removed_percent:>3}% removed ({a.removed_messages} messages): {a.outcome}"
            + (f" — {a.error}" if a.error else "")
            for a in error.attempts
        )
        text += f"\n\nattempts:\n{tried}"
    return text


def user_override_dir(prompts_dir: Path | None) -> Path:
    """Where the app saves an override: --prompts-dir, else the prompts folder of Goose's
    config folder (the one Goose reads)."""
    if prompts_dir is not None:
        return prompts_dir
    return goose_dir("config") / "prompts"


class GooseTUI(WorkerErrorsUp, App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "goose-tui"
    COMMANDS = {Commands}
    # A maximised pane keeps the footer: it says what the keys do there (escape, `f`).
    ALLOW_IN_MAXIMIZED_VIEW = "GooseFooter"
    BINDINGS = [
        Binding("question_mark", "help", "Help", id="app.help"),
        Binding("f1", "help", "Help", id="app.help_f1", show=False),
        Binding("q", "quit", "Quit", id="app.quit"),
        OPEN_BINDING,
        Binding("W", "save_last_copy", "Save last copy", id="app.save_copy", show=False),
    ]

    def __init__(
        self,
        session_path: Path | None = None,
        *,
        session_id: str | None = None,
        all_sessions: bool = False,
        model: str = "offline",
        api_base: str | None = None,
        timeout: float | None = None,
        prompts_dir: Path | None = None,
        threshold: float | None = None,
        context_limit: int | None = None,
        clock: Callable[[], float] = time.monotonic,
        theme: str | None = None,
        keymap: dict[str, str] | None = None,
        goose_profile: GooseProfile = DEFAULT_PROFILE,
        settings_problems: SettingsProblems | None = None,
    ) -> None:
        super().__init__()
        self.exiting = False  # keys queued behind ``q`` start nothing
        self.keymap: dict[str, str] = {}
        # From the settings file (goose_tui/settings.py): user keymaps by binding id, and the
        # theme; a theme picked later is saved back there. What was wrong with the file is
        # shown once the app is up (before it, the app's screen would cover it).
        self.settings_problems = settings_problems or SettingsProblems()
        if keymap:
            from goose_tui.tui.keymap import checked_keymap, unknown_ids_problem

            keymap, keys_problem = checked_keymap(keymap)
            self.set_keymap(keymap)
            problems = (keys_problem, unknown_ids_problem(keymap))
            self.settings_problems += SettingsProblems(tuple(p for p in problems if p))
        self._initial_theme = theme
        self._save_theme = False
        self.session_path = session_path
        self.session_id = session_id
        # The picker lists what `goose session list` shows unless this is set.
        self.all_sessions = all_sessions
        # The app calls litellm from a worker process, at a priority below the app's.
        from goose_tui.llm import litellm_worker

        litellm_worker.niceness = litellm_worker.WORKER_NICENESS
        # --model session: each session opened is compacted with its own recorded model,
        # until another model is chosen.
        self._session_model = model == SESSION_MODEL
        if self._session_model:
            model = OFFLINE
        # The inspector's state; a broken override falls back (the app warns on mount).
        self._inspector = Inspector(
            model=ModelSpec.parse(
                model, api_base=api_base, in_worker_process=True, timeout=timeout
            ),
            prompts_dir=prompts_dir,
            goose_profile=goose_profile,
            threshold=threshold,
            context_limit=context_limit,
        )
        self._mtimes = self._inspector.template_mtimes()
        self._watch_stop = threading.Event()
        # An edit in the app not saved yet: the override file's bytes when it was read.
        self._edit_bases: dict[TemplateName, bytes | None] = {}
        # ``clock`` is injectable so snapshots show a fixed elapsed time.
        self.main = MainScreen(self._inspector, clock)

    @property
    def inspector(self) -> Inspector:
        return self._inspector

    @property
    def editors(self) -> list[TemplateEditor]:
        """The template editors open (one per template at most, under other screens too)."""
        return [screen for screen in self.screen_stack if isinstance(screen, TemplateEditor)]

    # -- opening ---------------------------------------------------------------------------

    def on_mount(self) -> None:
        from goose_tui.token_worker import counting_in_worker

        # Every count while the app runs is made in the token worker process, so building
        # the encoder never holds up the screen.
        self._held = contextlib.ExitStack()
        self._held.enter_context(counting_in_worker())
        # SIGTERM and SIGHUP end the app as `q` does: workers end, saves finish or clean up.
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGHUP):
            loop.add_signal_handler(sig, self.exit)
            self._held.callback(loop.remove_signal_handler, sig)
        if self._initial_theme in self.available_themes:
            self.theme = self._initial_theme
        elif self._initial_theme:
            named = did_you_mean(self._initial_theme, self.available_themes)
            self.settings_problems += SettingsProblems((f"no theme named {named}",))
        ignored, notes = self.settings_problems.ignored, self.settings_problems.notes
        if ignored or notes:
            # One toast for all of them (several stacked off a small screen), up long enough
            # to read, and on stderr when the app ends. The file's ignored lines stand under
            # its name and a note on the environment or an option below them, so the title's
            # count reads as the file's.
            block = [f"in {config_path()}:", *(f"• {line}" for line in ignored)] if ignored else []
            self.notify(
                "\n\n".join(part for part in ("\n".join(block), "\n".join(notes)) if part),
                title=settings_title(len(ignored)),
                severity="warning",
                timeout=SETTINGS_TOAST_SECONDS,
                markup=False,
            )
        self._save_theme = True
        self.push_screen(self.main)
        # A litellm model: its import (seconds) starts in the background after the first
        # frame, so `c` does not wait for all of it and the screen never freezes on it.
        self.call_after_refresh(self._prepare_model)
        self._warn_templates(
            [broken_override_message(w, kept=False) for w in self.inspector.templates.warnings]
        )
        self.watch_templates()
        path = self.session_path
        if path is None:
            sample = bundled_sample()
            path = sample if sample.is_file() else None
        if path is None or path.is_dir() or (path.suffix == ".db" and self.session_id is None):
            self.list_sessions(path)
        else:
            self.load_session(path, self.session_id)

    def on_unmount(self) -> None:
        from goose_tui.gc_pause import give_back

        give_back()  # what the loads kept out of the collector goes with the app
        self._watch_stop.set()
        self._held.close()

    def watch_theme(self, theme: str) -> None:
        """Keep the theme the user picked for next time (settings file, atomically)."""
        if not self._save_theme:
            return
        path = config_path()
        try:
            save_theme(theme, path)
        except OSError as exc:
            self.notify(
                f"theme not saved: {write_error(path, exc)}", severity="warning", markup=False
            )

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def list_sessions(self, path: Path | None, *, with_recent: bool = False) -> None:
        from goose_tui.recent import load_recent
        from goose_tui.session.loader import SessionLoadError, default_sessions_dir, list_sessions

        source = str(path or default_sessions_dir())
        unreadable: list[str] = []
        recent = load_recent() if with_recent else None
        try:
            sessions = list_sessions(path, all_sessions=self.all_sessions, unreadable=unreadable)
        except SessionLoadError:
            if recent is None:
                raise
            sessions = []  # no Goose data dir here: the recent ones still help
        self.call_from_thread(self._pick, sessions, source, recent, unreadable)

    def action_open_session(self) -> None:
        """The picker again (without restarting): recent sessions first, then the folder or
        database the app was started on, else Goose's data dir."""
        path = self.session_path
        source = path if path is not None and lists_sessions(path) else None
        self.list_sessions(source, with_recent=True)

    def _pick(
        self,
        sessions: list[SessionInfo],
        source: str,
        recent: list[SessionInfo] | None = None,
        unreadable: Sequence[str] = (),
    ) -> None:
        if unreadable:  # left out of the picker, never silently
            noun = "file" if len(unreadable) == 1 else "files"
            self.notify(
                f"left out {len(unreadable):,} session {noun} that cannot be read "
                f"(first: {unreadable[0]})",
                severity="warning",
                markup=False,
            )

        def chosen(info: SessionInfo | Path | None) -> None:
            if info is None:
                if self.inspector.session is None:
                    self.exit()
                return
            if isinstance(info, Path):  # typed into the picker
                if lists_sessions(info):
                    self.list_sessions(info)
                    return
                path, session_id = info, None
            else:
                path, session_id = info.path, info.id if info.path.suffix == ".db" else None
            # Opening a session drops the last one's summary: an unsaved edit of it is asked
            # about first, as `c` and `q` do.
            lost = self.inspector.unsaved_summary_edits()
            if not lost:
                self.load_session(path, session_id)
                return
            question = f"Opening {path.name} drops {' and '.join(lost)} (s saves it). Open it?"
            confirm_then(self, question, lambda: self.load_session(path, session_id))

        picker = SessionPicker(sessions, source, recent=recent or [], with_type=self.all_sessions)
        self.push_screen(picker, chosen)

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def load_session(self, path: Path, session_id: str | None) -> None:
        from goose_tui.gc_pause import kept_out_of_collections
        from goose_tui.recent import remember
        from goose_tui.session.loader import load_session

        with kept_out_of_collections():  # see there: no full-heap pauses after loading
            session = load_session(path, session_id, all_sessions=self.all_sessions)
        remember(path, session_id, session.title, len(session.messages), session.model_name)
        self.call_from_thread(self.main.show_session, session)
        if self._session_model:
            self.call_from_thread(self.use_session_model)

    @on(WorkerFailed)
    def _worker_failed(self, message: WorkerFailed) -> None:
        """The one place a worker's error (of any screen or widget) becomes the error
        modal: every node that runs workers passes its errors up (WorkerErrorsUp)."""
        worker = message.worker
        title = FAILED_TITLES.get(worker.group, f"{worker.group} failed")
        # A session that cannot be opened says why in one line; the rest say what failed.
        text = f"{worker.error}" if worker.group == "load" else describe_error(worker.error)
        if worker.group == "load":
            self.main.show_no_session()
        self.show_error(title, text)

    # -- what the screens and the palette ask for (messages up) ------------------------------

    @on(SaveRequested)
    def _save_requested(self, message: SaveRequested) -> None:
        self.ask_save(message.kind)

    @on(ConfirmRequested)
    def _confirm_requested(self, message: ConfirmRequested) -> None:
        confirm_then(self, message.question, message.action)

    @on(TemplateEditRequested)
    def _template_edit_requested(self, message: TemplateEditRequested) -> None:
        if message.external:
            self.edit_template_externally(message.name)
        else:
            self.edit_template(message.name)

    @on(PaneDrawn)
    def _pane_drawn(self, message: PaneDrawn) -> None:
        for editor in self.editors:
            if editor.pane == message.pane:
                editor.show_preview(message.text, message.placeholder)

    @on(TemplateOriginsChanged)
    def _template_origins_changed(self, message: TemplateOriginsChanged) -> None:
        for editor in self.editors:
            compaction = editor.template.source.name == COMPACTION
            editor.source = message.compaction if compaction else message.summary

    @on(GooseProfileRequested)
    def _profile_requested(self, message: GooseProfileRequested) -> None:
        self.set_goose_profile(message.profile)

    @on(ModelChoiceRequested)
    def _model_choice_requested(self, message: ModelChoiceRequested) -> None:
        if message.kind == "session":
            self.use_session_model()
        elif message.kind == "offline":
            self.set_model("offline")
        elif message.kind == "replay":
            self.ask_model(InputPrompt("Reply file to replay:"), REPLAY_PREFIX)
        else:
            note = "Keys are read from the environment by litellm; --api-base applies."
            model = self.inspector.model.name
            self.ask_model(InputPrompt("litellm model string:", model, note=note))

    @on(AuditCompaction)
    def _audit_compaction(self, message: AuditCompaction) -> None:
        self.main.audit_compaction(message.number)

    @on(ShowMessage)
    def _show_message(self, message: ShowMessage) -> None:
        self.show_message(message.index, message.highlight)

    # -- errors and toasts -----------------------------------------------------------------

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every toast of the app (widgets' ``notify`` lands here): never markup, and made
        inert, since toasts carry file names, paths and error text."""
        super().notify(
            inert(message), title=inert(title), severity=severity, timeout=timeout, markup=False
        )

    def show_error(self, title: str, message: str) -> None:
        """The single place errors surface; the app keeps running under the modal."""
        self.push_screen(ErrorModal(title, message))

    # -- model ----------------------------------------------------------------------------

    def _prepare_model(self) -> None:
        self.inspector.model.prepare()

    def use_session_model(self) -> None:
        """The provider and model the open session recorded, as the summarizer; a session
        without one (or one litellm cannot call) keeps the current model and says why."""
        from goose_tui.llm.spec import session_model

        session = self.inspector.session
        if session is None:
            self.notify(no_session_hint(self))
            return
        try:
            text = session_model(session.provider_name, session.model_name)
        except ValueError as exc:
            self.notify(f"{exc} (the model stays {self.inspector.model.name})", severity="warning")
            return
        self.set_model(text)
        self._session_model = True

    def set_model(self, model: str | ModelSpec) -> None:
        """Switch the summarizer: a ``ModelSpec``, or text as the user types it."""
        self._session_model = False
        spec = model if isinstance(model, ModelSpec) else self.inspector.model.with_text(model)
        # The app calls litellm from a worker process (goose_tui/llm/litellm_worker.py).
        spec = spec.model_copy(update={"in_worker_process": True})
        self.inspector.set_model(spec)
        self._prepare_model()
        self.main.model_name = spec.name  # the status bar; the gauge counts again
        self.notify(f"model: {spec.name}")

    def ask_model(self, prompt: InputPrompt, prefix: str = "") -> None:
        """Switch to the model ``prompt`` is answered with (after ``prefix``); the api base
        is kept, as by any switch."""

        def answered(value: str | None) -> None:
            if value:
                self.set_model(prefix + value)

        self.push_screen(prompt, answered)

    # -- templates -------------------------------------------------------------------------

    def watch_templates(self) -> None:
        """Reload the templates as soon as an override file is saved, created or removed:
        a thread waits for the system's file events (it is no worker: it never ends)."""
        from goose_tui.compaction.template_watch import template_changes

        def watch() -> None:
            try:
                for _ in template_changes(self.inspector.watched_paths(), self._watch_stop):
                    self.call_from_thread(self.poll_templates)
            except Exception as exc:  # no inotify watch left, a folder that cannot be read
                if not self._watch_stop.is_set():
                    self.call_from_thread(self._poll_templates_instead, exc)

        self._watcher = threading.Thread(target=watch, name="template-watch", daemon=True)
        self._watcher.start()

    def _poll_templates_instead(self, error: Exception) -> None:
        """Where the system cannot watch files, look at their times every second."""
        self.notify(
            f"cannot watch the template folders ({error}): looking every {POLL_SECONDS:g} s "
            "instead",
            severity="warning",
            markup=False,
        )
        self.set_interval(POLL_SECONDS, self.poll_templates)

    def poll_templates(self) -> None:
        """Reload the templates when an override file appears, changes or goes away."""
        mtimes = self.inspector.template_mtimes()
        if mtimes == self._mtimes:
            return
        self._mtimes = mtimes
        self.reload_templates()
        for editor in self.editors:
            editor.file_changed()

    def reload_templates(
        self,
        *,
        drop_edit: TemplateName | None = None,
        report: Callable[[str | None, bool], None] | None = None,
    ) -> None:
        """Load the overrides again (``Inspector.reload_templates``; ``drop_edit``: the
        template edited in the app goes back to its file): warn of the broken ones, swap in
        what changed; the banner says when a broken one keeps its last good text, or the
        built-in itself cannot be read. ``report`` as for ``swap_templates``."""
        inspector = self.inspector
        try:
            reload = inspector.reload_templates(drop_edit=drop_edit)
        except TemplateError as exc:
            self.main.notice = inspector.notice
            if report is not None:
                report(str(exc), True)
            return
        self._warn_templates(reload.warnings)
        if not inspector.same_templates(reload.templates):
            self.swap_templates(reload.templates, report)
        else:
            self.main.template_origins = self.inspector.template_origins()
            if report is not None:
                report(None, True)
        self.main.notice = inspector.notice

    def _warn_templates(self, warnings: list[str]) -> None:
        for warning in warnings:
            self.notify(
                warning,
                title="template override broken",
                severity="warning",
                timeout=10,
                markup=False,
            )

    @work(exclusive=True, group="render-templates", exit_on_error=False)
    async def swap_templates(
        self, templates: Templates, report: Callable[[str | None, bool], None] | None = None
    ) -> None:
        """Use ``templates`` if they compile and the summary renders with them (rendered off
        the UI thread, and a newer change cancels this one); else keep the last good pair.
        ``report`` gets the error (file and line) or None, and whether the session's summary
        was what rendered (False: there is none to render, and an empty one was)."""
        swap = await self.inspector.set_templates(templates)
        if swap.error is None:
            self.main.templates = self.inspector.templates  # the panes draw what changed
        else:
            self.main.notice = self.inspector.notice
        if report is not None:
            report(swap.error, swap.with_summary)

    def edit_template(self, name: TemplateName) -> None:
        """The editor on the override file as it is on disk now (or, when there is none, the
        template in use, to save as one); an edit in the app not saved yet opens as it was
        left, against the file as it was read then."""
        inspector = self.inspector
        target = user_override_dir(inspector.prompts_dir) / name
        current = inspector.templates.get(name)
        on_disk = read_override(target)
        try:
            text_on_disk = on_disk.decode("utf-8") if on_disk is not None else None
        except UnicodeDecodeError:
            text_on_disk = None
        if text_on_disk is None:
            try:
                text_on_disk = load_template(name, inspector.prompts_dir, fallback=True)[0].text
            except TemplateError:
                text_on_disk = current.text
        if current.source.origin == "edited":
            text, found = current.text, self._edit_bases.get(name, on_disk)
        else:
            text, found = text_on_disk, on_disk
            self._edit_bases[name] = on_disk

        def apply(text: str, report: Callable[[str | None, bool], None]) -> None:
            self.swap_templates(self.inspector.templates.with_text(name, text), report)

        def use_file(report: Callable[[str | None, bool], None] | None = None) -> None:
            self.use_template_file(name, report)

        self.push_screen(
            TemplateEditor(
                current,
                text=text,
                file_text=text_on_disk,
                found=found,
                described=inspector.describe_template(name),
                problem=inspector.template_problem(name),
                override_path=target,
                apply_edit=apply,
                use_file=use_file,
                goose_reads=target.parent == user_override_dir(None),
                preview=inspector.prompt.text if name == COMPACTION else inspector.summary.text,
                # What the input pane says while it has no prompt (building it, or why not).
                preview_placeholder="no session open"
                if inspector.session is None
                else str(self.main.prompt_pane.viewer.placeholder),
            )
        )

    def use_template_file(
        self, name: TemplateName, report: Callable[[str | None, bool], None] | None = None
    ) -> None:
        """The edit of ``name`` made in the app goes: its file (or the next template in line)
        is the template in use again. ``report`` as for ``swap_templates``."""
        self._edit_bases.pop(name, None)
        self._mtimes = self.inspector.template_mtimes()
        self.reload_templates(drop_edit=name, report=report)

    def edit_template_externally(self, name: TemplateName) -> None:
        """The override file in the user's editor ($VISUAL, $EDITOR, else vi), the app
        suspended meanwhile; the templates are read again when it exits. A file that does not
        exist yet is made from the template in use first, after asking; an edit made in the
        app and not saved is not dropped without asking."""
        inspector = self.inspector
        target = user_override_dir(inspector.prompts_dir) / name
        current = inspector.templates.get(name)

        def run() -> None:
            if not target.exists():
                try:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    atomic_write_text(target, current.text, replace=False)
                except (OSError, OverwriteRefused) as exc:
                    self.show_error("Not created", write_error(target, exc))
                    return
            self._run_editor(target)
            self.use_template_file(name)
            for editor in self.editors:
                if editor.template.source.name == name and editor.override_path == target:
                    editor.load_file(use=False)  # the file is the template in use now
                else:
                    editor.file_changed()

        questions = []
        if current.source.origin == "edited" or any(
            s.template.source.name == name and s.unapplied() for s in self.editors
        ):
            questions.append(f"The edit of {name} made in the app (not saved) is dropped.")
        if not target.exists():
            goose = " (Goose reads it too)" if target.parent == user_override_dir(None) else ""
            questions.append(
                f"{target} does not exist: it is made from the template in use{goose}."
            )
        if questions:
            confirm_then(self, " ".join(questions) + " Open it in your editor?", run)
        else:
            run()

    def _run_editor(self, path: Path) -> None:
        """Run the user's editor on ``path`` with the terminal handed over to it."""
        import shlex
        import subprocess

        from textual.app import SuspendNotSupported

        command = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        try:
            argv = [*shlex.split(command), str(path)]
        except ValueError as exc:
            self.notify(f"cannot read $EDITOR {command!r}: {exc}", severity="error")
            return

        def edit() -> int:
            try:
                return subprocess.run(argv, check=False).returncode
            except OSError as exc:
                self.notify(f"cannot run {argv[0]!r}: {exc}", severity="error")
                return -1

        try:
            with self.suspend():
                code = edit()
        except SuspendNotSupported:  # no terminal of ours to hand over (headless, web)
            code = edit()
        if code > 0:
            self.notify(f"{argv[0]} exited with status {code}", severity="warning")

    # -- saving ----------------------------------------------------------------------------

    def ask_save(self, kind: SaveKind = "json") -> None:
        """The save dialog, with ``kind`` chosen (the report key chooses "report")."""
        inspector = self.inspector
        session = inspector.session
        if session is None:
            self.notify(no_session_hint(self))
            return
        if not inspector.has_summary():
            if self.main.compacting:
                self.notify(
                    "no summary yet: a compaction is running (wait for it, or escape cancels it)"
                )
                return
            key = compact_key(self)
            self.notify(f"no summary yet: press {key} to compact (or type one in the JSON editor)")
            return
        if inspector.json_state == "invalid":  # the editor's text is not what would be saved
            confirm_then(
                self,
                "The summary JSON in the editor does not parse, so it cannot be saved. Save "
                "the last good summary without that edit? (The edit stays in the editor, "
                "unsaved.)",
                lambda: self._ask_save_target(kind),
            )
            return
        self._ask_save_target(kind)

    def _ask_save_target(self, initial: SaveKind) -> None:
        from goose_tui import saving

        inspector = self.inspector
        session = inspector.session
        assert session is not None
        last_good = inspector.json_state == "invalid"

        def answered(choice: tuple[saving.SaveKind, Path] | None) -> None:
            if choice is None:
                return
            kind, target = choice
            if kind == saving.GOOSE_DB:
                self._ask_add_to_goose_db(target)
                return
            session_kind = kind in saving.SESSION_FORMATS

            def write() -> None:
                try:
                    written = inspector.save(
                        kind, checked, overwrite=exists, on_keys_removed=self._keys_removed
                    )
                except (OverwriteRefused, OSError) as exc:
                    self._not_saved(checked, exc)
                    return
                # Saved in place of a JSON edit that does not parse (asked first): say so.
                note = " (the last good summary; the JSON edit is not in it)" if last_good else ""
                files = saving.report_paths(written) if kind == "report" else (written,)
                self.notify(f"saved {' and '.join(map(str, files))}{note}", markup=False)
                for warning in inspector.session_save_notes(kind):
                    self.notify(warning, severity="warning", markup=False, timeout=12)

            try:
                checked = inspector.check_save(kind, target)
            except (OverwriteRefused, OSError) as exc:
                self._not_saved(target, exc)
                return
            # A compacted session replaces a file only after a yes; a summary also a link. A
            # report is two files: either one there is asked about.
            files = saving.report_paths(checked) if kind == "report" else (checked,)
            there = [p for p in files if p.exists() or (not session_kind and p.is_symlink())]
            exists = bool(there)
            if not exists:
                write()
                return
            named = " and ".join(str(p) for p in there)
            question = (
                f"{checked} exists. Replace it with the compacted session?"
                if session_kind
                else f"{named} already exists.\n\nReplace it?"
                if len(there) == 1
                else f"{named} already exist.\n\nReplace them?"
            )

            def kept() -> None:
                self.notify(f"not saved: {target} kept as it was", markup=False)

            confirm_then(self, question, write, None if session_kind else kept)

        defaults = {kind: saving.default_target(session, kind) for kind in saving.SAVE_KINDS}
        self.push_screen(SaveDialog(defaults, initial), answered)

    def _keys_removed(self, target: Path, count: int) -> None:
        self.notify(keys_removed_note(target, count), severity="warning", markup=False, timeout=12)

    def _ask_add_to_goose_db(self, db: Path) -> None:
        """Goose's database checked (read only), then asked about, then the new session added
        in a thread: a Goose writing at that moment makes it wait."""
        from goose_tui.session.goose_db import GooseDbRefused, check_db

        db = db.expanduser()
        try:
            check_db(db)
        except GooseDbRefused as exc:
            self.show_error("Not added to Goose", str(exc))
            return
        question = (
            f"Add the compacted session to {db} as a new session?\n\nThe database is backed "
            "up next to it first; no existing session is changed. It is the one write "
            "goose-tui makes to Goose's data."
        )
        confirm_then(self, question, lambda: self.add_to_goose_db(db))

    @work(thread=True, exclusive=True, group="goose-db", exit_on_error=False)
    def add_to_goose_db(self, db: Path) -> None:
        from goose_tui.session.goose_db import GooseDbRefused

        try:
            added = self.inspector.add_to_goose_db(db)
        except GooseDbRefused as exc:
            self.call_from_thread(self.show_error, "Not added to Goose", str(exc))
            return
        from goose_tui.tui.screens.goose_db_added import GooseDbAdded

        self.call_from_thread(self.push_screen, GooseDbAdded(db, added))

    def _not_saved(self, target: Path, exc: Exception) -> None:
        # A refusal names its path; an OSError may name only the temporary file, and says
        # "[Errno N]": it is said as the CLI says it.
        self.show_error(
            "Not saved", write_error(target, exc) if isinstance(exc, OSError) else str(exc)
        )

    def action_save_last_copy(self) -> None:
        """Write the last copied text to a file (when the clipboard could not be reached)."""

        text = getattr(self, "last_copy", None)
        if text is None:
            self.notify("nothing copied yet")
            return

        def answered(value: str | None) -> None:
            if not value:
                return
            target = Path(value).expanduser()

            def write() -> None:
                try:
                    # Not over a file made since the question (or since no question).
                    written = self.inspector.save_text(
                        target, text, replace=exists, on_keys_removed=self._keys_removed
                    )
                except (OverwriteRefused, OSError) as exc:
                    self._not_saved(target, exc)
                    return
                self.notify(f"saved the copy to {written}", markup=False)

            # Refused before asking: "Replace it?" then "refusing" asked for nothing.
            try:
                check_writable(target, self.inspector.input_files())
            except OverwriteRefused as exc:
                self.show_error("Not saved", str(exc))
                return
            exists = target.exists() or target.is_symlink()
            if exists:
                confirm_then(self, f"{target} already exists.\n\nReplace it?", write)
            else:
                write()

        default = str(Path.cwd() / "goose-tui-copy.txt")
        self.push_screen(InputPrompt("Save the last copy to:", default), answered)

    def set_goose_profile(self, profile: GooseProfile) -> None:
        self.inspector.set_profile(profile)
        self.notify(f"Goose format: {profile} ({DESCRIPTIONS[profile]})", timeout=4)
        self.main.profile = profile  # the status bar; the input pane is built again

    def show_message(self, index: int, highlight: Sequence[int] = ()) -> None:
        """Back to the inspector (from an analysis screen) with message ``index`` selected."""
        while self.screen is not self.main and len(self.screen_stack) > 1:
            self.pop_screen()
        self.main.select_message(index, list(highlight))

    def unsaved_edits(self) -> list[str]:
        edits = self.inspector.unsaved_edits()
        for editor in self.editors:
            if editor.unapplied():
                edits.append(f"the edit of {editor.template.source.name} that does not render")
        return edits

    async def run_action(
        self,
        action: str | ActionParseResult,
        default_namespace: DOMNode | None = None,
        namespaces: Mapping[str, DOMNode] | None = None,
    ) -> bool:
        """Every key binding goes through here: once the app is exiting, keys queued behind
        ``q`` (a paste, fast typing) start nothing; a screen pushed then failed to mount and
        printed a traceback on the way out."""
        if self.exiting:
            return False
        return await super().run_action(action, default_namespace, namespaces)

    def exit(
        self,
        result: None = None,
        return_code: int = 0,
        message: RenderableType | None = None,
    ) -> None:
        self.exiting = True
        super().exit(result, return_code, message)

    def set_keymap(self, keymap: Keymap) -> None:
        self.keymap = dict(keymap)  # the keys hints name (goose_footer.bound_key)
        super().set_keymap(keymap)

    async def action_quit(self) -> None:
        """``q`` (and ctrl+q): asks first when a hand edit would be lost."""
        edits = self.unsaved_edits()
        if not edits:
            self.exit()
            return
        confirm_then(self, "Quit without saving " + " and ".join(edits) + "?", self.exit)

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))


class NoTerminal(Exception):
    """The app was asked for without a terminal to draw on and read keys from."""


def has_terminal() -> bool:
    """Textual draws to stdout and reads keys from stdin: redirected, it would draw escape
    codes into a file and wait for keys at the end of stdin, spinning."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def run_app(app: GooseTUI) -> int:
    """Run ``app`` until it ends; its return code: 1 when an error ended it (Textual printed
    the traceback), else 0. Without a terminal, NoTerminal."""
    if not has_terminal():
        raise NoTerminal(
            "the app needs a terminal (stdin and stdout); the commands work without one:"
            " goose-tui --help lists them"
        )
    app.run()
    app.settings_problems.print()  # the toast is gone with the app's screen
    return app.return_code or 0


if __name__ == "__main__":
    sys.exit(run_app(GooseTUI(Path(sys.argv[1]) if len(sys.argv) > 1 else None)))
