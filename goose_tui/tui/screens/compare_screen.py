"""Compare: the current summary beside a second one, made by another model or prompts folder
(compacted again, in a cancellable worker) or the summary before the last edit.

Top: size in tokens, retention, probe scores and cost per side. Middle: the fields, same /
changed / only on one side, with the list items added and removed. Bottom: the selected
field's items side by side (d switches to the unified diff of the rendered Markdown).
"""

from __future__ import annotations

import asyncio
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
    SideReport,
    SummarySide,
    compare_summaries,
    format_cost,
    side_from_result,
)
from goose_tui.analysis.probes import ProbeReport, format_probe_score
from goose_tui.analysis.retention import CATEGORY_LABELS, format_score
from goose_tui.compaction.reply_check import require_usable
from goose_tui.compaction.templates import TemplateError, Templates, load_templates
from goose_tui.inert import inert
from goose_tui.inspector import Inspector
from goose_tui.llm.spec import ModelSpec
from goose_tui.session.models import Message
from goose_tui.tui.messages import WorkerErrorsUp
from goose_tui.tui.screens.retention_screen import too_big_text, too_big_to_analyse
from goose_tui.tui.widgets.compaction_status import compact_key, no_session_hint
from goose_tui.tui.widgets.goose_footer import GooseFooter

PREVIOUS = "previous"
NARROW_COLUMNS = 120  # below this A and B are stacked
STATUS_STYLE = {"same": "", "changed": "yellow", "only_left": "red", "only_right": "green"}


class CompareChoice(NamedTuple):
    """What the compare dialog was answered with: a model as typed (or ``previous``), and
    the prompts folder with the templates read from it (None: the current templates)."""

    spec: str
    prompts_dir: Path | None = None
    templates: Templates | None = None


class CompareSetup(ModalScreen[CompareChoice | None]):
    """Ask what to compare with: a model spec and an optional prompts folder, or
    ``previous``. Enter in the model field moves on to the prompts folder while that is
    empty; Enter there (empty or not) answers, unless the comparison could not start with
    the answer (a model that cannot be made, a folder whose templates cannot be read): then
    it says why and stays on the field to mend."""

    DEFAULT_CSS = "CompareSetup { align: center middle; }"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="compare_setup.cancel")]

    def __init__(self, model: ModelSpec) -> None:
        super().__init__()
        self.model = model
        self._spec = Input(model.name, id="compare-spec")
        self._folder = Input(
            placeholder="prompts folder (empty: the current templates)", id="compare-dir"
        )

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Content("Compare the current summary with:"), classes="dialog-question")
            yield self._spec
            yield Static(
                Content(
                    "offline, replay:FILE or a litellm model string (compacts again), or "
                    f"'{PREVIOUS}' for the summary before the last edit"
                ),
                classes="dialog-note",
            )
            yield self._folder

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        spec = self._spec.value.strip()
        folder = self._folder.value.strip()
        if not spec:
            self.notify("name a model, or previous", severity="warning")
            self._spec.focus()
            return
        if event.input is self._spec and not folder and spec != PREVIOUS:
            self._folder.focus()  # the next field is still empty: go there first
            return
        if spec == PREVIOUS:
            self.dismiss(CompareChoice(spec))
            return
        # Refused here rather than by the compare screen's worker, which left an empty
        # "failed" screen under the error modal.
        problem = self._model_problem(spec)
        if problem is not None:
            self.notify(problem, severity="error", markup=False)
            self._spec.focus()
            return
        prompts_dir = Path(folder).expanduser() if folder else None
        if prompts_dir is None:
            self.dismiss(CompareChoice(spec))
            return
        if not prompts_dir.is_dir():
            # Else the current templates were used, under a header naming this folder.
            self.notify(f"{folder}: not a folder", severity="error", markup=False)
            self._folder.focus()
            return
        try:
            templates = load_templates(prompts_dir)
            templates.compaction.check()  # a syntax error, named with its file and line
            templates.summary.check()
        except TemplateError as exc:
            self.notify(str(exc), severity="error", markup=False)
            self._folder.focus()
            return
        self.dismiss(CompareChoice(spec, prompts_dir, templates))

    def _model_problem(self, spec: str) -> str | None:
        """Why no summarizer could be made for ``spec`` (read as the compare screen reads
        it), or None."""
        try:
            return self.model.with_text(spec).problem()
        except ValueError as exc:
            return str(exc)

    def action_cancel(self) -> None:
        self.dismiss(None)


