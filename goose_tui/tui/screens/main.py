"""The inspector: gauge, conversation, compaction status and the four panes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Input, Static, Tab, Tabs, TextArea
from textual.worker import Worker, WorkerState

from goose_tui.compaction.profiles import GooseProfile, next_profile
from goose_tui.compaction.summarize import Attempt, CompactionResult
from goose_tui.compaction.templates import Templates
from goose_tui.inert import inert
from goose_tui.inspector import NO_SUMMARY, Inspector, Notice
from goose_tui.session.models import Session, warnings_note
from goose_tui.tui.messages import (
    GooseProfileRequested,
    PaneDrawn,
    SaveRequested,
    TemplateEditRequested,
    TemplateOriginsChanged,
    WorkerErrorsUp,
)
from goose_tui.tui.screens.confirm import confirm_then
from goose_tui.tui.widgets.compaction_status import (
    COMPACT_BINDING,
    CompactionStatus,
    compact_key,
    no_session_hint,
    open_key,
)
from goose_tui.tui.widgets.context_gauge import ContextGauge
from goose_tui.tui.widgets.conversation_view import ConversationView
from goose_tui.tui.widgets.fields_pane import FieldsPane
from goose_tui.tui.widgets.goose_footer import GooseFooter
from goose_tui.tui.widgets.pane import Pane
from goose_tui.tui.widgets.prompt_pane import PromptPane
from goose_tui.tui.widgets.summary_preview import SummaryPreview
from goose_tui.tui.widgets.text_viewer import TextViewer

WIDE_COLUMNS = 160  # below this the four panes become tabs
PANES = ("input", "analysis", "fields", "markdown")


# Below WIDE_COLUMNS the panes are tabs: these switch them (offered only then).
PANE_BINDINGS = (
    Binding("right_square_bracket", "next_pane(1)", "Next pane", id="main.next_pane"),
    Binding(
        "left_square_bracket", "next_pane(-1)", "Previous pane", id="main.previous_pane", show=False
    ),
)


class MainScreen(WorkerErrorsUp, Screen[None]):
    # Escape goes through the bindings: in an editor it leaves the editor first (the fields
    # pane's binding), and the screen's own escape restores a maximised pane.
    ESCAPE_TO_MINIMIZE = False
    BINDINGS = [
        COMPACT_BINDING,
        *PANE_BINDINGS,
        Binding("escape", "cancel", "Cancel", id="main.cancel"),
        Binding("slash", "search", "Search prompt", id="main.search"),
        Binding("m", "toggle_markdown", "MD source", id="main.toggle_markdown"),
        Binding("f", "maximize_pane", "Maximize", id="main.maximize"),
        Binding("y", "copy_pane", "Copy pane", id="main.copy"),
        Binding("e", "edit_json", "Edit JSON", id="main.edit_json"),
        Binding("r", "edit_reply", "Edit reply", id="main.edit_reply"),
        Binding("s", "save", "Save", id="main.save"),
        Binding(
            "x",
            "report",
            "Report",
            id="main.report",
            show=False,
            tooltip="write this inspection as Markdown and an HTML page to share",
        ),
        Binding("t", "edit_template('compaction_summary.md')", "Summary tmpl", id="main.tmpl"),
        Binding(
            "T", "edit_template('compaction.md')", "Prompt tmpl", id="main.prompt_tmpl", show=False
        ),
        Binding(
            "E",
            "edit_template('compaction_summary.md', True)",
            "Summary tmpl in $EDITOR",
            id="main.tmpl_external",
            show=False,
        ),
        Binding("D", "template_diff", "Template diff", id="main.template_diff", show=False),
        Binding(
            "l",
            "retention",
            "Lost?",
            id="main.retention",
            tooltip="what the summary lost: retention of the session's facts, and probes "
            "(questions the summary should answer)",
        ),
        Binding("v", "compare", "Compare", id="main.compare"),
        Binding("g", "timeline", "Timeline", id="main.timeline"),
        Binding("u", "context", "Context", id="main.context"),
        Binding("k", "ask_focus", "Focus", id="main.focus"),
        Binding("p", "switch_profile", "Goose version", id="main.profile", show=False),
    ]

    # Set by the app (attributes down); each one redraws what shows it.
    model_name: reactive[str] = reactive("offline", init=False, always_update=True)
    profile: reactive[GooseProfile] = reactive("goose-sdk-wheel", init=False, always_update=True)
    # The templates in use, and what the pane borders say of them ("…: built-in", …).
    templates: reactive[Templates | None] = reactive(None, init=False)
    template_origins: reactive[tuple[str, str]] = reactive(("", ""), init=False)
    # The inspector's report on the current summary, over the fields (the fields pane changes
    # it too, so the same notice set again is drawn again).
    notice: reactive[Notice] = reactive(NO_SUMMARY, init=False, always_update=True)

    def __init__(self, inspector: Inspector, clock: Callable[[], float]) -> None:
        super().__init__()
        self.inspector = inspector
        self.clock = clock  # the status line's, injectable for snapshots
        # Reply text streamed in since the last tick: drawn in one piece per tick.
        self._streamed: list[str] = []
        self.set_reactive(MainScreen.model_name, inspector.model.name)
        self.set_reactive(MainScreen.profile, inspector.goose_profile)
        self.set_reactive(MainScreen.templates, inspector.templates)
        self.set_reactive(MainScreen.template_origins, self.inspector.template_origins())

    # -- layout ----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        inspector = self.inspector
        yield Static(Content("goose-tui · loading…"), id="session-title")
        yield ContextGauge(inspector, id="gauge")
        yield ConversationView(id="conversation")
        yield CompactionStatus(clock=self.clock, id="status")
        yield Tabs(*(Tab(name, id=f"tab-{name}") for name in PANES), id="pane-tabs")
        with Horizontal(id="panes"):
            yield PromptPane(inspector, id="pane-input")
            with Pane("analysis", copy_source=self._analysis_text, id="pane-analysis"):
                yield TextViewer(
                    id="analysis-view",
                    placeholder=f"press {compact_key(self.app)} to compact",
                    wrap=True,
                )
            yield FieldsPane(inspector, id="pane-fields")
            with Pane("markdown", copy_source=lambda: inspector.summary.text, id="pane-markdown"):
                yield SummaryPreview(id="preview")
        yield GooseFooter()

    def on_mount(self) -> None:
        self.query_one(CompactionStatus).model = self.model_name
        self.query_one(CompactionStatus).profile = self.profile
        self.query_one(CompactionStatus).compact_key = compact_key(self.app)
        self._layout_for(self.size.width)
        self.watch_template_origins(self.template_origins)

    def on_resize(self) -> None:
        self._layout_for(self.size.width)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "next_pane":
            return self.narrow  # the panes are tabs only then
        if action == "search":
            # `/` types into an editor or a field; Textual cannot tell that its key ("slash")
            # is a character they take, so the footer would offer a search it does not do.
            return not isinstance(self.focused, TextArea | Input)
        return True

    @property
    def narrow(self) -> bool:
        return self.size.width < WIDE_COLUMNS

    @property
    def tab_pane(self) -> str:
        """The name of the pane whose tab is active (shown when the panes are tabs)."""
        return (self.query_one(Tabs).active or "tab-input").removeprefix("tab-")

    def action_next_pane(self, step: int) -> None:
        index = (PANES.index(self.tab_pane) + step) % len(PANES)
        self.query_one(Tabs).active = f"tab-{PANES[index]}"

    def _layout_for(self, width: int) -> None:
        narrow = width < WIDE_COLUMNS
        if narrow != self.query_one("#panes").has_class("-narrow"):
            self.refresh_bindings()  # the pane keys come and go with the tabs
        panes = self.query_one("#panes")
        panes.set_class(narrow, "-narrow")
        self.query_one("#pane-tabs").display = narrow
        self._show_pane(self.tab_pane)

    def _show_pane(self, name: str) -> None:
        for pane in PANES:
            self.query_one(f"#pane-{pane}").set_class(pane == name, "-active")
        # The tab bar names the pane shown, so that ] and [ go on from it.
        self.query_one(Tabs).active = f"tab-{name}"

    @on(Tabs.TabActivated, "#pane-tabs")
    def _tab_activated(self, event: Tabs.TabActivated) -> None:
        self._show_pane(str(event.tab.id).removeprefix("tab-"))

    @property
    def fields(self) -> FieldsPane:
        return self.query_one(FieldsPane)

    @property
    def prompt_pane(self) -> PromptPane:
        return self.query_one(PromptPane)

    def _analysis_text(self) -> str:
        return self.query_one("#analysis-view", TextViewer).text

    # -- what the app sets -----------------------------------------------------------------

    def watch_model_name(self, name: str) -> None:
        self.query_one(CompactionStatus).set_next(name, self.profile)
        self._show_request_notes()
        if self.inspector.session is not None:
            self.query_one(ContextGauge).count()

    def watch_profile(self, profile: GooseProfile) -> None:
        self.query_one(CompactionStatus).set_next(self.model_name, profile)
        if self.inspector.session is not None:
            self.prompt_pane.build()

    def watch_notice(self, notice: Notice) -> None:
        self.fields.notice = notice

    def watch_template_origins(self, origins: tuple[str, str]) -> None:
        compaction, summary = origins
        self.prompt_pane.template_origin = compaction
        self.query_one("#pane-markdown", Pane).set_title("markdown", summary)
        self.post_message(TemplateOriginsChanged(compaction, summary))

    def watch_templates(self, old: Templates | None, new: Templates | None) -> None:
        """Templates swapped in (the summary already rendered with them, by the app)."""
        self.template_origins = self.inspector.template_origins()
        if old is None or new is None:
            return
        if self.inspector.session is not None and new.compaction.text != old.compaction.text:
            self.prompt_pane.build()
        preview = self.query_one(SummaryPreview)
        if new.summary != old.summary and preview.markdown != self.inspector.summary.text:
            self._show_markdown()
        self.notice = self.inspector.notice

    def select_message(self, index: int, highlight: list[int] | None = None) -> None:
        """Select (highlight and scroll to) message ``index``; mark ``highlight`` too."""
        view = self.query_one(ConversationView)
        view.selected = index
        view.focus()
        if highlight:
            view.highlight(highlight)

    # -- the session -----------------------------------------------------------------------

    def show_no_session(self) -> None:
        """The first session could not be opened: the screen says so, instead of "loading…"
        for ever."""
        if self.inspector.session is not None:
            return  # another session failed to open: the one shown stays
        hint = no_session_hint(self.app)
        self.query_one("#session-title", Static).update(
            Content(
                inert(
                    "goose-tui · no session open (it could not be read) · "
                    f"{open_key(self.app)} opens one"
                )
            )
        )
        self.query_one(ContextGauge).waiting = "no session"
        self.query_one("#input-view", TextViewer).placeholder = "no session"
        self.query_one(CompactionStatus).no_session = hint
        self.query_one("#analysis-view", TextViewer).placeholder = hint

    def show_session(self, session: Session) -> None:
        # Nothing of the last session's compaction carries over: a compaction still running
        # would land on this one, a stale projection or render would be drawn over it.
        if any(w.is_running for w in self.workers.cancel_group(self, "compact")):
            self.notify("the compaction of the last session was cancelled")
        self.query_one(ContextGauge).reset()
        first = self.inspector.session is None
        self.inspector.load(session)
        if not first:  # (the first one has nothing to clear, and may come before the panes)
            self._show_no_summary()
        elif self.query_one(CompactionStatus).no_session:  # after one that could not be read
            self.query_one(CompactionStatus).no_session = ""
            self.query_one(
                "#analysis-view", TextViewer
            ).placeholder = f"press {compact_key(self.app)} to compact"
        title = f"{session.title} · {len(session.messages):,} messages"
        if session.warnings:
            # Before the path, which a narrow terminal cuts first; and said once as a toast,
            # since the title line may not hold it at all.
            note = warnings_note(session.warnings)
            title += f" · {note}"
            self.notify(note, severity="warning", markup=False)
        if session.source_path:
            title += f" · {session.source_path}"
        self.query_one("#session-title", Static).update(Content(inert(title)))
        self.query_one(ConversationView).set_messages(session.messages)
        self.query_one("#input-view", TextViewer).placeholder = "building prompt…"
        # Counted, and the prompt built, once the new session is on screen: building the
        # tokenizer, formatting and rendering the prompt hold the GIL against that frame.
        self.call_after_refresh(self.query_one(ContextGauge).count)
        self.call_after_refresh(self.prompt_pane.build)

    def _show_no_summary(self) -> None:
        """The panes as before a first compaction (the inspector has just forgotten it)."""
        status = self.query_one(CompactionStatus)
        status.state, status.attempt, status.received_chars, status.note = "idle", None, 0, ""
        status.set_next(self.model_name, self.profile)
        self.query_one("#input-view", TextViewer).set_text("")
        analysis = self.query_one("#analysis-view", TextViewer)
        analysis.set_text("")
        analysis.placeholder = f"press {compact_key(self.app)} to compact"
        self.query_one("#pane-analysis", Pane).set_title("analysis")
        self.fields.reset()
        self._show_markdown()

    @on(ContextGauge.Counted)
    def _counted(self, event: ContextGauge.Counted) -> None:
        self.query_one(ConversationView).set_token_counts(event.tokens, event.in_context)
        prompt = self.prompt_pane
        if not prompt.counting:  # the first counts are in: what waited for them starts
            prompt.counting = True
            self.query_one(SummaryPreview).prepare()

    @on(PromptPane.Changed)
    def _show_request_notes(self) -> None:
        """Before `c`: whether the request fits the summarizer's own window, and what it
        would cost a priced model (nothing for the others)."""
        from goose_tui.analysis.compare import estimate_note

        inspector, status = self.inspector, self.query_one(CompactionStatus)
        fit = inspector.request_fit()
        status.fit = f"request {fit.verdict()}" if fit is not None else ""
        status.estimate = estimate_note(inspector.model.model, inspector.prompt.tokens)

    # -- compaction ------------------------------------------------------------------------

    @property
    def compacting(self) -> bool:
        return any(w.group == "compact" and w.is_running for w in self.workers)

    def action_compact(self) -> None:
        if self.inspector.session is None:
            self.notify(no_session_hint(self.app))
            return
        if self.compacting:
            self.notify("a compaction is already running; escape cancels it")
            return
        lost = self.inspector.unsaved_summary_edits()
        if not lost:
            self.compact()
            return
        question = f"A new compaction replaces {' and '.join(lost)} (s saves it). Compact anyway?"
        confirm_then(self.app, question, self.compact)

    @work(exclusive=True, group="compact", exit_on_error=False)
    async def compact(self) -> None:
        status = self.query_one(CompactionStatus)
        analysis = self.query_one("#analysis-view", TextViewer)
        analysis.set_text("")
        analysis.placeholder = "waiting for the reply…"
        self._streamed.clear()
        self.query_one("#pane-analysis", Pane).set_title("analysis · reply streaming")
        model = self.inspector.model
        timeout = model.timeout if model.is_litellm else None
        status.start(model.name, self.profile, timeout, model.client_ready)
        self.fields.locked = True
        # The compaction's threads (building the request, counting it, sending it) start
        # once the frame saying "running" is out, which they would hold back.
        await self._next_frame()

        def on_attempt(attempt: Attempt) -> None:
            previous, status.attempt = status.attempt, attempt
            # A rung starts (its count is reported later as the same running attempt).
            if attempt.outcome == "running" and not (
                previous is not None
                and previous.outcome == "running"
                and previous.removed_percent == attempt.removed_percent
            ):
                self._streamed.clear()
                analysis.set_text("")
                status.call_starts()

        def on_chunk(chunk: str) -> None:
            # Kept until the next tick: a model may stream tens of thousands of chunks, and
            # the pane and the status are drawn once per tick, not per chunk.
            self._streamed.append(chunk)

        try:
            # The status line shows the tokens sent; the usage is counted off the loop.
            result = await self.inspector.compact(
                on_chunk=on_chunk, on_attempt=on_attempt, estimate_tokens=True
            )
        except BaseException as exc:  # failed or cancelled: what streamed in is kept, say so
            received = bool(self._streamed) or status.received_chars > 0
            self.query_one("#pane-analysis", Pane).set_title(
                "analysis · partial reply, not used" if received else "analysis · no reply"
            )
            key = compact_key(self.app)
            analysis.placeholder = (
                f"cancelled before any reply · press {key} to compact again"
                if isinstance(exc, asyncio.CancelledError)
                else f"the compaction failed before any reply · press {key} to try again"
            )
            if self.inspector.result is not None:  # the panes still show the one before
                self.notice = self.inspector.notice
            raise
        finally:
            self.fields.locked = False
            self._draw_streamed()
            status.stop()
        self._show_result(result)
        # The summary's panes from the frame after "done" on, a pane per turn of the loop: a
        # long reply's, drawn in one callback, would hold the loop.
        steps = [self._show_analysis, self.fields.show_summary, self._show_loaded_json]
        self.call_after_refresh(self._show_compacted, result, steps)

    def _show_compacted(self, result: CompactionResult, steps: list[Callable[[], None]]) -> None:
        if steps and self.inspector.result is result:  # not another session or compaction
            steps.pop(0)()
            self.call_later(self._show_compacted, result, steps)

    def _show_loaded_json(self) -> None:
        self.fields.load_json()
        self._show_markdown()

    async def _next_frame(self) -> None:
        """Return once the screen has been refreshed with what was set before the call."""
        painted = asyncio.Event()
        self.call_after_refresh(painted.set)
        await painted.wait()

    @on(CompactionStatus.Ticked)
    def _draw_streamed(self) -> None:
        if self._streamed:
            text = "".join(self._streamed)
            self._streamed.clear()
            self.query_one("#analysis-view", TextViewer).append(text)
            self.query_one(CompactionStatus).received_chars += len(text)

    def _show_result(self, result: CompactionResult) -> None:
        """Draw the compaction the inspector has just made current, but for its summary's
        panes (``_show_compacted``, from the next frame on)."""
        status = self.query_one(CompactionStatus)
        status.state = "done"
        if result.attempts:
            status.attempt = result.attempts[-1]
        status.note = usage_note(result)
        self.prompt_pane.draw()  # the inspector has it "as sent"
        self.fields.load_reply()

    def _show_markdown(self) -> None:
        """The summary as it is now (compacted, hand-edited, re-rendered): its preview, and
        the gauge's "after compaction", which counts the message that would replace the
        history."""
        summary = self.inspector.summary.text
        self.query_one(SummaryPreview).set_markdown(summary)
        self.post_message(PaneDrawn("markdown", summary))
        self.query_one(ContextGauge).project(summary if self.inspector.has_summary() else None)

    def _show_analysis(self) -> None:
        """The analysis pane: the <analysis> block of the reply the summary was read from."""
        extraction = self.inspector.extraction
        analysis = extraction.analysis if extraction is not None else ""
        viewer = self.query_one("#analysis-view", TextViewer)
        viewer.set_text(analysis if analysis else "(the reply has no <analysis> block)")
        self.query_one("#pane-analysis", Pane).set_title("analysis · discarded by Goose")

    @on(FieldsPane.SummaryChanged)
    def _summary_edited(self, event: FieldsPane.SummaryChanged) -> None:
        if event.extracted:
            self._show_analysis()
        self._show_markdown()

    def action_cancel(self) -> None:
        if self.screen.maximized is not None:
            self.screen.minimize()
            return
        if self.prompt_pane.close_search():
            return
        cancelled = self.workers.cancel_group(self, "compact")
        if any(w.is_running for w in cancelled):
            self.notify("compaction cancelled")

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker.group == "compact":
            status = self.query_one(CompactionStatus)
            if event.state == WorkerState.CANCELLED and status.state == "running":
                status.state = "cancelled"  # not over a new session's "idle"
            elif event.state == WorkerState.ERROR:  # the app shows the error (WorkerErrorsUp)
                status.state = "failed"

    # -- pane actions ----------------------------------------------------------------------

    def _focused_pane(self) -> Pane | None:
        node = self.focused
        while node is not None and not isinstance(node, Pane):
            node = node.parent  # type: ignore[assignment]
        return node

    def _pane_to_act_on(self) -> Pane:
        """The focused pane, else the one the user is looking at: the tab shown when the
        panes are tabs, else the summary once there is one, else the prompt."""
        pane = self._focused_pane()
        if pane is not None:
            return pane
        if self.narrow:
            name = self.tab_pane
        else:
            name = "markdown" if self.inspector.result is not None else "input"
        return self.query_one(f"#pane-{name}", Pane)

    def action_maximize_pane(self) -> None:
        if self.maximized is not None:
            self.minimize()
            return
        self.maximize(self._pane_to_act_on(), container=False)

    def action_copy_pane(self) -> None:
        pane = self._pane_to_act_on()
        from goose_tui.tui.clipboard import copy_text

        name = pane.id.removeprefix("pane-") if pane.id else ""
        copy_text(self.app, pane.copy_source(), f"the {name} pane")

    def action_search(self) -> None:
        self._show_pane("input")
        self.prompt_pane.open_search()

    def action_toggle_markdown(self) -> None:
        self.query_one(SummaryPreview).action_toggle_source()

    def action_edit_json(self) -> None:
        self._show_pane("fields")
        # As tabs only one pane shows anyway: the editor gets the gauge's and conversation's
        # rows too. Side by side it stays beside the summary it re-renders.
        self.fields.edit("json", maximize=self.narrow)

    def action_edit_reply(self) -> None:
        self._show_pane("fields")
        self.fields.edit("reply", maximize=self.narrow)

    def action_ask_focus(self) -> None:
        from goose_tui.tui.screens.input_prompt import InputPrompt

        inspector = self.inspector

        def answered(value: str | None) -> None:
            if value is None or value == inspector.focus_text:
                return
            inspector.set_focus(value)
            self.notify(f"focus: {value}" if value else "focus cleared", markup=False)
            if inspector.session is not None:
                self.prompt_pane.build()
            else:
                self.prompt_pane.show_title()

        note = (
            "Added to the compaction prompt as {{ focus }} (appended as its last paragraph "
            "when the template does not use it); applies to every compaction until cleared. "
            "Empty clears it."
        )
        self.app.push_screen(
            InputPrompt(
                "Focus for the summary (what it must keep):",
                inspector.focus_text,
                note=note,
                allow_empty=True,
            ),
            answered,
        )

    def action_save(self) -> None:
        self.post_message(SaveRequested())

    def action_report(self) -> None:
        self.post_message(SaveRequested("report"))

    def action_edit_template(self, name: str, external: bool = False) -> None:
        self.post_message(
            TemplateEditRequested(
                "compaction.md" if name == "compaction.md" else "compaction_summary.md",
                external=external,
            )
        )

    def action_template_diff(self) -> None:
        from goose_tui.tui.screens.template_diff import TemplateDiffScreen

        self.app.push_screen(TemplateDiffScreen(self.inspector.template_diffs()))

    # -- analysis screens (what was lost, compare, timeline) -------------------------------

    def action_retention(self) -> None:
        from goose_tui.tui.screens.retention_screen import open_retention

        open_retention(self, self.inspector)

    @work(exclusive=True, group="audit", exit_on_error=False)
    async def audit_compaction(self, number: int) -> None:
        """Past compaction ``number``: the history Goose summarized then, with Goose's
        summary as the current one, so what was lost, the probes and compare judge what
        Goose wrote."""
        from goose_tui.analysis.audit import compaction_at, history_session

        inspector = self.inspector
        session = inspector.session
        if session is None:
            return
        try:
            compaction = compaction_at(session.messages, number)
        except LookupError as exc:
            self.app.notify(str(exc), severity="error", markup=False)
            return
        self.show_session(history_session(session, compaction))
        if not await inspector.use_summary(inert(compaction.summary)):
            self.notice = inspector.notice
            return
        self.fields.load_reply()
        self.fields.show_summary()
        self.fields.load_json()
        self._show_analysis()
        self._show_markdown()
        first, last = compaction.history_range
        self.app.notify(
            f"Goose's compaction {number} (message #{compaction.summary_index + 1}): its history "
            f"#{first + 1}-#{last + 1} and Goose's summary; {compact_key(self.app)} compacts "
            "the same history with your template and model",
            markup=False,
            timeout=10,
        )

    def action_switch_profile(self) -> None:
        """The next Goose version's conversation format (profiles.py); the input pane is
        rendered again so the user sees what changed."""
        self.post_message(GooseProfileRequested(next_profile(self.inspector.goose_profile)))

    def action_timeline(self) -> None:
        from goose_tui.tui.screens.timeline_screen import open_timeline

        open_timeline(self, self.inspector)

    def action_context(self) -> None:
        from goose_tui.tui.screens.context_screen import open_context

        open_context(self, self.inspector)

    def on_context_gauge_clicked(self) -> None:
        self.action_context()

    def action_compare(self) -> None:
        from goose_tui.tui.screens.compare_screen import open_compare

        open_compare(self, self.inspector)


def usage_note(result: CompactionResult) -> str:
    """The compaction's usage for the status line, each count the provider did not report
    marked as our estimate (docs/pipeline.md §7)."""
    usage, reported = result.usage, result.reported_usage

    def figure(value: int | None, given: int | None) -> str:
        if value is None:
            return "unknown"  # the estimate could not be made
        return f"{value:,}" + (" (est.)" if given is None else "")

    return (
        f"usage in {figure(usage.input_tokens, reported.input_tokens)} / "
        f"out {figure(usage.output_tokens, reported.output_tokens)}"
    )
