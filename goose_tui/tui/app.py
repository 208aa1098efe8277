"""The goose-tui inspector app: opens a session (or a picker), holds the options, the active
templates and model, and turns worker errors into one error modal."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from textual import work
from textual.app import App
from textual.binding import Binding
from textual.notifications import SeverityLevel

from goose_tui.compaction.profiles import DEFAULT_PROFILE, DESCRIPTIONS, GooseProfile
from goose_tui.compaction.templates import (
    Template,
    TemplateError,
    TemplateName,
    Templates,
    load_templates,
    override_dirs,
)
from goose_tui.files import OverwriteRefused
from goose_tui.inert import inert
from goose_tui.llm.base import Summarizer
from goose_tui.samples import bundled_sample
from goose_tui.session.models import SessionInfo
from goose_tui.session.writer import SaveFormat
from goose_tui.tui.commands import ActionCommands, ModelCommands
from goose_tui.tui.screens.confirm import ConfirmScreen
from goose_tui.tui.screens.error_modal import ErrorModal
from goose_tui.tui.screens.help import HelpScreen
from goose_tui.tui.screens.input_prompt import InputPrompt
from goose_tui.tui.screens.main import MainScreen
from goose_tui.tui.screens.save_dialog import SaveDialog
from goose_tui.tui.screens.session_picker import SessionPicker
from goose_tui.tui.screens.template_editor import TemplateEditor

POLL_SECONDS = 1.0
TEMPLATE_NAMES: tuple[TemplateName, ...] = ("compaction.md", "compaction_summary.md")


def user_override_dir(prompts_dir: Path | None) -> Path:
    """Where the app saves an override: --prompts-dir, else Goose's user config prompts."""
    if prompts_dir is not None:
        return prompts_dir
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "goose" / "prompts"