def side_rows(a: SideReport, b: SideReport) -> list[tuple[str, str, str]]:
    rows = [
        ("spec", a.label, b.label),
        ("tokens", f"{a.tokens:,}", f"{b.tokens:,}"),
        (
            "structured",
            "no (raw text)" if a.fallback else "yes",
            "no (raw text)" if b.fallback else "yes",
        ),
        ("cost", format_cost(a.cost_usd), format_cost(b.cost_usd)),
    ]
    if a.retention and b.retention:
        rows.append(
            ("retention", format_score(a.retention.overall), format_score(b.retention.overall))
        )
        for ca, cb in zip(a.retention.categories, b.retention.categories, strict=True):
            label = "  " + CATEGORY_LABELS[ca.category]
            rows.append((label, f"{ca.found}/{ca.total}", f"{cb.found}/{cb.total}"))
    if a.probes and b.probes:
        rows.append(("probes (r/a/c/d)", probe_cell(a.probes), probe_cell(b.probes)))
    return rows


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


def probe_cell(report: ProbeReport) -> str:
    """Short, to keep the columns narrow: the overall probe score, then each kind's in
    percent (recall/artifacts/continuation/decisions), as in ``84% (67/100/100/83)``."""
    kinds = "/".join(format_probe_score(k.score).rstrip("%") for k in report.kinds)
    return f"{format_probe_score(report.overall)} ({kinds})"


def field_lines(diff: FieldDiff, side: str) -> str:
    """The field's items on one side, each marked: '-' only on the left, '+' only on the
    right, '·' on both."""
    items, only = (diff.left, diff.removed) if side == "left" else (diff.right, diff.added)
    mark = "-" if side == "left" else "+"
    if not items:
        return "(empty)"
    # Items are paragraphs; a blank line between them keeps long ones apart.
    return "\n\n".join(f"{mark if item in only else '·'} {item}" for item in items)


