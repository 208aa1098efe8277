"""The inspector's working state, without Textual: the session, the templates (and which
overrides are broken), the model, the current compaction and its hand edits, the previous
summary for the compare screen, and saving.

The TUI owns one ``Inspector`` and draws from it; slow steps (a render of the summary
template, a re-extraction of an edited reply) are split in two so the TUI can run the first
half off the UI thread: ``read_json`` / ``render_json`` / ``json_rendered`` and
``reread_reply`` / ``reply_read``. ``edit_json`` and ``edit_reply`` do both halves at once.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
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
    load_templates,
    override_dirs,
    render_summary,
)
from goose_tui.inert import inert, restore
from goose_tui.llm.spec import ModelSpec
from goose_tui.pieces import Text
from goose_tui.session.models import Session
from goose_tui.terminal import INERT_JSON_ESCAPES, translator

if TYPE_CHECKING:
    from goose_tui.llm.base import Summarizer

TEMPLATE_NAMES: tuple[TemplateName, ...] = ("compaction.md", "compaction_summary.md")
LAST_GOOD = "showing the last good render"

# The JSON editor: "loaded" (as extracted), "edited" (read and rendered) or "invalid".
JsonState = Literal["loaded", "edited", "invalid"]
# (message, kind) of the banner over the fields: kind "", "fallback" or "error".
Banner = tuple[str, str]


# The characters json.dumps leaves raw that the editor must not show raw (\u202e reads back
# as the same character).
_EDITOR_ESCAPES = translator(INERT_JSON_ESCAPES)


def json_text(summary: StructuredSummary | None) -> str:
    """The summary as the JSON editor shows it: json.dumps (which escapes C0 controls) with
    the rest of what would not be inert escaped too."""
    text = json.dumps(summary.to_json_dict() if summary else {}, indent=2, ensure_ascii=False)
    return _EDITOR_ESCAPES(text)


def describe_source(template: Template) -> str:
    source = template.source
    if source.origin == "built-in":
        return f"{source.name}: built-in"
    if source.path is None:
        return f"{source.name}: edited in the app, not saved"
    return f"{source.name}: override {source.path} ({source.origin})"


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


class TemplateReload:
    """What ``Inspector.reload_templates`` found on disk."""

    def __init__(self, templates: Templates, warnings: list[str], kept: str | None) -> None:
        self.templates = templates  # to swap in (the last good text of a broken one kept)
        self.warnings = warnings  # overrides skipped, for the user
        self.kept = kept  # "path:line" of the broken overrides whose last good text stays


class Inspector:
    """The state of one inspector session, and what can be done to it."""

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
        # Template name -> (broken override, "path:line").
        self.broken_templates: dict[TemplateName, tuple[Path, str]] = self._broken(self.templates)
        self.session: Session | None = None
        # The one-off focus for the next compactions (FOCUS_VARIABLE); "" for none.
        self.focus_text = ""
        # (what it was built from, the request): see build_request.
        self._built: tuple[tuple[object, ...], CompactionRequest] | None = None
        self._forget_summary()

    def _forget_summary(self) -> None:
        """No compaction yet: what a new inspector, or a session just opened, starts from."""
        self.result: CompactionResult | None = None
        self.extraction: Extraction | None = None
        self.structured: StructuredSummary | None = None  # last good
        self.summary_text = ""  # last good render
        self.system_prompt: Text = ""  # shown in the input pane (a request's: its pieces)
        self.prompt_note = ""
        self.prompt_tokens: int | None = None  # the shown request's, once counted
        self.banner: Banner = ("no summary yet", "")
        # The editors' texts: as loaded (extracted, or the model's reply) and as they are.
        self.json_loaded = "{}"
        self.json_text = "{}"
        self.reply_loaded = ""
        self.reply_text = ""
        self.json_state: JsonState = "loaded"
        # (JSON, reply) as last compacted or saved: anything else is unsaved (None: no JSON
        # text was saved, the editor's did not parse).
        self.saved_edits: tuple[str | None, str] = ("{}", "")
        # What was shown when the JSON was loaded: (structured, summary, banner, and the
        # summary template it was rendered with).
        self.loaded_view: tuple[StructuredSummary | None, str, Banner, Template | None] = (
            None,
            "",
            ("no summary yet", ""),
            None,
        )
        # (structured, rendered) before the last change, for the compare screen's "previous".
        self.previous_summary: tuple[StructuredSummary | None, str] | None = None

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

    def show_prompt(self, prompt: Text, note: str, tokens: int | None = None) -> None:
        self.system_prompt, self.prompt_note, self.prompt_tokens = prompt, note, tokens

    def prompt_title(self) -> str:
        # The user's focus first: a narrow pane cuts the title's end, and the focus (the
        # user's own words, at the prompt's very end) was the part cut off.
        title = f"input · focus: {self.focus_text}" if self.focus_text else "input"
        note = self.prompt_note
        if note:
            title += f" · {note}"
        if self.prompt_tokens is not None:
            title += f" · {self.prompt_tokens:,} tokens"
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
        compaction raises ``UnusableReply``. The result becomes current.
        ``estimate_tokens``: count as ``summarize`` says, before returning."""
        from goose_tui.compaction.reply_check import require_usable
        from goose_tui.compaction.summarize import summarize

        assert self.session is not None
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
        self.use_result(result)
        return result

    def use_result(self, result: CompactionResult) -> None:
        self.result = result
        last = result.attempts[-1] if result.attempts else None
        self.show_prompt(result.request.prompt, "as sent", last.tokens_sent if last else None)
        self.reply_loaded = self.reply_text = inert(result.raw_response)
        self.use_extraction(result.extraction, result.summary)
        self.mark_saved()  # a new compaction is the new starting point for hand edits

    def use_extraction(self, extraction: Extraction, summary_text: str) -> None:
        self._remember_summary()
        self.extraction = extraction
        self.structured = extraction.structured
        self.summary_text = summary_text
        if extraction.structured is None:
            self.banner = (f"raw-text fallback: {extraction.fallback_reason}", "fallback")
        elif extraction.candidate is not None:
            self.banner = (f"read {extraction.candidate.describe()}", "")
        self.json_loaded = self.json_text = json_text(extraction.structured)
        self.json_state = "loaded"
        self.loaded_view = (
            extraction.structured,
            summary_text,
            self.banner,
            self.templates.summary,
        )

    def _remember_summary(self) -> None:
        if self.summary_text:
            self.previous_summary = (self.structured, self.summary_text)

    # -- hand edits ------------------------------------------------------------------------

    def back_to_loaded(self) -> Literal["unchanged", "restored", "render"]:
        """The JSON is as loaded again (an undo): show the loaded summary. "render" when it
        was rendered with a summary template since changed (then ``read_json`` it again)."""
        self.json_text = self.json_loaded
        if self.json_state == "loaded":
            return "unchanged"
        structured, summary_text, banner, template = self.loaded_view
        if template != self.templates.summary:
            return "render"
        self.json_state = "loaded"
        self._remember_summary()
        self.structured, self.summary_text, self.banner = structured, summary_text, banner
        return "restored"

    def read_json(self, text: str) -> StructuredSummary | None:
        """Read an edited JSON leniently; None (and the banner says why) when it is not JSON:
        the last good summary stays."""
        self.json_text = text
        try:
            summary = StructuredSummary.parse_json_text(text).normalized()
        except ValueError as exc:
            self.json_state = "invalid"
            self.banner = (f"invalid JSON: {exc} — {LAST_GOOD}", "error")
            return None
        self.json_state = "edited"
        self.banner = ("edited by hand: read leniently, rendering…", "")
        return summary

    def json_rendered(self, summary: StructuredSummary, rendered: str | TemplateError) -> bool:
        """``summary`` rendered (or the template's error): it becomes the current one."""
        if isinstance(rendered, TemplateError):
            self.banner = (f"template error: {rendered} — {LAST_GOOD}", "error")
            return False
        self._remember_summary()
        self.structured, self.summary_text = summary, rendered
        self.banner = ("edited by hand: read leniently and re-rendered", "")
        return True

    def edit_json(self, text: str) -> None:
        """The JSON editor's text changed: re-render the summary, or report invalid JSON."""
        if text == self.json_loaded and self.back_to_loaded() != "render":
            return
        summary = self.read_json(text)
        if summary is not None:
            self.json_rendered(summary, _render(self.templates, summary))

    def reread_reply(self, text: str) -> tuple[Extraction, str]:
        """Extract and render an edited reply (slow: the TUI runs it off the UI thread)."""
        return finish(restore(text), self.templates)

    def reply_read(self, result: tuple[Extraction, str] | TemplateError) -> bool:
        if isinstance(result, TemplateError):
            self.banner = (f"template error: {result}", "error")
            return False
        self.use_extraction(*result)
        return True

    def edit_reply(self, text: str) -> None:
        """The reply editor's text changed: extract the summary from it again."""
        self.reply_text = text
        if text == self.reply_loaded:
            return
        try:
            result: tuple[Extraction, str] | TemplateError = self.reread_reply(text)
        except TemplateError as exc:
            result = exc
        self.reply_read(result)

    def has_summary(self) -> bool:
        """Whether there is a summary to save: compacted, or read from an edited JSON."""
        return self.structured is not None or bool(self.summary_text)

    def mark_saved(self) -> None:
        """The summary as it is now was saved; a JSON edit that does not parse was not (the
        last good summary was saved in its place), so it stays an unsaved edit."""
        saved_json = None if self.json_state == "invalid" else self.json_text
        self.saved_edits = (saved_json, self.reply_text)

    def unsaved_summary_edits(self) -> list[str]:
        """The hand edits of the summary (its JSON, the reply) not saved since the last
        compaction or save: what a new compaction would replace."""
        saved_json, saved_reply = self.saved_edits
        edits = []
        if self.json_text != saved_json:
            edits.append("the hand-edited summary JSON")
        if self.reply_text != saved_reply:
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
        if result is not None and self.summary_text == result.summary:
            return f"summary by {result.model}"
        return "summary edited by hand"

    # -- templates -------------------------------------------------------------------------

    def _watched_paths(self) -> list[Path]:
        return [
            folder / name
            for _, folder in override_dirs(self.prompts_dir)
            for name in TEMPLATE_NAMES
        ]

    def template_mtimes(self) -> dict[Path, float | None]:
        """The override files' modification times (None: absent), to notice a change."""
        mtimes: dict[Path, float | None] = {}
        for path in self._watched_paths():
            try:
                mtimes[path] = path.stat().st_mtime_ns
            except OSError:
                mtimes[path] = None
        return mtimes

    def _broken(self, templates: Templates) -> dict[TemplateName, tuple[Path, str]]:
        """Which override each fallback warning is about, and its "path:line"."""
        broken: dict[TemplateName, tuple[Path, str]] = {}
        for warning in templates.warnings:
            for path in self._watched_paths():
                prefix = str(path)
                name = path.name
                if warning.startswith(prefix + ":") and name in TEMPLATE_NAMES:
                    line = warning[len(prefix) + 1 :].split(":", 1)[0]
                    location = f"{prefix}:{line}" if line.isdigit() else prefix
                    template_name: TemplateName = (
                        "compaction.md" if name == "compaction.md" else "compaction_summary.md"
                    )
                    broken.setdefault(template_name, (path, location))
        return broken

    def reload_templates(self) -> TemplateReload:
        """Load the overrides again. One that does not compile falls back to the next source
        (the built-in at the latest); but when the override that was in use breaks (a save
        mid-edit in $EDITOR), its last good text stays, like an edit in the app. Raises
        ``TemplateError`` when the built-in itself cannot be read."""
        loaded = load_templates(self.prompts_dir, fallback=True)
        self.broken_templates = broken = self._broken(loaded)
        templates, kept = loaded, False
        for name, (path, _) in broken.items():
            current = self.templates.get(name)
            if current.source.path == path:
                templates, kept = templates.with_template(current), True
        where = "; ".join(location for _, location in broken.values()) if kept else None
        return TemplateReload(templates, loaded.warnings, where)

    def same_templates(self, templates: Templates) -> bool:
        return (templates.compaction, templates.summary) == (
            self.templates.compaction,
            self.templates.summary,
        )

    def template_kept(self, where: str) -> None:
        self.banner = (f"template error: {where} — {LAST_GOOD}", "error")

    def template_failed(self, error: TemplateError | str) -> None:
        self.banner = (f"template error: {error} — {LAST_GOOD}", "error")

    def template_origins(self) -> tuple[str, str]:
        """What the pane borders say of the two templates in use (prompt, summary)."""
        return (
            self.describe_template("compaction.md"),
            self.describe_template("compaction_summary.md"),
        )

    def describe_template(self, name: TemplateName) -> str:
        """Which template is in use for ``name``, and any broken override it stands in for."""
        text = describe_source(self.templates.get(name))
        if name in self.broken_templates:
            text += f" (override broken: {self.broken_templates[name][1]})"
        return text

    def check_templates(self, templates: Templates) -> str | None:
        """The compile error of ``templates`` (the banner says it too), or None."""
        try:
            templates.compaction.check()
            templates.summary.check()
        except TemplateError as exc:
            self.template_failed(exc)
            return str(exc)
        return None

    def needs_render(self, templates: Templates) -> StructuredSummary | None:
        """The summary to render with ``templates`` before they are used, or None when their
        summary template changes nothing shown."""
        if self.structured is None or templates.summary == self.templates.summary:
            return None
        return self.structured

    def use_templates(self, templates: Templates, rendered: str | None) -> bool:
        """Use ``templates`` (``rendered``: the summary with them). True when the compaction
        prompt changed (the input pane is then built again)."""
        old, self.templates = self.templates, templates
        if rendered is not None:
            self.summary_text = rendered
            self.banner = ("re-rendered with the changed template", "")
        return self.session is not None and templates.compaction.text != old.compaction.text

    def set_templates(self, templates: Templates) -> str | None:
        """Use ``templates`` if they compile and the summary renders with them, else keep the
        last good ones: the error (file and line), or None."""
        error = self.check_templates(templates)
        if error is not None:
            return error
        structured = self.needs_render(templates)
        rendered = None if structured is None else _render(templates, structured)
        if isinstance(rendered, TemplateError):
            self.template_failed(rendered)
            return str(rendered)
        self.use_templates(templates, rendered)
        return None

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
        """The one check of a save target before asking anything: raises ``OverwriteRefused``
        or ``SaveRefused``; returns the target to ask about when it exists. ``overwrite`` and
        ``keep`` as for ``save``."""
        from goose_tui.session.writer import check_target

        target = target.expanduser()
        inputs = [*self.input_files(), *keep]
        if kind in saving.SESSION_FORMATS:
            check_target(target, inputs, overwrite=overwrite)
            return target
        return saving.check_target(target, inputs)

    def save(
        self,
        kind: saving.SaveKind,
        target: Path,
        *,
        overwrite: bool = True,
        keep: Sequence[Path | None] = (),
    ) -> Path:
        """Write the summary (JSON or Markdown) or the compacted session to ``target``
        atomically, after the same checks; the hand edits count as saved then. ``keep``: more
        files it must not replace (the CLI's summary file, written just before)."""
        from goose_tui.session.writer import save_compacted_session

        assert self.session is not None
        inputs = [*self.input_files(), *keep]
        if kind in saving.SESSION_FORMATS:
            written = save_compacted_session(
                target,
                self.session,
                self.summary_text,
                saving.SESSION_FORMATS[kind],
                inputs=inputs,
                overwrite=overwrite,
            )
        else:
            text = (
                saving.summary_json_text(self.structured)
                if kind == "json"
                else saving.summary_file_text(self.summary_text)
            )
            written = saving.save(target, text, inputs, replace=overwrite)
        self.mark_saved()
        return written

    def summary_is_offline(self) -> bool:
        """The summary is the offline summarizer's extract, unedited: as a Goose session's
        only memory of its history it is a poor one, and a save says so."""
        result = self.result
        if result is None or result.model != "offline":
            return False
        return self.summary_text == result.summary

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

    def save_text(self, target: Path, text: str, *, replace: bool = True) -> Path:
        """Write ``text`` (the last copy) atomically, never over an input."""
        return saving.save(target, text, self.input_files(), replace=replace)


OFFLINE_SUMMARY_NOTE = (
    "the summary is the offline summarizer's extract (no model was called): it is all the "
    "agent will remember of the history; compact with --model (or pick a model) for a real one"
)


def _render(templates: Templates, summary: StructuredSummary) -> str | TemplateError:
    try:
        return render_summary(templates, summary)
    except TemplateError as exc:
        return exc
