"""The inspector's working state, without Textual: the session, the templates (and which
overrides are broken), the model, the current compaction and its hand edits, the previous
summary for the compare screen, and saving.

The TUI owns one ``Inspector``, calls one method per user action and draws from its state
(small frozen dataclasses). The slow actions (a hand edit, a template swap, a compaction)
are async: they render in a thread, and cancelling one (a newer edit) drops its result.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from goose_tui import saving
from goose_tui.compaction.extract import Extraction
from goose_tui.compaction.profiles import DEFAULT_PROFILE, GooseProfile
from goose_tui.compaction.structured import StructuredSummary
from goose_tui.compaction.summarize import (
    Attempt,
    CompactionRequest,
    CompactionResult,
    build_request,
    finish,
)
from goose_tui.compaction.templates import (
    Template,
    TemplateError,
    TemplateName,
    Templates,
    builtin_prompts_dir,
    goose_own_templates,
    load_templates,
    override_dirs,
    render_summary,
    template_diff,
)
from goose_tui.files import OnKeysRemoved, check_writable, write_checked
from goose_tui.inert import inert, restore
from goose_tui.llm.spec import ModelSpec
from goose_tui.pieces import Text
from goose_tui.session.models import Session
from goose_tui.terminal import json_text as terminal_json_text

if TYPE_CHECKING:
    from goose_tui.analysis.compare import SummarySide
    from goose_tui.analysis.report import InspectionReport
    from goose_tui.llm.base import Summarizer
    from goose_tui.session.goose_db import AddedSession
    from goose_tui.tokens import RequestFit

TEMPLATE_NAMES: tuple[TemplateName, ...] = ("compaction.md", "compaction_summary.md")
LAST_GOOD = "showing the last good render"

PREVIOUS_SUMMARY = "this compaction did not finish: the summary shown is the previous one's"

# The JSON editor: "loaded" (as extracted), "edited" (read and rendered) or "invalid".
JsonState = Literal["loaded", "edited", "invalid"]


@dataclass(frozen=True)
class Notice:
    """The banner over the fields: the inspector's report on the current summary. ``kind``
    is "" (news), "fallback" (the raw-text fallback) or "error"."""

    message: str
    kind: Literal["", "fallback", "error"] = ""

    @classmethod
    def template_error(cls, error: object) -> Notice:
        return cls(f"template error: {error} — {LAST_GOOD}", "error")


NO_SUMMARY = Notice("no summary yet")


@dataclass(frozen=True)
class Summary:
    """A summary as the panes show it: its fields (None: the raw-text fallback) and the
    Markdown the summary template rendered from them."""

    structured: StructuredSummary | None = None
    text: str = ""


@dataclass(frozen=True)
class Loaded:
    """What the last compaction or reply edit gave: the editors' texts and what was shown
    with them, so an undo back to that JSON shows it again without a render."""

    json: str = "{}"
    reply: str = ""
    summary: Summary = Summary()
    notice: Notice = NO_SUMMARY
    template: Template | None = None  # the summary template it was rendered with


@dataclass(frozen=True)
class Edits:
    """The editors' texts. As saved, ``json`` is None when the JSON editor's text did not
    parse (the last good summary was saved in its place)."""

    json: str | None = "{}"
    reply: str = ""


@dataclass(frozen=True)
class Prompt:
    """The input pane: the system prompt (a request's: its pieces), a note on it ("as it
    will be sent", "as sent") and its tokens once counted."""

    text: Text = ""
    note: str = ""
    tokens: int | None = None


@dataclass(frozen=True)
class TemplateSwap:
    """What ``Inspector.set_templates`` did: the error that kept the last good templates
    (file and line), and whether the session's summary was what rendered (False: there is
    none, and an empty one was)."""

    error: str | None
    with_summary: bool = True


@dataclass(frozen=True)
class TemplateReload:
    """What ``Inspector.reload_templates`` found on disk: the templates to swap in (the last
    good text of a broken one kept, an edit in the app kept), what to say of each broken
    override, and the "path:line" of the broken overrides whose last good text stays."""

    templates: Templates
    warnings: list[str]
    kept: str | None


def json_text(summary: StructuredSummary | None) -> str:
    """The summary as the JSON editor shows it: as the CLI prints JSON on a terminal, with
    nothing that would not be inert left raw (a summary holds no lone surrogate: its reader
    refuses one)."""
    return terminal_json_text(summary.to_json_dict() if summary else {})


def describe_source(template: Template) -> str:
    source = template.source
    if source.origin == "built-in":
        return f"{source.name}: built-in"
    if source.path is None:
        return f"{source.name}: edited in the app, not saved"
    return f"{source.name}: override {source.path} ({source.origin})"


def broken_override_message(warning: str, *, kept: bool) -> str:
    """What a warning of ``load_templates(fallback=True)`` means for the app: a broken
    override the app had in use keeps its last good text (``kept``), any other falls back."""
    if kept:
        reason = warning.removesuffix(" (override skipped)")
        return f"{reason}; its last good text stays in use until the file is fixed"
    return f"{warning}; using the next template in line"


def summarizer_for(model: ModelSpec) -> Summarizer:
    """The backend for ``model``; a reply file that is missing or not a regular file raises
    ``FileNotFoundError`` before any work (the error the user sees names the file)."""
    problem = model.problem()
    if problem is not None:
        raise FileNotFoundError(problem)
    return model.summarizer()


def parses(text: str) -> bool:
    """Whether ``text`` reads as a summary JSON."""
    try:
        StructuredSummary.parse_json_text(text)
    except ValueError:
        return False
    return True


class Inspector:
    """The state of one inspector session, and what can be done to it: one method per
    action, each leaving the state consistent."""

    def __init__(
        self,
        *,
        model: ModelSpec | None = None,
        prompts_dir: Path | None = None,
        goose_profile: GooseProfile = DEFAULT_PROFILE,
        threshold: float | None = None,
        context_limit: int | None = None,
        templates: Templates | None = None,
    ) -> None:
        self.model: ModelSpec = model or ModelSpec.offline()
        self.prompts_dir = prompts_dir
        self.goose_profile: GooseProfile = goose_profile
        self.threshold = threshold
        self.context_limit = context_limit
        # A broken override must not stop the inspector: it falls back (the TUI warns). The
        # CLI loads them itself, strictly (a broken override is an error there), and passes them.
        self.templates: Templates = templates or load_templates(prompts_dir, fallback=True)
        # Template name -> (broken override, "path:line", the warning that says why).
        self._broken_overrides = self._broken(self.templates)
        self.session: Session | None = None
        # The one-off focus for the next compactions (FOCUS_VARIABLE); "" for none.
        self.focus_text = ""
        # (what it was built from, the request): see build_request.
        self._built: tuple[tuple[object, ...], CompactionRequest] | None = None
        self._forget_summary()

    @property
    def notice(self) -> Notice:
        """The report on the current summary; while an override is broken, led by that
        error and which template stands in for it, until the file is fixed."""
        problems = self.template_problems()
        if not problems:
            return self._notice
        lines = [*problems, self._notice.message] if self._notice.message else problems
        return Notice("\n".join(lines), "error")

    @notice.setter
    def notice(self, notice: Notice) -> None:
        self._notice = notice

    def template_problems(self) -> list[str]:
        """One line per broken override: its error, and what is used in its place."""
        problems = (self.template_problem(name) for name in self._broken_overrides)
        return [problem for problem in problems if problem is not None]

    def template_problem(self, name: TemplateName) -> str | None:
        """The error of the override for ``name`` that is broken on disk, and what is used
        in its place; None when it is not broken."""
        if name not in self._broken_overrides:
            return None
        path, _, warning = self._broken_overrides[name]
        current = self.templates.get(name).source
        if current.path == path:
            used = "its last good text"
        elif current.origin == "built-in":
            used = "the built-in"
        elif current.path is None:
            used = "the edit in the app"
        else:
            used = str(current.path)
        # What is in use first: a narrow pane cuts the end of a long path and reason.
        reason = warning.removesuffix(" (override skipped)")
        return f"template error ({used} in use until the file is fixed): {reason}"

    def _forget_summary(self) -> None:
        """No compaction yet: what a new inspector, or a session just opened, starts from."""
        self.result: CompactionResult | None = None
        self.extraction: Extraction | None = None
        self.summary = Summary()  # the last good one
        self.notice = NO_SUMMARY
        self.prompt = Prompt()
        self.loaded = Loaded()
        self.edits = Edits()
        self.json_state: JsonState = "loaded"
        # As last compacted or saved: any other editor text is an unsaved edit.
        self.saved = Edits()
        # The summary before the last change, for the compare screen's "previous".
        self.previous: Summary | None = None

    # -- session, model, profile, focus ----------------------------------------------------

    def load(self, session: Session) -> None:
        """Open ``session``: the last one's compaction, summary and hand edits go with it (the
        app asks first when an edit is unsaved: ``unsaved_summary_edits``)."""
        self.session = session
        self._forget_summary()

    def set_model(self, model: ModelSpec) -> None:
        self.model = model

    def set_profile(self, profile: GooseProfile) -> None:
        self.goose_profile = profile

    def set_focus(self, focus: str) -> None:
        self.focus_text = focus

    def build_request(self) -> CompactionRequest:
        """The request a compaction would send now (the input pane); kept, with what it was
        built from, so a compaction of the same does not build it again."""
        assert self.session is not None
        inputs = self._request_inputs()
        request = build_request(
            self.session.messages, self.templates, self.focus_text, profile=self.goose_profile
        )
        self._built = (inputs, request)
        return request

    def _request_inputs(self) -> tuple[object, ...]:
        return (self.session, self.templates, self.focus_text, self.goose_profile)

    def _built_request(self) -> CompactionRequest | None:
        """The last request built, if it was built from what a compaction would use now."""
        if self._built is None:
            return None
        inputs, request = self._built
        now = self._request_inputs()
        same = all(a is b for a, b in zip(inputs[:2], now[:2], strict=True))
        return request if same and inputs[2:] == now[2:] else None

    def show_prompt(self, prompt: Text, note: str) -> None:
        """The input pane shows ``prompt`` (its tokens not counted yet)."""
        self.prompt = Prompt(prompt, note)

    def prompt_counted(self, prompt: Text, tokens: int) -> bool:
        """``prompt`` has ``tokens``; False when the pane shows another prompt by now."""
        if self.prompt.text is not prompt:
            return False
        self.prompt = replace(self.prompt, tokens=tokens)
        return True

    def request_fit(self) -> RequestFit | None:
        """Whether the prompt shown fits the summarizer's own window, once it is counted."""
        if self.session is None or self.prompt.tokens is None:
            return None
        return self.model.request_fit(self.session, self.prompt.tokens)

    def prompt_title(self) -> str:
        # The user's focus first: a narrow pane cuts the title's end, and the focus is the
        # user's own words, at the prompt's very end.
        title = f"input · focus: {self.focus_text}" if self.focus_text else "input"
        if self.prompt.note:
            title += f" · {self.prompt.note}"
        if self.prompt.tokens is not None:
            title += f" · {self.prompt.tokens:,} tokens"
        return title

    # -- compaction ------------------------------------------------------------------------

    async def compact(
        self,
        *,
        on_chunk: Callable[[str], None] | None = None,
        on_attempt: Callable[[Attempt], None] | None = None,
        summarizer: Summarizer | None = None,
        estimate_tokens: bool = False,
    ) -> CompactionResult:
        """Compact the session with the model (``summarizer``: its backend, when the caller
        made it already), templates, profile and focus; a reply that cannot stand as a
        compaction raises ``UnusableReply``. The result becomes current, and the starting
        point for hand edits; a compaction that fails or is cancelled leaves the previous
        one current (and says so). ``estimate_tokens``: count as ``summarize`` says."""
        from goose_tui.compaction.reply_check import require_usable
        from goose_tui.compaction.summarize import summarize

        assert self.session is not None
        try:
            summarizer = summarizer or summarizer_for(self.model)
            result = await summarize(
                self.session.messages,
                summarizer,
                self.templates,
                on_attempt=on_attempt,
                on_chunk=on_chunk,
                focus=self.focus_text,
                profile=self.goose_profile,
                first_request=self._built_request(),
                estimate_tokens=estimate_tokens,
            )
            require_usable(result)
        except BaseException:
            if self.result is not None:  # the panes still show the one before
                self.notice = Notice(PREVIOUS_SUMMARY, "fallback")
            raise
        self.result = result
        last = result.attempts[-1] if result.attempts else None
        self.prompt = Prompt(result.request.prompt, "as sent", last.tokens_sent if last else None)
        self._use_extraction(result.extraction, result.summary, inert(result.raw_response))
        self.saved = self.edits
        return result

    def _use_extraction(self, extraction: Extraction, summary_text: str, reply: str) -> None:
        self._show(Summary(extraction.structured, summary_text))
        self.extraction = extraction
        if extraction.structured is None:
            self.notice = Notice(f"raw-text fallback: {extraction.fallback_reason}", "fallback")
        elif extraction.candidate is not None:
            self.notice = Notice(f"read {extraction.candidate.describe()}")
        loaded_json = json_text(extraction.structured)
        self.loaded = Loaded(loaded_json, reply, self.summary, self._notice, self.templates.summary)
        self.edits = Edits(loaded_json, reply)
        self.json_state = "loaded"

    def _show(self, summary: Summary) -> None:
        """``summary`` becomes the current one; the one it replaces is the compare screen's
        "previous"."""
        if self.summary.text:
            self.previous = self.summary
        self.summary = summary

    # -- hand edits ------------------------------------------------------------------------

    def typed(self, *, json: str | None = None, reply: str | None = None) -> None:
        """An editor's text as the user typed it, before it is read: what a quit or a new
        compaction would lose."""
        self.edits = Edits(
            self.edits.json if json is None else json,
            self.edits.reply if reply is None else reply,
        )

    async def edit_json(self, text: str, *, rendering: Callable[[], None] | None = None) -> bool:
        """The JSON editor's text is ``text``: read it leniently and render the summary from
        it in a thread (``rendering`` is called as that starts, the notice saying so); back at
        the loaded JSON (an undo), show what was loaded. Text that is not JSON, or a template
        that fails, keeps the last good summary and the notice says why. True when the
        summary shown changed."""
        self.typed(json=text)
        if text == self.loaded.json:
            if self.json_state == "loaded":
                return False
            if self.loaded.template == self.templates.summary:
                self.json_state = "loaded"
                self._show(self.loaded.summary)
                self.notice = self.loaded.notice
                return True
            # Rendered with a summary template since changed: rendered again below.
        try:
            structured = StructuredSummary.parse_json_text(text).normalized()
        except ValueError as exc:
            self.json_state = "invalid"
            self.notice = Notice(f"invalid JSON: {exc} — {LAST_GOOD}", "error")
            return False
        self.json_state = "edited"
        self.notice = Notice("edited by hand: read leniently, rendering…")
        if rendering is not None:
            rendering()
        rendered = await asyncio.to_thread(_render, self.templates, structured)
        if isinstance(rendered, TemplateError):
            self.notice = Notice.template_error(rendered)
            return False
        self._show(Summary(structured, rendered))
        self.notice = Notice("edited by hand: read leniently and re-rendered")
        return True

    async def edit_reply(self, text: str) -> bool:
        """The reply editor's text is ``text``: extract and render the summary from it again
        (in a thread); the JSON editor's text is replaced by what it now reads as. True when
        the summary changed (False: a template error, which the notice says)."""
        self.typed(reply=text)
        if text == self.loaded.reply:
            return False
        templates = self.templates
        try:
            extraction, summary_text = await asyncio.to_thread(finish, restore(text), templates)
        except TemplateError as exc:
            self.notice = Notice(f"template error: {exc}", "error")
            return False
        self._use_extraction(extraction, summary_text, text)
        return True

    async def use_summary(self, text: str) -> bool:
        """``text``, a summary written elsewhere (Goose's own, for an audit), becomes the
        current one, read as a reply is, and counts as saved. False on a template error (the
        notice says it)."""
        if not await self.edit_reply(text):
            return False
        self.saved = self.edits
        return True

    def has_summary(self) -> bool:
        """Whether there is a summary to save: compacted, or read from an edited JSON."""
        return self.summary.structured is not None or bool(self.summary.text)

    def _as_saved(self) -> Edits:
        """What counts as saved once the summary as it is now is saved: a JSON edit that does
        not parse does not (the last good summary is saved in its place), so it stays an
        unsaved edit."""
        invalid = self.json_state == "invalid"
        return replace(self.edits, json=None) if invalid else self.edits

    def unsaved_summary_edits(self) -> list[str]:
        """The hand edits of the summary (its JSON, the reply) not saved since the last
        compaction or save: what a new compaction would replace."""
        edits = []
        if self.edits.json != self.saved.json:
            edits.append("the hand-edited summary JSON")
        if self.edits.reply != self.saved.reply:
            edits.append("the hand-edited reply")
        return edits

    def unsaved_edits(self) -> list[str]:
        """The hand edits not saved since the last compaction or save, and the templates
        edited in the app."""
        edits = self.unsaved_summary_edits()
        for template in (self.templates.compaction, self.templates.summary):
            if template.source.origin == "edited":
                edits.append(f"the template {template.source.name} edited in the app")
        return edits

    def summary_label(self) -> str:
        """Where the current summary came from: the model, or a hand edit."""
        result = self.result
        if result is not None and self.summary.text == result.summary:
            return f"summary by {result.model}"
        return "summary edited by hand"

    # -- templates -------------------------------------------------------------------------

    def _override_files(self) -> list[tuple[TemplateName, Path]]:
        """Each override file (which may not exist) the templates in use depend on, with the
        template it would be."""
        return [
            (name, folder / name)
            for _, folder in override_dirs(self.prompts_dir)
            for name in TEMPLATE_NAMES
        ]

    def watched_paths(self) -> list[Path]:
        """The override files (which may not exist) the templates in use depend on."""
        return [path for _, path in self._override_files()]

    def template_mtimes(self) -> dict[Path, float | None]:
        """The override files' modification times (None: absent), to notice a change."""
        mtimes: dict[Path, float | None] = {}
        for path in self.watched_paths():
            try:
                mtimes[path] = path.stat().st_mtime_ns
            except OSError:
                mtimes[path] = None
        return mtimes

    def _broken(self, templates: Templates) -> dict[TemplateName, tuple[Path, str, str]]:
        """Which override each fallback warning is about, its "path:line", and the warning."""
        broken: dict[TemplateName, tuple[Path, str, str]] = {}
        files = self._override_files()
        for warning in templates.warnings:
            for name, path in files:
                prefix = str(path)
                if warning.startswith(prefix + ":"):
                    line = warning[len(prefix) + 1 :].split(":", 1)[0]
                    location = f"{prefix}:{line}" if line.isdigit() else prefix
                    broken.setdefault(name, (path, location, warning))
        return broken

    def reload_templates(self, *, drop_edit: TemplateName | None = None) -> TemplateReload:
        """Load the overrides again. One that does not compile falls back to the next source
        (the built-in at the latest); but when the override that was in use breaks (a save
        mid-edit in $EDITOR), its last good text stays, and the notice says so until the
        file is fixed. A template edited in the app stays (it is an unsaved edit), but for
        ``drop_edit`` (just saved, or given up for the file). The warnings say what is used
        instead of each broken override. Raises ``TemplateError`` when the built-in itself
        cannot be read (the notice says that too)."""
        try:
            loaded = load_templates(self.prompts_dir, fallback=True)
        except TemplateError as exc:
            self.notice = Notice.template_error(exc)
            raise
        broken = self._broken(loaded)
        templates, kept_at = loaded, []
        for name in TEMPLATE_NAMES:
            current = self.templates.get(name)
            if current.source.origin == "edited" and name != drop_edit:
                templates = templates.with_template(current)
            elif name in broken and current.source.path == broken[name][0]:
                templates = templates.with_template(current)
                kept_at.append(broken[name][1])
        warnings = [
            broken_override_message(warning, kept=templates.get(name).source.path == path)
            for name, (path, _, warning) in broken.items()
        ]
        self._broken_overrides = broken
        return TemplateReload(templates, warnings, "; ".join(kept_at) or None)

    def template_diffs(self) -> str:
        """Each template in use against goose-tui's built-in and against Goose's own (the
        installed goose-sdk wheel's), as unified diffs, one after another."""
        goose = goose_own_templates()
        sections = []
        for name in TEMPLATE_NAMES:
            template = self.templates.get(name)
            builtin = builtin_prompts_dir() / name
            references: list[tuple[str, str | None]] = [
                (f"goose-tui's built-in: {builtin}", _read_or_why(builtin))
            ]
            references.append(
                ("Goose's own (goose-sdk)", goose[name])
                if goose is not None
                else ("Goose's own", None)
            )
            for label, theirs in references:
                title = f"## {describe_source(template)} against {label.split(':')[0]}"
                if theirs is None:
                    body = NO_GOOSE_TEMPLATES
                else:
                    body = template_diff(template, theirs, label) or "(the same text)"
                sections.append(f"{title}\n{body}")
        return "\n\n".join(sections)

    def same_templates(self, templates: Templates) -> bool:
        return (templates.compaction, templates.summary) == (
            self.templates.compaction,
            self.templates.summary,
        )

    def template_origins(self) -> tuple[str, str]:
        """What the pane borders say of the two templates in use (prompt, summary)."""
        return (
            self.describe_template("compaction.md"),
            self.describe_template("compaction_summary.md"),
        )

    def describe_template(self, name: TemplateName) -> str:
        """Which template is in use for ``name``, and any broken override it stands in for."""
        template = self.templates.get(name)
        if name not in self._broken_overrides:
            return describe_source(template)
        path, location, _ = self._broken_overrides[name]
        if template.source.path == path:
            return f"{name}: the last good text of {path} (broken on disk: {location})"
        return f"{describe_source(template)} (override broken: {location})"

    async def set_templates(self, templates: Templates) -> TemplateSwap:
        """Use ``templates`` if they compile and the summary renders with them (in a thread),
        else keep the last good ones and the notice says why. Without a structured summary
        a changed summary template renders an empty one, to show whether it renders at all,
        and what is shown stays."""
        try:
            templates.compaction.check()
            templates.summary.check()
        except TemplateError as exc:
            self.notice = Notice.template_error(exc)
            return TemplateSwap(str(exc))
        structured = self.summary.structured
        rendered = None
        if templates.summary != self.templates.summary:
            empty = StructuredSummary()
            result = await asyncio.to_thread(_render, templates, structured or empty)
            if isinstance(result, TemplateError):
                self.notice = Notice.template_error(result)
                return TemplateSwap(str(result), with_summary=structured is not None)
            rendered = result
        self.templates = templates
        if rendered is not None and structured is not None:
            self.summary = replace(self.summary, text=rendered)
            self.notice = Notice("re-rendered with the changed template")
        return TemplateSwap(None, with_summary=structured is not None or rendered is None)

    # -- saving ----------------------------------------------------------------------------

    def input_files(self) -> list[Path | None]:
        """What a save must never overwrite: the session, the templates, the reply file."""
        session = self.session.source_path if self.session is not None else None
        return [
            session,
            self.templates.compaction.source.path,
            self.templates.summary.source.path,
            *self.model.input_files(),
        ]

    def check_save(
        self,
        kind: saving.SaveKind,
        target: Path,
        *,
        overwrite: bool = True,
        keep: Sequence[Path | None] = (),
    ) -> Path:
        """Whether ``target`` may be written, before asking anything: raises
        ``OverwriteRefused`` (a session also by Goose's rules: ``writer.check_target``);
        returns the target to ask about when it exists. ``overwrite`` and ``keep`` as for
        ``save``."""
        from goose_tui.session.writer import check_target

        inputs = [*self.input_files(), *keep]
        if kind in saving.SESSION_FORMATS:
            return check_target(target, inputs, overwrite=overwrite)
        if kind == "report":
            return self.check_report(target, keep=keep)[0]
        return check_writable(target, inputs)

    def save(
        self,
        kind: saving.SaveKind,
        target: Path,
        *,
        overwrite: bool = True,
        keep: Sequence[Path | None] = (),
        on_keys_removed: OnKeysRemoved | None = None,
    ) -> Path:
        """Write the summary (JSON or Markdown) or the compacted session to ``target``
        atomically, after the same checks; the hand edits count as saved then. ``keep``: more
        files it must not replace (the CLI's summary file, written just before). A report
        (``save_report``, compared with the previous summary when there is one) returns its
        Markdown file and saves no hand edit. ``on_keys_removed``: told when API keys were
        left out of a file."""
        from goose_tui.session.writer import save_compacted_session

        assert self.session is not None
        if kind == "report":
            compare_with = self.previous_side()
            return self.save_report(
                target,
                overwrite=overwrite,
                compare_with=compare_with,
                on_keys_removed=on_keys_removed,
            )[0]
        inputs = [*self.input_files(), *keep]
        if kind in saving.SESSION_FORMATS:
            written = save_compacted_session(
                target,
                self.session,
                self.summary.text,
                saving.SESSION_FORMATS[kind],
                inputs=inputs,
                overwrite=overwrite,
                on_keys_removed=on_keys_removed,
            )
        else:
            text = (
                saving.summary_json_text(self.summary.structured)
                if kind == "json"
                else saving.summary_file_text(self.summary.text)
            )
            written = write_checked(
                target, text, inputs, replace=overwrite, on_keys_removed=on_keys_removed
            )
        self.saved = self._as_saved()
        return written

    def add_to_goose_db(self, db: Path) -> AddedSession:
        """Add the compacted session to Goose's ``db`` as a new session
        (``goose_db.add_session``: a backup first, inserts only); its notes also say when the
        summary is the offline one. The summary as it was when called counts as saved then,
        so an edit typed while this runs in a thread stays unsaved. Raises
        ``GooseDbRefused`` with nothing written."""
        from goose_tui.session.goose_db import add_session

        assert self.session is not None
        saved, offline = self._as_saved(), self.summary_is_offline()
        added = add_session(db, self.session, self.summary.text)
        self.saved = saved
        if offline:
            added = replace(added, notes=[*added.notes, OFFLINE_SUMMARY_NOTE])
        return added

    def summary_is_offline(self) -> bool:
        """The summary is the offline summarizer's extract, unedited: as a Goose session's
        only memory of its history it is a poor one, and a save says so."""
        result = self.result
        if result is None or result.model != "offline":
            return False
        return self.summary.text == result.summary

    def session_save_notes(self, kind: saving.SaveKind) -> list[str]:
        """What a compacted-session save of ``kind`` changes or leaves out so that Goose
        reads it, and whether its summary is the offline one; [] for a summary file."""
        from goose_tui.session.writer import save_notes

        if kind not in saving.SESSION_FORMATS or self.session is None:
            return []
        notes = save_notes(self.session, saving.SESSION_FORMATS[kind])
        if self.summary_is_offline():
            notes.append(OFFLINE_SUMMARY_NOTE)
        return notes

    # -- the report -----------------------------------------------------------------------

    def previous_side(self) -> SummarySide | None:
        """The summary before the current one (the compare screen's "previous"), if any."""
        from goose_tui.analysis.compare import SummarySide

        if self.previous is None:
            return None
        previous = self.previous
        return SummarySide(
            label="previous summary", summary=previous.text, structured=previous.structured
        )

    def report(self, compare_with: SummarySide | None = None) -> InspectionReport:
        """The report of the current summary: the request as sent (as it would be sent, for a
        summary written by hand), what the model replied and how it was read, and the
        analyses of the summary; with ``compare_with``, compared with that one."""
        from goose_tui.analysis.report import build_report

        assert self.session is not None
        result = self.result
        request = result.request if result is not None else self.build_request()
        system, user = request.messages
        return build_report(
            self.session,
            system_prompt=request.system_prompt,
            user_request=str(user.content),
            reply=self.edits.reply if result is not None else None,
            reading=self.notice.message,
            analysis=self.extraction.analysis if self.extraction is not None else None,
            structured=self.summary.structured,
            summary=self.summary.text,
            summary_by=self.summary_label(),
            goose_profile=self.goose_profile,
            templates=self.template_origins(),
            focus=self.focus_text,
            compare_with=compare_with,
        )

    def check_report(self, target: Path, *, keep: Sequence[Path | None] = ()) -> tuple[Path, Path]:
        """Both files of a report at ``target`` checked (``saving.report_paths``): raises
        ``OverwriteRefused`` for an input or a file that cannot be written."""
        inputs = [*self.input_files(), *keep]
        markdown, page = saving.report_paths(target)
        return check_writable(markdown, inputs), check_writable(page, inputs)

    def save_report(
        self,
        target: Path,
        *,
        overwrite: bool = True,
        compare_with: SummarySide | None = None,
        keep: Sequence[Path | None] = (),
        on_keys_removed: OnKeysRemoved | None = None,
    ) -> tuple[Path, Path]:
        """Write the report as Markdown and as HTML (``saving.report_paths``), each atomically,
        both checked before either is written; ``overwrite`` False leaves a file that is there
        (``FileExistsError``). A report is no save of the summary: hand edits stay unsaved."""
        from goose_tui.analysis.report import report_html, report_markdown

        markdown, page = self.check_report(target, keep=keep)
        report = self.report(compare_with)
        inputs = [*self.input_files(), *keep]
        for path, text in ((markdown, report_markdown(report)), (page, report_html(report))):
            write_checked(path, text, inputs, replace=overwrite, on_keys_removed=on_keys_removed)
        return markdown, page

    def save_text(
        self,
        target: Path,
        text: str,
        *,
        replace: bool = True,
        on_keys_removed: OnKeysRemoved | None = None,
    ) -> Path:
        """Write ``text`` (the last copy) atomically, never over an input."""
        return write_checked(
            target, text, self.input_files(), replace=replace, on_keys_removed=on_keys_removed
        )


NO_GOOSE_TEMPLATES = (
    "(Goose's own templates are not installed here: goose-tui does not ship Goose's wording. "
    "`pip install goose-sdk` (Linux x86_64) provides them, or diff against a copy from your "
    "Goose install with --prompts-dir.)"
)


def _read_or_why(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return f"(cannot read {path}: {exc})"


OFFLINE_SUMMARY_NOTE = (
    "the summary is the offline summarizer's extract (no model was called): it is all the "
    "agent will remember of the history; compact with --model (or pick a model) for a real one"
)


def _render(templates: Templates, summary: StructuredSummary) -> str | TemplateError:
    try:
        return render_summary(templates, summary)
    except TemplateError as exc:
        return exc
