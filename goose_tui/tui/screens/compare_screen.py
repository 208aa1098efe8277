"""Compare: the current summary beside one or more others, each made by another model or
prompts folder (compacted again, in one cancellable worker), or the summary before the last
edit. What the screen shows: ``CompareScreen.HELP``."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content, Span
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Input, Static
from textual.worker import Worker, WorkerState

from goose_tui.analysis.compare import (
    Comparison,
    FieldDiff,
    SummarySide,
    compare_summaries,
    fields_by_name,
    side_from_result,
    side_letter,
    side_rows,
    status_text,
)
from goose_tui.compaction.reply_check import require_usable
from goose_tui.compaction.templates import TemplateError, Templates, load_templates
from goose_tui.inert import inert
from goose_tui.inspector import Inspector
from goose_tui.llm.spec import ModelSpec
from goose_tui.session.models import Message
from goose_tui.terminal import shorten
from goose_tui.tui.screens.analysis import (
    AnalysisScreen,
    right,
    summary_to_analyse,
    too_big_text,
    too_big_to_analyse,
)
from goose_tui.tui.widgets.goose_footer import GooseFooter

PREVIOUS = "previous"
NARROW_COLUMNS = 120  # below this A and B are stacked
SPEC_CELL = 24  # a side's spec in the sides table (a replay path or a prompts folder is long)
STATUS_STYLE = {"same": "", "changed": "yellow", "only_left": "red", "only_right": "green"}


class CompareChoice(NamedTuple):
    """What the compare dialog was answered with: a model as typed (or ``previous``), and
    the prompts folder with the templates read from it (None: the current templates)."""

    spec: str
    prompts_dir: Path | None = None
    templates: Templates | None = None


class CompareSetup(ModalScreen[list[CompareChoice] | None]):
    """Ask what to compare with: a model spec and an optional prompts folder, or
    ``previous``; ctrl+n keeps the side typed and asks for one more. Enter in the model
    field moves on to the prompts folder while that is empty; Enter there (empty or not)
    answers, unless the comparison could not start with the answer (a model that cannot be
    made, a folder whose templates cannot be read): then it says why and stays on the field
    to mend."""

    DEFAULT_CSS = "CompareSetup { align: center middle; }"
    BINDINGS = [
        Binding("escape", "dismiss", "Cancel", id="compare_setup.cancel"),
        Binding("ctrl+n", "add_side", "Add a side", id="compare_setup.add_side"),
    ]

    def __init__(self, model: ModelSpec) -> None:
        super().__init__()
        self.model = model
        self._spec = Input(model.name, id="compare-spec")
        self._folder = Input(
            placeholder="prompts folder (empty: the current templates)", id="compare-dir"
        )
        self.chosen: list[CompareChoice] = []
        self._chosen_note = Static(Content(""), id="compare-chosen", classes="dialog-note")

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Content("Compare the current summary with:"), classes="dialog-question")
            yield self._spec
            yield Static(
                Content(
                    "offline, replay:FILE or a litellm model string (compacts again), or "
                    f"'{PREVIOUS}' for the summary before the last edit; ctrl+n: add "
                    "another side"
                ),
                classes="dialog-note",
            )
            yield self._folder
            yield self._chosen_note

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        spec = self._spec.value.strip()
        if not spec and self.chosen:
            self.dismiss(self.chosen)
            return
        if event.input is self._spec and spec and spec != PREVIOUS:
            if not self._folder.value.strip():
                self._folder.focus()  # the next field is still empty: go there first
                return
        choice = self._read_side()
        if choice is not None:
            self.dismiss([*self.chosen, choice])

    def action_add_side(self) -> None:
        """Keep the side typed, and empty the fields for one more."""
        if self._spec.value.strip() == PREVIOUS:
            self.notify(f"'{PREVIOUS}' is compared alone", severity="warning")
            return
        choice = self._read_side()
        if choice is None:
            return
        self.chosen.append(choice)
        self._spec.value = ""
        self._folder.value = ""
        self._spec.focus()
        sides = " · ".join(
            f"{side_letter(n + 1)}: {side_label(c.spec, c.prompts_dir)}"
            for n, c in enumerate(self.chosen)
        )
        next_letter = side_letter(len(self.chosen) + 1)
        self._chosen_note.update(
            Content(inert(f"{sides} · now {next_letter}, or enter with no model to compare"))
        )

    def _read_side(self) -> CompareChoice | None:
        """The side in the fields, or None after saying why it cannot be compared (and
        focusing the field to mend)."""
        spec = self._spec.value.strip()
        folder = self._folder.value.strip()
        if not spec:
            self.notify("name a model, or previous", severity="warning")
            self._spec.focus()
            return None
        if spec == PREVIOUS:
            if self.chosen:
                self.notify(f"'{PREVIOUS}' is compared alone", severity="warning")
                self._spec.focus()
                return None
            return CompareChoice(spec)
        # Refused here rather than by the compare screen's worker, which left an empty
        # "failed" screen under the error modal.
        problem = self._model_problem(spec)
        if problem is not None:
            self.notify(problem, severity="error", markup=False)
            self._spec.focus()
            return None
        prompts_dir = Path(folder).expanduser() if folder else None
        if prompts_dir is None:
            return CompareChoice(spec)
        if not prompts_dir.is_dir():
            # Else the current templates were used, under a header naming this folder.
            self.notify(f"{folder}: not a folder", severity="error", markup=False)
            self._folder.focus()
            return None
        try:
            templates = load_templates(prompts_dir)
            templates.compaction.check()  # a syntax error, named with its file and line
            templates.summary.check()
        except TemplateError as exc:
            self.notify(str(exc), severity="error", markup=False)
            self._folder.focus()
            return None
        return CompareChoice(spec, prompts_dir, templates)

    def _model_problem(self, spec: str) -> str | None:
        """Why no summarizer could be made for ``spec`` (read as the compare screen reads
        it), or None."""
        try:
            return self.model.with_text(spec).problem()
        except ValueError as exc:
            return str(exc)


def diff_content(diff: str) -> Content:
    """A unified diff with removed lines in the theme's error colour, added lines in its
    success colour, file and hunk headers in bold (``diff`` is inert already)."""
    spans: list[Span] = []
    position = 0
    for line in diff.split("\n"):
        end = position + len(line)
        if line.startswith(("---", "+++")):
            style = "bold"
        elif line.startswith("@@"):
            style = "bold $secondary"
        elif line.startswith("-"):
            style = "$text-error"
        elif line.startswith("+"):
            style = "$text-success"
        else:
            style = ""
        if style and end > position:
            spans.append(Span(position, end, style))
        position = end + 1
    return Content(diff, spans=spans)


def field_lines(found: list[FieldDiff | None], side: int) -> str:
    """The field's items on one side, each marked: on A, '-' for an item some later side
    lacks; on a later side, '+' for an item A lacks; '·' otherwise. ``found``: the field's
    diff of each later side against A."""
    if side == 0:
        known = [f for f in found if f is not None]
        if not known:
            return "(no field diff)"
        items = known[0].left
        only = {item for f in known for item in f.removed}
        mark = "-"
    else:
        diff = found[side - 1]
        if diff is None:
            return "(no field diff)"
        items, only, mark = diff.right, set(diff.added), "+"
    if not items:
        return "(empty)"
    # Items are paragraphs; a blank line between them keeps long ones apart.
    return "\n\n".join(f"{mark if item in only else '·'} {item}" for item in items)


def _differs(found: list[FieldDiff | None]) -> bool:
    return any(f is not None and f.status != "same" for f in found)


def side_label(spec: str, prompts_dir: Path | None) -> str:
    return f"{spec} + {prompts_dir}" if prompts_dir else spec


def _side_id(index: int) -> str:
    # A and B keep the names they had when there were only two.
    return ("compare-left", "compare-right")[index] if index < 2 else f"compare-{index}"


class CompareScreen(AnalysisScreen):
    HELP = (  # what `?` says this screen shows (screens/help.py)
        "Compare: the current summary (A) beside one or more others (B, C, …), each made by "
        "another model or prompts folder (ctrl+n in the dialog adds a side), or the summary "
        "before the last edit.\n\n"
        "Top: size in tokens and cost per side; evidence found (retention: the history's "
        "paths, commands and errors still written in the summary) per category; can the agent "
        "act (probes: questions the agent must answer from the summary to go on) per kind, "
        "found and missing. Middle: the fields, "
        "same, changed or only on one side, each later side against A, with the list items "
        "added and removed. Bottom: "
        "the selected field's items side by side; d switches to the unified diff of the "
        "rendered Markdown."
    )

    DEFAULT_CSS = """
    CompareScreen #compare-state { height: 1; padding: 0 1; color: $text-muted; }
    CompareScreen #compare-top { height: auto; max-height: 17; }
    CompareScreen #compare-sides { width: 1fr; height: auto; max-height: 17; }
    CompareScreen #compare-fields { width: 1fr; height: auto; max-height: 17; }
    CompareScreen #compare-detail { height: 1fr; }
    CompareScreen #compare-detail VerticalScroll { width: 1fr; border: round $primary 50%; }
    CompareScreen #compare-markdown-diff { height: 1fr; border: round $primary 50%; }
    CompareScreen #compare-body { height: 1fr; }
    /* Narrow: A and B numbers above the field list, the sides' items one above the other,
       and the whole body scrolls (at 80x24 it does not fit otherwise). */
    CompareScreen.-narrow #compare-body { overflow-y: auto; }
    CompareScreen.-narrow #compare-top { layout: vertical; max-height: 40; }
    CompareScreen.-narrow #compare-sides { max-height: 20; }
    CompareScreen.-narrow #compare-fields { max-height: 20; margin-top: 1; }
    CompareScreen.-narrow #compare-detail { layout: vertical; height: auto; }
    CompareScreen.-narrow #compare-detail VerticalScroll { height: auto; max-height: 16; }
    CompareScreen.-narrow #compare-markdown-diff { height: auto; }
    """
    BINDINGS = [
        Binding("escape", "back", "Back / cancel", id="compare.back"),
        Binding("d", "toggle_diff", "Markdown diff", id="compare.toggle_diff"),
        Binding("y", "copy_diff", "Copy diff", id="compare.copy"),
    ]

    def __init__(
        self,
        messages: list[Message],
        sides: list[SummarySide | CompareChoice],
        *,
        model: ModelSpec,
        templates: Templates,
    ) -> None:
        """``sides``, A first: a summary made already, or a choice to compact the history
        again with (its spec read as ``model`` would read another model typed by the user,
        with its templates or else ``templates``)."""
        super().__init__()
        self.messages = messages
        self.sides = sides
        self.model = model
        self.templates = templates
        self.comparison: Comparison | None = None
        self.showing_diff = False
        self._rows: list[tuple[str, list[FieldDiff | None]]] = []
        self._state = Static(Content("compacting…"), id="compare-state")
        self._sides = DataTable[object](id="compare-sides", cursor_type="none")
        self._fields = DataTable[object](id="compare-fields", cursor_type="row")
        self._detail = Horizontal(id="compare-detail")
        self._scrolls = [VerticalScroll(id=f"{_side_id(n)}-scroll") for n in range(len(sides))]
        self._items = [Static(Content(""), id=_side_id(n)) for n in range(len(sides))]
        self._markdown_diff = VerticalScroll(id="compare-markdown-diff")
        self._diff_text = Static(Content(""), id="compare-diff-text")

    def compose(self) -> ComposeResult:
        title = " · ".join(
            f"{side_letter(n)}: {self._label(side)}" for n, side in enumerate(self.sides)
        )
        yield self.title_line(f"compare · {title}", "compare-title")
        yield self._state
        with Vertical(id="compare-body"):
            with Horizontal(id="compare-top"):
                yield self._sides
                yield self._fields
            with self._detail:
                for scroll, items in zip(self._scrolls, self._items, strict=True):
                    with scroll:
                        yield items
            with self._markdown_diff:
                yield self._diff_text
        yield GooseFooter()

    def on_resize(self) -> None:
        # NARROW_COLUMNS for two sides; a third side needs half as much again to keep the
        # sides table beside the field table.
        narrow = self.size.width < NARROW_COLUMNS * max(len(self.sides), 2) // 2
        self.set_class(narrow, "-narrow")

    @staticmethod
    def _label(side: SummarySide | CompareChoice) -> str:
        if isinstance(side, SummarySide):
            return side.label
        return side_label(side.spec, side.prompts_dir)

    def on_mount(self) -> None:
        self.on_resize()
        self._markdown_diff.display = False
        letters = [side_letter(n) for n in range(len(self.sides))]
        self._sides.add_columns("", *letters)
        if len(self.sides) == 2:
            self._fields.add_columns("field", "status", "added", "removed")
        else:
            self._fields.add_columns("field", *(f"A→{letter}" for letter in letters[1:]))
        for scroll, letter in zip(self._scrolls, letters, strict=True):
            scroll.border_title = letter
        self.run_comparison()

    @work(exclusive=True, group="compare", exit_on_error=False)
    async def run_comparison(self) -> None:
        again = [(n, side) for n, side in enumerate(self.sides) if isinstance(side, CompareChoice)]
        received = [0] * len(again)

        def progress() -> None:
            doing = ", ".join(side_letter(n) for n, _ in again)
            self._state.update(Content(f"compacting {doing}… {sum(received):,} chars"))

        made = await asyncio.gather(
            *(
                self._compact_again(choice, k, received, progress)
                for k, (_, choice) in enumerate(again)
            )
        )
        sides = list(self.sides)
        for (n, _), side in zip(again, made, strict=True):
            how = "run `goose-tui compare` on it"
            what = f"{side_letter(n)}'s summary"
            if (too_big := too_big_text(side.summary, what, how)) is not None:
                self._state.update(Content(inert(f"{too_big} · esc: back")))
                self.notify(too_big, title="summary too big", severity="warning", markup=False)
                return
            sides[n] = side
        ready = [side for side in sides if isinstance(side, SummarySide)]
        # Retention and the diffs read the whole history: off the event loop.
        comparison = await asyncio.to_thread(compare_summaries, ready, self.messages)
        self._show(comparison)

    async def _compact_again(
        self, choice: CompareChoice, k: int, received: list[int], progress: Callable[[], None]
    ) -> SummarySide:
        from goose_tui.compaction.summarize import summarize
        from goose_tui.inspector import summarizer_for

        summarizer = summarizer_for(self.model.with_text(choice.spec))

        def on_chunk(chunk: str) -> None:
            received[k] += len(chunk)
            progress()

        # The side's usage is estimated off the event loop (estimate_tokens), not when read.
        result = await summarize(
            self.messages,
            summarizer,
            choice.templates or self.templates,
            on_chunk=on_chunk,
            estimate_tokens=True,
        )
        require_usable(result)
        return side_from_result(side_label(choice.spec, choice.prompts_dir), result)

    def _show(self, c: Comparison) -> None:
        self.comparison = c
        sides = self._sides
        for label, *values in side_rows(c.sides):
            if label == "spec":  # the title line names each side in full
                values = [shorten(value, SPEC_CELL) for value in values]
            sides.add_row(label, *(Text(inert(value)) for value in values))
        self._rows = fields_by_name(c, skip_empty=False)
        letters = [side_letter(n) for n in range(1, len(c.sides))]
        fields = self._fields
        for name, found in self._rows:
            if len(found) == 1 and found[0] is not None:
                f = found[0]
                fields.add_row(
                    name,
                    Text(f.status.replace("_", " "), style=STATUS_STYLE[f.status]),
                    right(f"+{len(f.added)}"),
                    right(f"-{len(f.removed)}"),
                )
            else:
                cells = [
                    Text(status_text(f, x), style=STATUS_STYLE[f.status] if f else "")
                    for f, x in zip(found, letters, strict=True)
                ]
                fields.add_row(name, *cells)
        changed = [n for n, (_, found) in enumerate(self._rows) if _differs(found)]
        notes = [d.note for d in c.diffs if d.note]
        if self._rows:
            notes.append(f"{len(changed)} of {len(self._rows)} fields differ · d: Markdown diff")
        self._state.update(Content(inert(" · ".join(notes))))
        diff = self.markdown_diffs() or "(the rendered summaries are identical)"
        self._diff_text.update(diff_content(inert(diff)))
        if self._rows:
            first = changed[0] if changed else 0
            fields.move_cursor(row=first)
            self._show_field(first)
            fields.focus()
        else:
            self.action_toggle_diff()

    def markdown_diffs(self) -> str:
        """Each later side's diff against A, one after the other."""
        if self.comparison is None:
            return ""
        diffs = [d.markdown_diff.rstrip("\n") for d in self.comparison.diffs]
        if not any(diffs):
            return ""
        # Several sides: one that renders as A does is said so, not left out.
        letters = [side_letter(n) for n in range(1, len(diffs) + 1)]
        return "\n\n".join(
            d or f"(A and {letter} render the same)"
            for d, letter in zip(diffs, letters, strict=True)
        )

    @on(DataTable.RowHighlighted, "#compare-fields")
    def _field_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_field(event.cursor_row)

    def _show_field(self, row: int) -> None:
        if not 0 <= row < len(self._rows):
            return
        name, found = self._rows[row]
        for n, (items, scroll) in enumerate(zip(self._items, self._scrolls, strict=True)):
            items.update(Content(inert(field_lines(found, n))))
            # Border titles are markup: the field name may come from the model (an extra).
            scroll.border_title = Content(inert(f"{side_letter(n)} · {name}"))

    def action_toggle_diff(self) -> None:
        self.showing_diff = not self.showing_diff
        self._markdown_diff.display = self.showing_diff
        self._detail.display = not self.showing_diff

    def action_copy_diff(self) -> None:
        if self.comparison is not None:
            from goose_tui.tui.clipboard import copy_text

            copy_text(self.app, self.markdown_diffs(), "the Markdown diff")

    def action_back(self) -> None:
        running = [w for w in self.workers if w.group == "compare" and w.is_running]
        if running:
            self.workers.cancel_group(self, "compare")
            self._state.update(Content("cancelled"))
            self.notify("comparison cancelled")
            return
        super().action_back()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # The error reaches the app's error modal (WorkerErrorsUp); once it is closed, the
        # screen still says why, in one line.
        if event.worker.group == "compare" and event.state == WorkerState.ERROR:
            from goose_tui.analysis.failures import failure_text  # only when something failed

            error = event.worker.error
            reason = " ".join(failure_text(error).split()) if error is not None else "unknown"
            self._state.update(Content(inert(f"failed: {reason} · esc: back")))