class GooseTUI(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "goose-tui"
    COMMANDS = App.COMMANDS | {ActionCommands, ModelCommands}
    BINDINGS = [
        Binding("question_mark", "help", "Help", id="app.help"),
        Binding("f1", "help", "Help", id="app.help_f1", show=False),
        Binding("q", "quit", "Quit", id="app.quit"),
        Binding("o", "open_session", "Open session", id="app.open", show=False),
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
        prompts_dir: Path | None = None,
        threshold: float | None = None,
        context_limit: int | None = None,
        clock: Callable[[], float] = time.monotonic,
        theme: str | None = None,
        keymap: dict[str, str] | None = None,
        goose_profile: GooseProfile = DEFAULT_PROFILE,
    ) -> None:
        super().__init__()
        self.goose_profile: GooseProfile = goose_profile
        # From the settings file (goose_tui/settings.py): user keymaps by binding id, and the
        # theme; a theme picked later is saved back there.
        if keymap:
            self.set_keymap(keymap)
        self._initial_theme = theme
        self._save_theme = False
        self.session_path = session_path
        self.session_id = session_id
        # The picker lists what `goose session list` shows unless this is set.
        self.all_sessions = all_sessions
        self.model = model
        self.api_base = api_base
        self.prompts_dir = prompts_dir
        self.threshold = threshold
        self.context_limit = context_limit
        self.clock = clock  # injectable so snapshots show a fixed elapsed time
        # A broken override must not stop the app: it falls back (and warns on mount).
        self.templates: Templates = load_templates(prompts_dir, fallback=True)
        # Template name -> (broken override, "path:line") for the pane borders.
        self.broken_templates: dict[TemplateName, tuple[Path, str]] = self._broken(self.templates)
        self._mtimes = self._template_mtimes()
        self.main = MainScreen()

    # -- opening ---------------------------------------------------------------------------

    def on_mount(self) -> None:
        if self._initial_theme:
            if self._initial_theme in self.available_themes:
                self.theme = self._initial_theme
            else:
                self.notify(
                    f"settings: no theme named {self._initial_theme!r}",
                    severity="warning",
                    markup=False,
                )
        self._save_theme = True
        self.push_screen(self.main)
        # A litellm model: its import (seconds) starts in the background after the first
        # frame, so `c` does not wait for all of it and the screen never freezes on it.
        self.call_after_refresh(self._prepare_model)
        self._warn_templates(self.templates)
        self.set_interval(POLL_SECONDS, self.poll_templates)
        path = self.session_path
        if path is None:
            sample = bundled_sample()
            path = sample if sample.is_file() else None
        if path is None or path.is_dir() or (path.suffix == ".db" and self.session_id is None):
            self.list_sessions(path)
        else:
            self.load_session(path, self.session_id)

    def watch_theme(self, theme: str) -> None:
        """Keep the theme the user picked for next time (settings file, atomically)."""
        if not self._save_theme:
            return
        from goose_tui.settings import save_theme

        try:
            save_theme(theme)
        except OSError as exc:
            self.notify(f"theme not saved: {exc}", severity="warning", markup=False)

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def list_sessions(self, path: Path | None, *, with_recent: bool = False) -> None:
        from goose_tui.recent import load_recent
        from goose_tui.session.loader import SessionLoadError, default_sessions_dir, list_sessions

        source = str(path or default_sessions_dir())
        if with_recent:
            recent = load_recent()
            try:
                sessions = list_sessions(path, all_sessions=self.all_sessions)
            except SessionLoadError:  # no Goose data dir here: the recent ones still help
                sessions = []
            self.call_from_thread(self._pick, sessions, source, recent)
            return
        sessions = list_sessions(path, all_sessions=self.all_sessions)
        self.call_from_thread(self._pick, sessions, source)

    def action_open_session(self) -> None:
        """The picker again (without restarting): recent sessions first, then the folder or
        database the app was started on, else Goose's data dir."""
        path = self.session_path
        source = path if path is not None and (path.is_dir() or path.suffix == ".db") else None
        self.list_sessions(source, with_recent=True)

    def _pick(
        self, sessions: list[SessionInfo], source: str, recent: list[SessionInfo] | None = None
    ) -> None:
        def chosen(info: SessionInfo | None) -> None:
            if info is None:
                if self.main.session is None:
                    self.exit()
                return
            self.load_session(info.path, info.id if info.path.suffix == ".db" else None)

        self.push_screen(SessionPicker(sessions, source, recent=recent or []), chosen)

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def load_session(self, path: Path, session_id: str | None) -> None:
        from goose_tui.recent import remember
        from goose_tui.session.loader import load_session

        session = load_session(path, session_id, all_sessions=self.all_sessions)
        remember(path, session_id, session.title, len(session.messages), session.model_name)
        self.call_from_thread(self.main.show_session, session)

    def on_worker_state_changed(self, event: object) -> None:
        from textual.worker import Worker, WorkerState

        worker: Worker = event.worker  # type: ignore[attr-defined]
        if worker.group == "load" and event.state == WorkerState.ERROR:  # type: ignore[attr-defined]
            self.show_error("Could not open the session", f"{worker.error}")

    async def settled(self) -> None:
        """Return once nothing is left that would change the screen: no worker pending or
        running, every message their results posted handled by every widget of the screen,
        and the screen refreshed after that. Tests and snapshots await this instead of
        sleeping or waiting for an idle CPU, so what they see never depends on timing."""
        import asyncio

        from textual.worker import WorkerState

        busy = (WorkerState.PENDING, WorkerState.RUNNING)
        while True:
            await self.workers.wait_for_complete()
            # Handled messages can start new work (a loaded session starts the token count):
            # drain every queue, then look again.
            nodes = [self, *self.screen.walk_children(with_self=True)]
            done = [asyncio.Event() for _ in nodes]
            for node, event in zip(nodes, done, strict=True):
                if not node.call_later(event.set):
                    event.set()  # a pump that is closing has nothing left to change
            for event in done:
                await event.wait()
            drawn = asyncio.Event()
            self.screen.call_after_refresh(drawn.set)
            await drawn.wait()
            if not any(worker.state in busy for worker in self.workers):
                return

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

    # -- model -----------------------------------------------------------------------------

    @property
    def usage_model(self) -> str | None:
        """The model whose window the gauge measures: a real model string, else the
        session's own model."""
        if self.model == "offline" or self.model.startswith("replay:"):
            return None
        return self.model

    def make_summarizer(self) -> Summarizer:
        from goose_tui.llm import make_summarizer

        if self.model.startswith("replay:") and not Path(self.model[7:]).is_file():
            raise FileNotFoundError(f"{self.model[7:]}: no such reply file")
        return make_summarizer(self.model, api_base=self.api_base)

    def _prepare_model(self) -> None:
        from goose_tui.llm.spec import ModelSpec

        ModelSpec.parse(self.model).prepare()

    def set_model(self, model: str) -> None:
        self.model = model
        self._prepare_model()
        self.main.query_one("#status").model = model  # type: ignore[attr-defined]
        self.notify(f"model: {model}")
        if self.main.session is not None:
            self.main.count_tokens()

    def ask_replay_file(self) -> None:
        def answered(value: str | None) -> None:
            if value:
                self.set_model(f"replay:{Path(value).expanduser()}")

        self.push_screen(InputPrompt("Reply file to replay:"), answered)

    def ask_litellm_model(self) -> None:
        def answered(value: str | None) -> None:
            if value:
                self.set_model(value)

        note = "Keys are read from the environment by litellm; --api-base applies."
        self.push_screen(InputPrompt("litellm model string:", self.model, note=note), answered)

    # -- templates -------------------------------------------------------------------------

    def _watched_paths(self) -> list[Path]:
        paths = [
            folder / name
            for _, folder in override_dirs(self.prompts_dir)
            for name in TEMPLATE_NAMES
        ]
        return paths

    def _template_mtimes(self) -> dict[Path, float | None]:
        mtimes: dict[Path, float | None] = {}
        for path in self._watched_paths():
            try:
                mtimes[path] = path.stat().st_mtime_ns
            except OSError:
                mtimes[path] = None
        return mtimes

    def poll_templates(self) -> None:
        """Reload the templates when an override file appears, changes or goes away."""
        mtimes = self._template_mtimes()
        if mtimes == self._mtimes:
            return
        self._mtimes = mtimes
        self.reload_templates()

    def reload_templates(self) -> None:
        """Load the overrides again. One that does not compile falls back to the next source
        (the built-in at the latest) with a warning; but when the override that was in use
        breaks (a save mid-edit in $EDITOR), its last good text stays, like an edit in the app."""
        try:
            loaded = load_templates(self.prompts_dir, fallback=True)
        except TemplateError as exc:  # the built-in itself cannot be read
            self._template_error(exc)
            return
        self.broken_templates = broken = self._broken(loaded)
        self._warn_templates(loaded)
        templates, kept = loaded, False
        for name, (path, _) in broken.items():
            current = self.templates.get(name)
            if current.source.path == path:
                templates, kept = templates.with_template(current), True
        same = (templates.compaction, templates.summary) == (
            self.templates.compaction,
            self.templates.summary,
        )
        if not same:
            self._swap_templates(templates)
        else:
            self.main._show_template_origin()
        if kept:
            where = "; ".join(location for _, location in broken.values())
            self.main.query_one("#fields-banner").show(  # type: ignore[attr-defined]
                f"template error: {where} — showing the last good render", "error"
            )

    def _broken(self, templates: Templates) -> dict[TemplateName, tuple[Path, str]]:
        """Which override each fallback warning is about, and its "path:line"."""
        broken: dict[TemplateName, tuple[Path, str]] = {}
        for warning in templates.warnings:
            for path in self._watched_paths():
                prefix = str(path)
                if warning.startswith(prefix + ":") and path.name in TEMPLATE_NAMES:
                    line = warning[len(prefix) + 1 :].split(":", 1)[0]
                    location = f"{prefix}:{line}" if line.isdigit() else prefix
                    broken.setdefault(path.name, (path, location))  # type: ignore[arg-type]
        return broken

    def _warn_templates(self, templates: Templates) -> None:
        for warning in templates.warnings:
            self.notify(
                f"{warning}; using the next template in line",
                title="template override broken",
                severity="warning",
                timeout=10,
                markup=False,
            )

    def describe_template(self, name: TemplateName) -> str:
        """Which template is in use for ``name``, and any broken override it stands in for."""
        from goose_tui.inspector import describe_source

        text = describe_source(self.templates.get(name))
        if name in self.broken_templates:
            text += f" (override broken: {self.broken_templates[name][1]})"
        return text

    def _template_error(self, exc: TemplateError) -> None:
        self.main.query_one("#fields-banner").show(  # type: ignore[attr-defined]
            f"template error: {exc} — showing the last good render", "error"
        )

    def _swap_templates(
        self, templates: Templates, report: Callable[[str | None], None] | None = None
    ) -> None:
        """Use ``templates`` if they compile and the summary renders with them (rendered off
        the UI thread); else keep the last good pair. ``report`` gets the error (file and
        line) or None once that is known."""

        def done(error: str | None) -> None:
            if report is not None:
                report(error)

        try:
            templates.compaction.check()
            templates.summary.check()
        except TemplateError as exc:
            self._template_error(exc)
            done(str(exc))
            return
        self.main.try_templates(templates, done)

    def edit_template(self, name: str) -> None:
        template_name: TemplateName = (
            "compaction.md" if name == "compaction.md" else ("compaction_summary.md")
        )
        field = "compaction" if template_name == "compaction.md" else "summary"
        template: Template = getattr(self.templates, field)

        def apply(text: str, report: Callable[[str | None], None]) -> None:
            self._swap_templates(self.templates.with_text(template_name, text), report)

        def saved(_: Path) -> None:
            self._mtimes = self._template_mtimes()
            self.reload_templates()

        target = user_override_dir(self.prompts_dir) / template_name
        self.push_screen(
            TemplateEditor(template, override_path=target, apply_edit=apply, on_saved=saved)
        )

    # -- saving ----------------------------------------------------------------------------

    def ask_save(self) -> None:
        from goose_tui import saving

        main = self.main
        if main.session is None:
            self.notify("no session loaded yet")
            return
        session = main.session

        def answered(choice: tuple[saving.SaveKind, Path] | None) -> None:
            if choice is None:
                return
            kind, target = choice
            inputs = [session.source_path, *self._input_files()]
            if kind in saving.SESSION_FORMATS:
                self._save_session(target, saving.SESSION_FORMATS[kind], inputs)
                return
            if kind == "json":
                text = saving.summary_json_text(main.structured)
            else:
                text = main.summary_text + "\n"

            def write(replace: bool | None = True) -> None:
                if not replace:
                    self.notify(f"not saved: {target} kept as it was", markup=False)
                    return
                try:
                    written = saving.save(target, text, inputs)
                except (OverwriteRefused, OSError) as exc:
                    self.show_error("Not saved", str(exc))
                    return
                main.mark_saved()
                self.notify(f"saved {written}", markup=False)

            try:
                checked = saving.check_target(target, inputs)
            except (OverwriteRefused, OSError) as exc:
                self.show_error("Not saved", str(exc))
                return
            if checked.exists() or checked.is_symlink():
                question = f"{checked} already exists.\n\nReplace it?"
                self.push_screen(ConfirmScreen(question), write)
            else:
                write()

        defaults = {kind: saving.default_target(session, kind) for kind in saving.SUFFIXES}
        self.push_screen(SaveDialog(defaults), answered)

    def _save_session(self, target: Path, fmt: SaveFormat, inputs: list[Path | None]) -> None:
        """The compacted session, for Goose: refused in Goose's own folder, over an input or
        a special file; an existing file is replaced only after a yes."""
        from goose_tui.session.writer import SaveRefused, check_target, save_compacted_session

        main = self.main
        session, summary = main.session, main.summary_text
        target = target.expanduser()

        def write(overwrite: bool) -> None:
            try:
                written = save_compacted_session(
                    target, session, summary, fmt, inputs=inputs, overwrite=overwrite
                )
            except (SaveRefused, OSError) as exc:
                self.show_error("Not saved", str(exc))
                return
            main.mark_saved()
            self.notify(f"saved {written}", markup=False)

        try:
            check_target(target, inputs, overwrite=True)
        except SaveRefused as exc:
            self.show_error("Not saved", str(exc))
            return
        if target.exists():
            question = f"{target} exists. Replace it with the compacted session?"
            self.push_screen(ConfirmScreen(question), lambda yes: write(True) if yes else None)
        else:
            write(False)

    def action_save_last_copy(self) -> None:
        """Write the last copied text to a file (when the clipboard could not be reached)."""
        from goose_tui import saving

        text = getattr(self, "last_copy", None)
        if text is None:
            self.notify("nothing copied yet")
            return
        session = self.main.session
        inputs = [session.source_path if session else None, *self._input_files()]

        def answered(value: str | None) -> None:
            if not value:
                return
            target = Path(value).expanduser()

            def write(replace: bool | None = True) -> None:
                if not replace:
                    return
                try:
                    written = saving.save(target, text, inputs)
                except (OverwriteRefused, OSError) as exc:
                    self.show_error("Not saved", str(exc))
                    return
                self.notify(f"saved the copy to {written}", markup=False)

            if target.exists() or target.is_symlink():
                self.push_screen(ConfirmScreen(f"{target} already exists.\n\nReplace it?"), write)
            else:
                write()

        default = str(Path.cwd() / "goose-tui-copy.txt")
        self.push_screen(InputPrompt("Save the last copy to:", default), answered)

    def _input_files(self) -> list[Path | None]:
        files: list[Path | None] = [self.templates.compaction.source.path]
        files.append(self.templates.summary.source.path)
        if self.model.startswith("replay:"):
            files.append(Path(self.model[7:]))
        return files

    def set_goose_profile(self, profile: GooseProfile) -> None:
        self.goose_profile = profile
        self.notify(f"Goose format: {profile} ({DESCRIPTIONS[profile]})", timeout=4)
        self.main.profile_changed()

    def unsaved_edits(self) -> list[str]:
        edits = self.main.unsaved_edits()
        for template in (self.templates.compaction, self.templates.summary):
            if template.source.origin == "edited":
                edits.append(f"the template {template.source.name} edited in the app")
        return edits

    async def action_quit(self) -> None:
        """``q`` (and ctrl+q): asks first when a hand edit would be lost."""
        edits = self.unsaved_edits()
        if not edits:
            self.exit()
            return
        if isinstance(self.screen, ConfirmScreen):
            return

        def answered(quit_anyway: bool | None) -> None:
            if quit_anyway:
                self.exit()

        question = "Quit without saving " + " and ".join(edits) + "?"
        self.push_screen(ConfirmScreen(question), answered)

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))


def run_app(
    session_path: Path | None,
    *,
    session_id: str | None = None,
    all_sessions: bool = False,
    model: str = "offline",
    api_base: str | None = None,
    prompts_dir: Path | None = None,
    threshold: float | None = None,
    context_limit: int | None = None,
    theme: str | None = None,
    keymap: dict[str, str] | None = None,
    goose_profile: GooseProfile = DEFAULT_PROFILE,
) -> None:
    GooseTUI(
        session_path,
        session_id=session_id,
        all_sessions=all_sessions,
        model=model,
        api_base=api_base,
        prompts_dir=prompts_dir,
        threshold=threshold,
        context_limit=context_limit,
        theme=theme,
        keymap=keymap,
        goose_profile=goose_profile,
    ).run()


if __name__ == "__main__":
    import sys

    run_app(Path(sys.argv[1]) if len(sys.argv) > 1 else None)
