"""The fields pane: the inspector's notice on the summary, the summary as a tree, and the two
editors of its hand edits (the JSON and the model's reply), which it applies through the
Inspector as the user types."""

from __future__ import annotations

import os

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import TabbedContent, TabPane, Tabs, TextArea

from goose_tui.inspector import NO_SUMMARY, Inspector, Notice, parses
from goose_tui.tui.debounce import debounce
from goose_tui.tui.messages import ConfirmRequested
from goose_tui.tui.widgets.code_editor import CodeEditor
from goose_tui.tui.widgets.fields_tree import FieldsTree
from goose_tui.tui.widgets.pane import Banner, Pane


class FieldsPane(Pane):
    """Set ``notice`` to show the inspector's report; ``locked`` while a compaction runs (its
    summary replaces the editors' texts, so an edit typed meanwhile would be lost)."""

    # Escape leaves an editor (it never types into it); elsewhere in the pane it goes on to the
    # screen's escape (cancel a compaction), and the footer names what it does here.
    BINDINGS = [Binding("escape", "leave_editor", "Leave editor", id="fields.leave_editor")]

    notice: reactive[Notice] = reactive(NO_SUMMARY, init=False)
    locked: reactive[bool] = reactive(False, init=False)

    class SummaryChanged(Message):
        """A hand edit changed the summary shown; ``extracted``: read from an edited reply
        (its analysis changed too)."""

        def __init__(self, extracted: bool) -> None:
            super().__init__()
            self.extracted = extracted

    def __init__(self, inspector: Inspector, *, id: str | None = None) -> None:
        self._maximized_to_edit = False  # by `edit`, so leaving the editor gives it back
        super().__init__("fields", copy_source=self._shown_text, id=id)
        self.inspector = inspector
        # The JSON hand edit the user agreed to have replaced by a reply edit (asked once).
        self._replaceable_json: str | None = None

    def compose(self) -> ComposeResult:
        yield Banner("no summary yet", id="fields-banner", classes="pane-banner")
        with TabbedContent(id="fields-tabs"):
            with TabPane("tree", id="fields-tree-tab"):
                yield FieldsTree(id="fields-tree")
            with TabPane("json", id="fields-json-tab"):
                yield CodeEditor("{}", syntax="json", id="json-editor")
            with TabPane("reply", id="fields-reply-tab"):
                yield CodeEditor("", syntax="markdown", id="reply-editor", soft_wrap=True)

    def on_mount(self) -> None:
        self.query_one(FieldsTree).show_summary(None)

    @property
    def json_editor(self) -> CodeEditor:
        return self.query_one("#json-editor", CodeEditor)

    @property
    def reply_editor(self) -> CodeEditor:
        return self.query_one("#reply-editor", CodeEditor)

    def _shown_text(self) -> str:
        """What `y` copies: the model's reply on its tab, else the summary JSON (the tree's
        text too)."""
        if self.query_one(TabbedContent).active == "fields-reply-tab":
            return self.reply_editor.text
        return self.json_editor.text

    def watch_notice(self, notice: Notice) -> None:
        self.query_one(Banner).show(notice.message, notice.kind)

    def watch_locked(self, locked: bool) -> None:
        self.json_editor.read_only = self.reply_editor.read_only = locked
        if locked:  # an edit waiting to be read would land on the compaction's summary
            self.workers.cancel_node(self)

    # -- what the screen draws -------------------------------------------------------------

    def reset(self) -> None:
        """As before a first compaction (the inspector has just forgotten the last one)."""
        self.workers.cancel_node(self)
        self.reply_editor.load_text(self.inspector.loaded.reply)
        self.json_editor.load_text(self.inspector.loaded.json)
        self.query_one(TabbedContent).active = "fields-tree-tab"
        self.show_summary()

    def show_summary(self) -> None:
        self.notice = self.inspector.notice
        self.query_one(FieldsTree).show_summary(self.inspector.summary.structured)

    def load_reply(self) -> None:
        self.reply_editor.load_text(self.inspector.loaded.reply)

    def load_json(self, *, undoable: bool = False) -> None:
        """The JSON as the inspector loaded it. ``undoable``: replaced as an edit, which
        ctrl+z undoes (the editor holds a hand edit), not loaded afresh."""
        editor = self.json_editor
        if undoable:
            editor.load_pending()  # a text held back while the editor was hidden
            editor.replace(self.inspector.loaded.json, (0, 0), editor.document.end)
        else:
            editor.load_text(self.inspector.loaded.json)

    def edit(self, tab: str, *, maximize: bool = False) -> None:
        """Show and focus the JSON editor ("json") or the reply editor ("reply"); with
        ``maximize`` the pane takes the screen until the editor is left."""
        self.query_one(TabbedContent).active = f"fields-{tab}-tab"
        editor = self.json_editor if tab == "json" else self.reply_editor
        if maximize and self.screen.maximized is None:
            self.screen.maximize(self, container=False)
            self._maximized_to_edit = True
        editor.focus()
        if self.locked:
            self.notify(
                "the summary can be edited once the compaction ends (escape cancels it)",
                markup=False,
            )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "leave_editor":
            return self.app.focused in (self.json_editor, self.reply_editor)
        return True

    def action_leave_editor(self) -> None:
        self.leave_editor()

    def leave_editor(self) -> None:
        """Out of the editor (escape never types into it), staying in this pane; the layout
        comes back if the editor took the screen (a maximise the user chose stays)."""
        self.query_one(TabbedContent).query_one(Tabs).focus()
        if self._maximized_to_edit and self.screen.maximized is self:
            self.screen.minimize()
        self._maximized_to_edit = False

    # -- hand edits ------------------------------------------------------------------------

    @on(TextArea.Changed)
    def _edited(self, event: TextArea.Changed) -> None:
        event.stop()
        inspector, text = self.inspector, event.text_area.text
        if event.text_area is self.json_editor:
            inspector.typed(json=text)
            if text == inspector.loaded.json:  # an undo back to the loaded JSON: at once
                self.read_json()
            elif inspector.json_state == "invalid" and parses(text):
                self.read_json()  # valid again: the "invalid JSON" banner goes at once
            else:
                debounce(self, "json", self.read_json)
        elif event.text_area is self.reply_editor:
            if text != inspector.edits.reply and self._json_edit_at_stake():
                self._ask_before_replacing_json(text)
                return
            inspector.typed(reply=text)
            if text != inspector.loaded.reply:
                debounce(self, "reply", self.read_reply)

    def _json_edit_at_stake(self) -> bool:
        """Whether a reply edit, read again, would replace an unsaved hand edit of the JSON
        that the user has not agreed to lose."""
        json = self.json_editor.text
        inspector = self.inspector
        edited = json != inspector.loaded.json and inspector.edits.json != inspector.saved.json
        return edited and json != self._replaceable_json

    def _ask_before_replacing_json(self, typed: str) -> None:
        """The reply edit is taken back until the user says yes (then it is made again): no
        answer loses either edit."""
        editor = self.reply_editor
        selection = editor.selection
        before = self.inspector.edits.reply
        editor.replace(before, (0, 0), editor.document.end)
        # The cursor back where the edit began (the end of what the two texts share).
        shared = os.path.commonprefix([before, typed])
        editor.move_cursor((shared.count("\n"), len(shared) - shared.rfind("\n") - 1))
        json = self.json_editor.text

        def replace_json() -> None:
            self._replaceable_json = json
            editor.replace(typed, (0, 0), editor.document.end)
            editor.selection = selection

        self.post_message(
            ConfirmRequested(
                "Editing the reply reads the summary from it again, which replaces the "
                "hand-edited summary JSON (s saves it first; ctrl+z in the JSON editor brings it "
                "back). Edit the reply?",
                replace_json,
            )
        )

    @work(exclusive=True, group="summary-edit", exit_on_error=False)
    async def read_json(self) -> None:
        self.workers.cancel_group(self, "debounce-json")
        inspector = self.inspector

        def rendering() -> None:
            self.notice = inspector.notice

        changed = await inspector.edit_json(self.json_editor.text, rendering=rendering)
        self.notice = inspector.notice
        if changed:
            self.query_one(FieldsTree).show_summary(inspector.summary.structured)
            self.post_message(self.SummaryChanged(extracted=False))

    @work(exclusive=True, group="summary-edit", exit_on_error=False)
    async def read_reply(self) -> None:
        inspector = self.inspector
        # A hand edit of the JSON is replaced by what the reply now reads as: kept in the
        # JSON editor's undo, and said.
        json_edited = self.json_editor.text != inspector.loaded.json
        if not await inspector.edit_reply(self.reply_editor.text):
            self.notice = inspector.notice
            return
        self.show_summary()
        self.load_json(undoable=json_edited)
        self.post_message(self.SummaryChanged(extracted=True))
        if json_edited:
            self.notify(
                "the edited reply, read again, replaced your edit of the summary "
                "JSON: ctrl+z in the JSON editor (e) brings it back",
                markup=False,
            )
