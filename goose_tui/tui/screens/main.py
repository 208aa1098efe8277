"""The inspector: gauge, conversation, compaction status and the four panes."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING, Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Input, Static, TabbedContent, TabPane, Tabs, TextArea
from textual.widgets._tabs import Tab
from textual.worker import Worker, WorkerState, get_current_worker

from goose_tui.compaction.extract import Extraction
from goose_tui.compaction.profiles import next_profile
from goose_tui.compaction.structured import StructuredSummary
from goose_tui.compaction.summarize import Attempt, CompactionFailed, CompactionResult
from goose_tui.compaction.templates import Template, TemplateError, Templates, render_summary
from goose_tui.inert import INVISIBLE, inert, restore
from goose_tui.session.models import Session
from goose_tui.tokens import TokenCounter, not_smaller
from goose_tui.tui.debounce import debounce
from goose_tui.tui.widgets.code_editor import CodeEditor
from goose_tui.tui.widgets.compaction_status import CompactionStatus
from goose_tui.tui.widgets.context_gauge import ContextGauge
from goose_tui.tui.widgets.conversation_view import ConversationView
from goose_tui.tui.widgets.fields_tree import FieldsTree
from goose_tui.tui.widgets.goose_footer import GooseFooter
from goose_tui.tui.widgets.pane import Banner, Pane
from goose_tui.tui.widgets.summary_preview import SummaryPreview
from goose_tui.tui.widgets.text_viewer import TextViewer, prompt_highlighter

if TYPE_CHECKING:
    from goose_tui.tui.app import GooseTUI

WIDE_COLUMNS = 160  # below this the four panes become tabs
PANES = ("input", "analysis", "fields", "markdown")
IMPORTING_NOTE = "importing litellm… (first call of the session)"


def _json_text(summary: StructuredSummary | None) -> str:
    # json.dumps escapes C0 controls; C1 controls, bidi and zero-width characters are escaped
    # too (``\\u202e`` reads back as the same character), so the editor stays inert.
    text = json.dumps(summary.to_json_dict() if summary else {}, indent=2, ensure_ascii=False)
    return "".join(
        f"\\u{ord(c):04x}" if 0x7F <= ord(c) <= 0x9F or ord(c) in INVISIBLE else c for c in text
    )


class MainScreen(Screen[None]):
    BINDINGS = [
        Binding("c", "compact", "Compact", id="main.compact"),
        Binding("escape", "cancel", "Cancel", id="main.cancel"),
        Binding("slash", "search", "Search prompt", id="main.search"),
        Binding("m", "toggle_markdown", "MD source", id="main.toggle_markdown"),
        Binding("f", "maximize_pane", "Maximize", id="main.maximize"),
        Binding("y", "copy_pane", "Copy pane", id="main.copy"),
        Binding("e", "edit_json", "Edit JSON", id="main.edit_json"),
        Binding("r", "edit_reply", "Edit reply", id="main.edit_reply"),
        Binding("s", "save", "Save", id="main.save"),
        Binding("t", "edit_template('compaction_summary.md')", "Summary tmpl", id="main.tmpl"),
        Binding(
            "T", "edit_template('compaction.md')", "Prompt tmpl", id="main.prompt_tmpl", show=False
        ),
        Binding("l", "retention", "Lost?", id="main.retention"),
        Binding("v", "compare", "Compare", id="main.compare"),
        Binding("g", "timeline", "Timeline", id="main.timeline"),
        Binding("u", "context", "Context", id="main.context"),
        Binding("k", "ask_focus", "Focus", id="main.focus"),
        Binding("p", "switch_profile", "Goose version", id="main.profile", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.session: Session | None = None
        self.result: CompactionResult | None = None
        self.extraction: Extraction | None = None
        self.structured: StructuredSummary | None = None  # last good
        self.summary_text = ""  # last good render
        self.system_prompt = ""
        self._prompt_note = ""
        # The one-off focus for the next compactions (FOCUS_VARIABLE); "" for none.
        self.focus_text = ""
        self._json_loaded = ""
        self._reply_loaded = ""
        # (JSON editor, reply editor) as last compacted or saved: anything else is unsaved.
        self._saved_edits = ("{}", "")
        # The JSON editor: "loaded" (as extracted), "edited" (read and rendered) or "invalid".
        self._json_state = "loaded"
        # What the panes showed when the JSON was loaded: (structured, summary, banner, and
        # the summary template it was rendered with).
        self._loaded_view: tuple[
            StructuredSummary | None, str, tuple[str, str], Template | None
        ] = (
            None,
            "",
            ("no summary yet", ""),
            None,
        )
        self._started = 0.0
        self._ticker: Timer | None = None
        # (structured, rendered) before the last change, for the compare screen's "previous".
        self.previous_summary: tuple[StructuredSummary | None, str] | None = None

    @property
    def tui(self) -> GooseTUI:
        return self.app  # type: ignore[return-value]

    # -- layout ----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(Content("goose-tui · loading…"), id="session-title")
        yield ContextGauge(id="gauge")
        yield ConversationView(id="conversation")
        yield CompactionStatus(id="status")
        yield Tabs(*(Tab(name, id=f"tab-{name}") for name in PANES), id="pane-tabs")
        with Horizontal(id="panes"):
            with Pane("input", copy_source=lambda: self.system_prompt, id="pane-input"):
                yield Input(placeholder="search the prompt", id="search")
                yield TextViewer(
                    id="input-view",
                    placeholder="loading…",
                    highlighter=prompt_highlighter,
                    wrap=True,
                )
            with Pane("analysis", copy_source=self._analysis_text, id="pane-analysis"):
                yield TextViewer(id="analysis-view", placeholder="press c to compact")
            with Pane("fields", copy_source=lambda: self._json_editor.text, id="pane-fields"):
                yield Banner("no summary yet", id="fields-banner", classes="pane-banner")
                with TabbedContent(id="fields-tabs"):
                    with TabPane("tree", id="fields-tree-tab"):
                        yield FieldsTree(id="fields-tree")
                    with TabPane("json", id="fields-json-tab"):
                        yield CodeEditor("{}", syntax="json", id="json-editor")
                    with TabPane("reply", id="fields-reply-tab"):
                        yield CodeEditor("", syntax="markdown", id="reply-editor", soft_wrap=True)
            with Pane("markdown", copy_source=lambda: self.summary_text, id="pane-markdown"):
                yield SummaryPreview(id="preview")
        yield GooseFooter()

    def on_mount(self) -> None:
        self.query_one("#search").display = False
        self.query_one(FieldsTree).show_summary(None)
        self.query_one(CompactionStatus).model = self.tui.model
        self.query_one(CompactionStatus).profile = self.tui.goose_profile
        self._layout_for(self.size.width)
        self._show_template_origin()

    def on_resize(self) -> None:
        self._layout_for(self.size.width)

    def _layout_for(self, width: int) -> None:
        narrow = width < WIDE_COLUMNS
        panes = self.query_one("#panes")
        panes.set_class(narrow, "-narrow")
        self.query_one("#pane-tabs").display = narrow
        active = self.query_one(Tabs).active or "tab-input"
        self._show_pane(active.removeprefix("tab-"))

    def _show_pane(self, name: str) -> None:
        for pane in PANES:
            self.query_one(f"#pane-{pane}").set_class(pane == name, "-active")

    @on(Tabs.TabActivated, "#pane-tabs")
    def _tab_activated(self, event: Tabs.TabActivated) -> None:
        self._show_pane(str(event.tab.id).removeprefix("tab-"))

    @property
    def _json_editor(self) -> TextArea:
        return self.query_one("#json-editor", TextArea)

    @property
    def _reply_editor(self) -> TextArea:
        return self.query_one("#reply-editor", TextArea)

    def _analysis_text(self) -> str:
        return self.query_one("#analysis-view", TextViewer).text

    # -- the session -----------------------------------------------------------------------

    def show_session(self, session: Session) -> None:
        self.session = session
        title = f"{session.title} · {len(session.messages):,} messages"
        if session.source_path:
            title += f" · {session.source_path}"
        if session.warnings:
            title += f" · {len(session.warnings)} lines skipped (first: {session.warnings[0]})"
        self.query_one("#session-title", Static).update(Content(inert(title)))
        self.query_one(ConversationView).set_messages(session.messages)
        self.query_one("#input-view", TextViewer).placeholder = "building prompt…"
        # The prompt is built once the gauge's first figure is on screen: started at once,
        # formatting and rendering it held the GIL against that frame.
        self.count_tokens(then_build_prompt=True)

    @cached_property
    def token_counter(self) -> TokenCounter:
        """One cache for the gauge, the rows and the projection: a recount after a model
        switch re-encodes nothing."""
        return TokenCounter()

    @work(thread=True, exclusive=True, group="tokens", exit_on_error=False)
    def count_tokens(self, then_build_prompt: bool = False) -> None:
        from goose_tui.tokens import context_usage

        session = self.session
        assert session is not None
        counter, gauge = self.token_counter, self.query_one(ContextGauge)
        worker = get_current_worker()
        usage_options = {
            "model": self.tui.usage_model,
            "context_limit": self.tui.context_limit,
            "threshold": self.tui.threshold,
        }
        if session.usage.total_tokens is not None:
            # A count Goose reported needs no tokenizer: show it before the estimates.
            reported = context_usage(session, **usage_options)
            self.app.call_from_thread(setattr, gauge, "usage", reported)
        # Count after the next frame: building the tokenizer (~0.6 s) holds the GIL, and
        # started at once it would hold back the first frame of a new session as long.
        painted = threading.Event()
        self.app.call_from_thread(self.call_after_refresh, painted.set)
        painted.wait(timeout=2)
        if then_build_prompt:  # even if a newer count replaces this one
            self.app.call_from_thread(self.build_prompt)
        total = len(session.messages)
        step = max(total // 200, 50)  # ~200 progress updates however long the session
        counts: list[int] = []
        for number, message in enumerate(session.messages):
            if number % step == 0:
                if worker.is_cancelled:  # a newer count (model switch) replaced this one
                    return
                gauge.report_progress(number, total)
            counts.append(counter.count(message))
        gauge.report_progress(total, total)
        usage = context_usage(session, counter=counter, **usage_options)
        self.app.call_from_thread(self._show_counts, counts, usage)

    def _show_counts(self, counts: list[int], usage: object) -> None:
        self.query_one(ConversationView).set_token_counts(counts)
        self.query_one(ContextGauge).usage = usage  # type: ignore[assignment]

    @work(thread=True, exclusive=True, group="prompt", exit_on_error=False)
    def build_prompt(self) -> None:
        from goose_tui.compaction.summarize import build_request

        assert self.session is not None
        request = build_request(
            self.session.messages,
            self.tui.templates,
            self.focus_text,
            profile=self.tui.goose_profile,
        )
        self.app.call_from_thread(self._show_prompt, request.system_prompt, "as it will be sent")

    def _show_prompt(self, prompt: str, note: str) -> None:
        self.system_prompt = prompt
        self._prompt_note = note
        self.query_one("#input-view", TextViewer).set_text(prompt)
        self._show_template_origin()

    def _show_template_origin(self) -> None:
        note = self._prompt_note
        title = f"input · {note}" if note else "input"
        if self.focus_text:
            title += f" · focus: {self.focus_text}"
        self.query_one("#pane-input", Pane).set_title(
            title, self.tui.describe_template("compaction.md")
        )
        self.query_one("#pane-markdown", Pane).set_title(
            "markdown", self.tui.describe_template("compaction_summary.md")
        )

    # -- compaction ------------------------------------------------------------------------

    def action_compact(self) -> None:
        if self.session is None:
            self.notify("no session loaded yet")
            return
        if any(w.group == "compact" and w.is_running for w in self.workers):
            self.notify("a compaction is already running; escape cancels it")
            return
        self.compact()

    @work(exclusive=True, group="compact", exit_on_error=False)
    async def compact(self) -> None:
        from goose_tui.compaction.reply_check import UnusableReply, reply_problem
        from goose_tui.compaction.summarize import summarize

        assert self.session is not None
        status = self.query_one(CompactionStatus)
        analysis = self.query_one("#analysis-view", TextViewer)
        analysis.set_text("")
        self.query_one("#pane-analysis", Pane).set_title("analysis · reply streaming")
        status.model, status.attempt, status.received_chars, status.note = (
            self.tui.model,
            None,
            0,
            "",
        )
        status.state = "running"
        if self._client_importing():
            status.note = IMPORTING_NOTE
        self._started = self.tui.clock()
        self._ticker = self.set_interval(0.1, self._tick)
        try:
            summarizer = self.tui.make_summarizer()

            def on_attempt(attempt: Attempt) -> None:
                status.attempt = attempt
                if attempt.outcome == "running":
                    analysis.set_text("")
                    status.received_chars = 0

            def on_chunk(chunk: str) -> None:
                analysis.append(chunk)
                status.received_chars += len(chunk)

            result = await summarize(
                self.session.messages,
                summarizer,
                self.tui.templates,
                on_attempt=on_attempt,
                on_chunk=on_chunk,
                focus=self.focus_text,
                profile=self.tui.goose_profile,
            )
            problem = reply_problem(result.raw_response, result.extraction.structured is not None)
            if problem is not None:
                raise UnusableReply(problem)
        except BaseException:  # failed or cancelled: what streamed in is kept, but say so
            self.query_one("#pane-analysis", Pane).set_title("analysis · partial reply, not used")
            raise
        finally:
            self._tick()
            if self._ticker is not None:
                self._ticker.stop()
        self._show_result(result)

    def _tick(self) -> None:
        status = self.query_one(CompactionStatus)
        status.elapsed = self.tui.clock() - self._started
        if status.note == IMPORTING_NOTE and not self._client_importing():
            status.note = ""

    def _client_importing(self) -> bool:
        """Whether the model's client (litellm) is still being imported in the background."""
        from goose_tui.llm.spec import ModelSpec

        if not ModelSpec.parse(self.tui.model).is_litellm:
            return False
        from goose_tui.llm.litellm_backend import litellm_ready

        return not litellm_ready()

    def _show_result(self, result: CompactionResult) -> None:
        self.result = result
        status = self.query_one(CompactionStatus)
        status.state = "done"
        if result.attempts:
            status.attempt = result.attempts[-1]
        usage = result.usage
        status.note = f"usage in {usage.input_tokens} / out {usage.output_tokens}"
        self._show_prompt(result.request.system_prompt, "as sent")
        gauge = self.query_one(ContextGauge)
        assert self.session is not None
        projected = self.token_counter.total([result.summary_message])
        replaced = self.token_counter.total(self.session.messages)
        gauge.projected, gauge.replaced = projected, replaced
        if not_smaller(replaced, projected):
            self.notify(
                f"the summary ({projected:,} tokens) is not smaller than the history it "
                f"replaces ({replaced:,} tokens): compacting frees no context",
                title="summary not smaller",
                severity="warning",
                timeout=10,
            )
        self._reply_loaded = inert(result.raw_response)
        self._reply_editor.load_text(self._reply_loaded)
        self._show_extraction(result.extraction, result.summary)
        self.mark_saved()  # a new compaction is the new starting point for hand edits

    def mark_saved(self) -> None:
        self._saved_edits = (self._json_editor.text, self._reply_editor.text)

    def unsaved_edits(self) -> list[str]:
        """The hand edits that were not saved since the last compaction or save."""
        json_text, reply_text = self._saved_edits
        edits = []
        if self._json_editor.text != json_text:
            edits.append("the hand-edited summary JSON")
        if self._reply_editor.text != reply_text:
            edits.append("the hand-edited reply")
        return edits

    def _show_extraction(self, extraction: Extraction, summary_text: str) -> None:
        self._remember_summary()
        self.extraction = extraction
        self.structured = extraction.structured
        self.summary_text = summary_text
        analysis = extraction.analysis
        viewer = self.query_one("#analysis-view", TextViewer)
        viewer.set_text(analysis if analysis else "(the reply has no <analysis> block)")
        self.query_one("#pane-analysis", Pane).set_title("analysis · discarded by Goose")
        banner = self.query_one("#fields-banner", Banner)
        if extraction.structured is None:
            banner.show(f"raw-text fallback: {extraction.fallback_reason}", "fallback")
        elif extraction.candidate is not None:
            banner.show(f"read {extraction.candidate.describe()}")
        self.query_one(FieldsTree).show_summary(extraction.structured)
        self._json_loaded = _json_text(extraction.structured)
        self._json_editor.load_text(self._json_loaded)
        self.query_one(SummaryPreview).set_markdown(summary_text)
        self._json_state = "loaded"
        self._loaded_view = (
            extraction.structured,
            summary_text,
            banner.shown,
            self.tui.templates.summary,
        )

    def action_cancel(self) -> None:
        if isinstance(self.focused, TextArea):
            # Leave the editor (escape never types into it), staying in its pane.
            self.query_one("#fields-tabs", TabbedContent).query_one(Tabs).focus()
            return
        if self.screen.maximized is not None:
            self.screen.minimize()
            return
        search = self.query_one("#search", Input)
        if search.display:
            search.display = False
            self.query_one("#input-view").focus()
            return
        cancelled = self.workers.cancel_group(self, "compact")
        if any(w.is_running for w in cancelled):
            self.notify("compaction cancelled")

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker.group == "compact":
            status = self.query_one(CompactionStatus)
            if event.state == WorkerState.CANCELLED:
                status.state = "cancelled"
                if self._ticker is not None:
                    self._ticker.stop()
            elif event.state == WorkerState.ERROR:
                status.state = "failed"
                self.tui.show_error("Compaction failed", self._describe_error(worker.error))
        elif event.state == WorkerState.ERROR:
            self.tui.show_error(f"{worker.group} failed", self._describe_error(worker.error))

    @staticmethod
    def _describe_error(error: BaseException | None) -> str:
        text = f"{type(error).__name__}: {error}"
        if isinstance(error, CompactionFailed):
            tried = "\n".join(
                f"  {a.removed_percent:>3}% removed ({a.removed_messages} messages): {a.outcome}"
                + (f" — {a.error}" if a.error else "")
                for a in error.attempts
            )
            text += f"\n\nattempts:\n{tried}"
        return text

    # -- hand-editing ----------------------------------------------------------------------

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        area = event.text_area
        if area.id == "json-editor":
            if area.text == self._json_loaded:
                self._back_to_loaded()  # an undo back to the loaded JSON: at once
            elif self._json_state == "invalid" and self._parses(area.text):
                self.workers.cancel_group(self, "debounce-json")
                self.reread_json()  # valid again: the "invalid JSON" banner goes at once
            else:
                debounce(self, "json", self.reread_json)
        elif area.id == "reply-editor" and area.text != self._reply_loaded:
            debounce(self, "reply", self.reread_reply)

    @staticmethod
    def _parses(text: str) -> bool:
        try:
            StructuredSummary.parse_json_text(text)
        except ValueError:
            return False
        return True

    def _back_to_loaded(self) -> None:
        self.workers.cancel_group(self, "debounce-json")
        self.workers.cancel_group(self, "render-summary")  # a render of an edit is stale
        if self._json_state == "loaded":
            return
        structured, summary_text, banner, templates = self._loaded_view
        if templates != self.tui.templates.summary:  # rendered with a template since changed
            self.reread_json()
            return
        self._json_state = "loaded"
        self._remember_summary()
        self.structured, self.summary_text = structured, summary_text
        self.query_one("#fields-banner", Banner).show(*banner)
        self.query_one(FieldsTree).show_summary(structured)
        self.query_one(SummaryPreview).set_markdown(summary_text)

    def reread_json(self) -> None:
        banner = self.query_one("#fields-banner", Banner)
        try:
            summary = StructuredSummary.parse_json_text(self._json_editor.text).normalized()
        except ValueError as exc:
            self._json_state = "invalid"
            banner.show(f"invalid JSON: {exc} — showing the last good render", "error")
            return
        self._json_state = "edited"
        banner.show("edited by hand: read leniently, rendering…")
        templates = self.tui.templates

        def show(rendered: str | TemplateError) -> None:
            if isinstance(rendered, TemplateError):
                message = f"template error: {rendered} — showing the last good render"
                banner.show(message, "error")
                return
            self._remember_summary()
            self.structured, self.summary_text = summary, rendered
            banner.show("edited by hand: read leniently and re-rendered")
            self.query_one(FieldsTree).show_summary(summary)
            self.query_one(SummaryPreview).set_markdown(rendered)

        self.render_off_thread(lambda: render_summary(templates, summary), show)

    def reread_reply(self) -> None:
        from goose_tui.compaction.summarize import finish

        reply, templates = restore(self._reply_editor.text), self.tui.templates

        def show(result: tuple[Extraction, str] | TemplateError) -> None:
            if isinstance(result, TemplateError):
                self.query_one("#fields-banner", Banner).show(f"template error: {result}", "error")
                return
            self._show_extraction(*result)

        self.render_off_thread(lambda: finish(reply, templates), show)

    @work(thread=True, exclusive=True, group="render-summary", exit_on_error=False)
    def render_off_thread(self, job: Callable[[], Any], show: Callable[[Any], None]) -> None:
        """Run ``job`` (it renders the summary template) off the UI thread, so a slow
        template never freezes the app, then ``show`` its result (or its TemplateError) on
        the UI thread. A newer job cancels this one: its result is then dropped."""
        self._off_thread(job, show)

    @work(thread=True, exclusive=True, group="render-templates", exit_on_error=False)
    def render_with_templates(self, job: Callable[[], Any], show: Callable[[Any], None]) -> None:
        """The same for changed templates (the editor, a file on disk): a group of its own,
        so a hand edit does not drop a template change, or the other way round."""
        self._off_thread(job, show)

    def _off_thread(self, job: Callable[[], Any], show: Callable[[Any], None]) -> None:
        worker = get_current_worker()
        try:
            result = job()
        except TemplateError as exc:
            result = exc

        def deliver() -> None:
            if not worker.is_cancelled:
                show(result)

        self.app.call_from_thread(deliver)

    def try_templates(self, new: Templates, done: Callable[[str | None], None]) -> None:
        """Use ``new`` once the summary renders with it (off the UI thread); on a template
        error keep the last good templates and render. ``done`` gets the error or None."""
        structured = self.structured
        if structured is None or new.summary == self.tui.templates.summary:
            self._use_templates(new, None)
            done(None)
            return

        def show(rendered: str | TemplateError) -> None:
            if isinstance(rendered, TemplateError):
                message = f"template error: {rendered} — showing the last good render"
                self.query_one("#fields-banner", Banner).show(message, "error")
                done(str(rendered))
                return
            self._use_templates(new, rendered)
            done(None)

        self.render_with_templates(lambda: render_summary(new, structured), show)

    def _use_templates(self, new: Templates, rendered: str | None) -> None:
        old, self.tui.templates = self.tui.templates, new
        self._show_template_origin()
        if self.session is not None and new.compaction.text != old.compaction.text:
            self.build_prompt()
        if rendered is not None:
            self.summary_text = rendered
            self.query_one(SummaryPreview).set_markdown(rendered)
            self.query_one("#fields-banner", Banner).show("re-rendered with the changed template")

    # -- pane actions ----------------------------------------------------------------------

    def _focused_pane(self) -> Pane | None:
        node = self.focused
        while node is not None and not isinstance(node, Pane):
            node = node.parent  # type: ignore[assignment]
        return node

    def action_maximize_pane(self) -> None:
        if self.maximized is not None:
            self.minimize()
            return
        pane = self._focused_pane()
        if pane is None:
            self.notify("focus a pane first (tab), then press f")
            return
        self.maximize(pane, container=False)

    def action_copy_pane(self) -> None:
        pane = self._focused_pane()
        if pane is None:
            self.notify("focus a pane first (tab), then press y")
            return
        from goose_tui.tui.clipboard import copy_text

        name = pane.id.removeprefix("pane-") if pane.id else ""
        copy_text(self.app, pane.copy_source(), f"the {name} pane")

    def action_search(self) -> None:
        self._show_pane("input")
        self.query_one(Tabs).active = "tab-input"
        search = self.query_one("#search", Input)
        search.display = True
        search.focus()

    @on(Input.Changed, "#search")
    def _search_changed(self, event: Input.Changed) -> None:
        self.query_one("#input-view", TextViewer).search = event.value

    @on(Input.Submitted, "#search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        viewer = self.query_one("#input-view", TextViewer)
        viewer.focus()
        count = len(viewer.matches)
        self.notify(f"{count} matches (n / N to move)" if count else "no match", markup=False)

    def action_toggle_markdown(self) -> None:
        self.query_one(SummaryPreview).action_toggle_source()

    def action_edit_json(self) -> None:
        self._show_pane("fields")
        self.query_one("#fields-tabs", TabbedContent).active = "fields-json-tab"
        self._json_editor.focus()

    def action_edit_reply(self) -> None:
        self._show_pane("fields")
        self.query_one("#fields-tabs", TabbedContent).active = "fields-reply-tab"
        self._reply_editor.focus()

    def action_ask_focus(self) -> None:
        from goose_tui.tui.screens.input_prompt import InputPrompt

        def answered(value: str | None) -> None:
            if value is None or value == self.focus_text:
                return
            self.focus_text = value
            self.notify(f"focus: {value}" if value else "focus cleared", markup=False)
            if self.session is not None:
                self.build_prompt()
            else:
                self._show_template_origin()

        note = (
            "Added to the compaction prompt as {{ focus }} (appended as its last paragraph "
            "when the template does not use it); applies to every compaction until cleared. "
            "Empty clears it."
        )
        self.app.push_screen(
            InputPrompt(
                "Focus for the summary (what it must keep):",
                self.focus_text,
                note=note,
                allow_empty=True,
            ),
            answered,
        )

    def action_save(self) -> None:
        self.tui.ask_save()

    def action_edit_template(self, name: str) -> None:
        self.tui.edit_template(name)

    # -- analysis screens (what was lost, compare, timeline) -------------------------------

    def action_retention(self) -> None:
        from goose_tui.tui.screens.retention_screen import open_retention

        open_retention(self)

    def action_switch_profile(self) -> None:
        """The next Goose version's conversation format (profiles.py); the input pane is
        rendered again so the user sees what changed."""
        self.tui.set_goose_profile(next_profile(self.tui.goose_profile))

    def profile_changed(self) -> None:
        self.query_one(CompactionStatus).profile = self.tui.goose_profile
        if self.session is not None:
            self.build_prompt()

    def action_timeline(self) -> None:
        from goose_tui.tui.screens.timeline_screen import open_timeline

        open_timeline(self)

    def action_context(self) -> None:
        from goose_tui.tui.screens.context_screen import open_context

        open_context(self)

    def on_context_gauge_clicked(self) -> None:
        self.action_context()

    def action_compare(self) -> None:
        from goose_tui.tui.screens.compare_screen import open_compare

        open_compare(self)

    def _remember_summary(self) -> None:
        if self.summary_text:
            self.previous_summary = (self.structured, self.summary_text)