def current_side(inspector: Inspector) -> SummarySide:
    """The inspector's summary: as the model made it (priced), or as edited by hand."""
    label = inspector.summary_label()
    result = inspector.result
    if result is not None and inspector.summary.text == result.summary:
        side = side_from_result(label, result)
        return side.model_copy(update={"structured": inspector.summary.structured})
    return SummarySide(
        label=label, summary=inspector.summary.text, structured=inspector.summary.structured
    )


def open_compare(screen: Screen[None], inspector: Inspector) -> None:
    session = summary_to_analyse(screen, inspector, "compare")
    if session is None:
        return
    messages = session.messages

    def answered(choices: list[CompareChoice] | None) -> None:
        if not choices:
            return
        left = current_side(inspector)
        model, templates = inspector.model, inspector.templates
        if choices[0].spec == PREVIOUS:
            previous = inspector.previous
            if previous is None:
                screen.notify("no earlier summary: nothing was edited or re-compacted yet")
                return
            if too_big_to_analyse(screen, previous.text, "compare"):
                return
            before = SummarySide(
                label="before the last edit", summary=previous.text, structured=previous.structured
            )
            # A: before, B: now, so "added" reads as what the edit added.
            screen.app.push_screen(
                CompareScreen(messages, [before, left], model=model, templates=templates)
            )
            return
        screen.app.push_screen(
            CompareScreen(messages, [left, *choices], model=model, templates=templates)
        )

    screen.app.push_screen(CompareSetup(inspector.model), answered)