class CompareScreen(WorkerErrorsUp, Screen[None]):
    HELP = (  # what `?` says this screen shows (screens/help.py)
        "Compare: the current summary (A) beside a second one (B), made by another model or "
        "prompts folder, or the summary before the last edit.\n\n"
        "Top: size in tokens, retention, probe scores and cost per side. Middle: the fields, "
        "same, changed or only on one side, with the list items added and removed. Bottom: "
        "the selected field's items side by side; d switches to the unified diff of the "
        "rendered Markdown."
    )

    DEFAULT_CSS = """
    CompareScreen #compare-title { height: 1; padding: 0 1; background: $primary-background; }
    CompareScreen #compare-state { height: 1; padding: 0 1; color: $text-muted; }
    CompareScreen #compare-top { height: auto; max-height: 14; }
    CompareScreen #compare-sides { width: 1fr; height: auto; max-height: 14; }
    CompareScreen #compare-fields { width: 1fr; height: auto; max-height: 14; }
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
        left: SummarySide,
        *,
        spec: str,
        model: ModelSpec,
        templates: Templates,
        prompts_dir: Path | None = None,
        right: SummarySide | None = None,
    ) -> None:
        """With ``right`` the two are compared at once; without it ``spec`` (read like
        ``model`` would read another model typed by the user) and ``templates`` compact the
        history again for the right side (``prompts_dir``: the folder they were read from,
        for its label)."""
        super().__init__()
        self.messages = messages
        self.left = left
        self.right = right
        self.spec = spec
        self.model = model
        self.templates = templates
        self.prompts_dir = prompts_dir
        self.comparison: Comparison | None = None
        self.showing_diff = False
        self._state = Static(Content("compacting…"), id="compare-state")
        self._sides = DataTable[object](id="compare-sides", cursor_type="none")
        self._fields = DataTable[object](id="compare-fields", cursor_type="row")
        self._detail = Horizontal(id="compare-detail")
        self._scrolls = {
            "left": VerticalScroll(id="compare-left-scroll"),
            "right": VerticalScroll(id="compare-right-scroll"),
        }
        self._items = {
            "left": Static(Content(""), id="compare-left"),
            "right": Static(Content(""), id="compare-right"),
        }
        self._markdown_diff = VerticalScroll(id="compare-markdown-diff")
        self._diff_text = Static(Content(""), id="compare-diff-text")

    def compose(self) -> ComposeResult:
        right = self.right.label if self.right else self._right_label()
        title = f"compare · A: {self.left.label} · B: {right}"
        yield Static(Content(inert(title)), id="compare-title")
        yield self._state
        with Vertical(id="compare-body"):
            with Horizontal(id="compare-top"):
                yield self._sides
                yield self._fields
            with self._detail:
                for side in ("left", "right"):
                    with self._scrolls[side]:
                        yield self._items[side]
            with self._markdown_diff:
                yield self._diff_text
        yield GooseFooter()

    def on_resize(self) -> None:
        self.set_class(self.size.width < NARROW_COLUMNS, "-narrow")

    def _right_label(self) -> str:
        return f"{self.spec} + {self.prompts_dir}" if self.prompts_dir else self.spec

    def on_mount(self) -> None:
        self.on_resize()
        self._markdown_diff.display = False
        self._sides.add_columns("", "A", "B")
        self._fields.add_columns("field", "status", "added", "removed")
        self._scrolls["left"].border_title = "A"
        self._scrolls["right"].border_title = "B"
        self.run_comparison()

    @work(exclusive=True, group="compare", exit_on_error=False)
    async def run_comparison(self) -> None:
        right = self.right
        if right is None:
            right = await self._compact_again()
            how = "run `goose-tui compare` on it"
            if (too_big := too_big_text(right.summary, "B's summary", how)) is not None:
                self._state.update(Content(inert(f"{too_big} · esc: back")))
                self.notify(too_big, title="summary too big", severity="warning", markup=False)
                return
        # Retention and the diffs read the whole history: off the event loop.
        comparison = await asyncio.to_thread(compare_summaries, self.left, right, self.messages)
        self._show(comparison)

    async def _compact_again(self) -> SummarySide:
        from goose_tui.compaction.summarize import summarize
        from goose_tui.inspector import summarizer_for

        summarizer = summarizer_for(self.model.with_text(self.spec))
        state = self._state
        received = 0

        def on_chunk(chunk: str) -> None:
            nonlocal received
            received += len(chunk)
            state.update(Content(f"compacting with {inert(self.spec)}… {received:,} chars"))

        # The side's usage is estimated off the event loop (estimate_tokens), not when read.
        result = await summarize(
            self.messages, summarizer, self.templates, on_chunk=on_chunk, estimate_tokens=True
        )
        require_usable(result)
        return side_from_result(self._right_label(), result)

    def _show(self, c: Comparison) -> None:
        self.comparison = c
        sides = self._sides
        for label, a, b in side_rows(c.left, c.right):
            sides.add_row(label, Text(inert(a)), Text(inert(b)))
        fields = self._fields
        for f in c.fields:
            fields.add_row(
                f.field,
                Text(f.status.replace("_", " "), style=STATUS_STYLE[f.status]),
                Text(f"+{len(f.added)}", justify="right"),
                Text(f"-{len(f.removed)}", justify="right"),
            )
        changed = sum(1 for f in c.fields if f.status != "same")
        state = c.note or f"{changed} of {len(c.fields)} fields differ · d: Markdown diff"
        self._state.update(Content(inert(state)))
        diff = c.markdown_diff.rstrip("\n") or "(the rendered summaries are identical)"
        self._diff_text.update(diff_content(inert(diff)))
        if c.fields:
            first = next((n for n, f in enumerate(c.fields) if f.status != "same"), 0)
            fields.move_cursor(row=first)
            self._show_field(first)
            fields.focus()
        else:
            self.action_toggle_diff()

    @on(DataTable.RowHighlighted, "#compare-fields")
    def _field_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_field(event.cursor_row)

    def _show_field(self, row: int) -> None:
        if self.comparison is None or not 0 <= row < len(self.comparison.fields):
            return
        diff = self.comparison.fields[row]
        for side, letter in (("left", "A"), ("right", "B")):
            self._items[side].update(Content(inert(field_lines(diff, side))))
            # Border titles are markup: the field name may come from the model (an extra).
            self._scrolls[side].border_title = Content(inert(f"{letter} · {diff.field}"))

    def action_toggle_diff(self) -> None:
        self.showing_diff = not self.showing_diff
        self._markdown_diff.display = self.showing_diff
        self._detail.display = not self.showing_diff

    def action_copy_diff(self) -> None:
        if self.comparison is not None:
            from goose_tui.tui.clipboard import copy_text

            copy_text(self.app, self.comparison.markdown_diff, "the Markdown diff")

    def action_back(self) -> None:
        running = [w for w in self.workers if w.group == "compare" and w.is_running]
        if running:
            self.workers.cancel_group(self, "compare")
            self._state.update(Content("cancelled"))
            self.notify("comparison cancelled")
            return
        self.dismiss(None)

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
    session = inspector.session
    if session is None:
        screen.notify(no_session_hint(screen.app))
        return
    if not inspector.summary.text:
        key = compact_key(screen.app)
        screen.notify(f"no summary yet: press {key} to compact first")
        return
    if too_big_to_analyse(screen, inspector.summary.text, "compare"):
        return
    messages = session.messages

    def answered(choice: CompareChoice | None) -> None:
        if choice is None:
            return
        spec, folder = choice.spec, choice.prompts_dir
        left = current_side(inspector)
        model, templates = inspector.model, choice.templates or inspector.templates
        if spec == PREVIOUS:
            previous = inspector.previous
            if previous is None:
                screen.notify("no earlier summary: nothing was edited or re-compacted yet")
                return
            if too_big_to_analyse(screen, previous.text, "compare"):
                return
            right = SummarySide(
                label="before the last edit", summary=previous.text, structured=previous.structured
            )
            # A: before, B: now, so "added" reads as what the edit added.
            screen.app.push_screen(
                CompareScreen(
                    messages, right, spec=spec, model=model, templates=templates, right=left
                )
            )
            return
        screen.app.push_screen(
            CompareScreen(
                messages, left, spec=spec, model=model, templates=templates, prompts_dir=folder
            )
        )

    screen.app.push_screen(CompareSetup(inspector.model), answered)
