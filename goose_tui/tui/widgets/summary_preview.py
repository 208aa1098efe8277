"""The rendered summary: a Markdown preview, or its source, toggled with ``m``.

Textual's ``Markdown`` widget builds one widget per block, too slow to update for a summary
of a hundred blocks. The preview instead renders the text once with Rich's Markdown
into lines at the pane's width and serves them through the line API; a width change renders
again. Rich's Markdown parses Markdown, not Rich markup, so ``[bold]x[/]`` shows literally;
control characters are made inert first; ``hyperlinks=False`` writes a link as its text and
address, so nothing is clickable and no OSC 8 sequence reaches the terminal.

The text is rendered section by section (split before each ATX heading outside a code
fence), each cached by its text and the width: an edit of one field re-renders one section.
Rich separates top-level blocks with one blank line, so the sections joined by one blank
line read as the whole text rendered at once. (A reference-style link whose definition sits
in another section would show as plain text; summaries use none.)

Rich renders Markdown on whichever thread calls it, slowly for a big text. Sections not
yet rendered that add up to more than ``SYNC_RENDER_CHARS`` are rendered in a thread, with
"rendering the summary…" shown meanwhile, so a big summary never holds the event loop.

A summary template can write tens of MB (the engine's output budget is 64 MiB), which Rich
would take minutes and gigabytes to render, its thread holding the GIL all along. Both views
show the first ``PREVIEW_CHARS`` of a longer summary, with a note giving
its size; copying and saving take the whole summary (``SummaryPreview.markdown``).
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass

from rich.console import Console, ConsoleOptions
from rich.segment import Segment
from rich.style import Style as RichStyle
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import ContentSwitcher, Static

from goose_tui.inert import inert
from goose_tui.tui.highlight import lexer_name, markdown_with_languages
from goose_tui.tui.messages import WorkerErrorsUp
from goose_tui.tui.widgets.text_viewer import TextViewer

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r" {0,3}#{1,6}(\s|$)")
SECTION_CACHE = 64  # sections kept per widget; a summary has about ten
SYNC_RENDER_CHARS = 32_000  # short enough to render on the event loop; more goes to a thread
RENDERING = "rendering the summary…"
# The most of a summary the views show: a second or two of Rich and pygments on a slow core
# (in a thread), ~50 pages; nobody reads further in a pane.
PREVIEW_CHARS = 200_000

# (section, width) -> (lines, whether Rich puts a blank line after the section)
# A rendered line: Rich segments (a Strip, with its seven caches, is made when it is drawn).
Row = list[Segment]
Rendered = dict[tuple[str, int], tuple[list[Row], bool]]


def _sections_of(text: str) -> list[str]:
    """``text`` as shown (inert, fences given their languages), cut into sections."""
    # Fences get the language of the file heading above them (key_code), so Rich
    # highlights them; the source view and everything saved keep the text as it is.
    shown = markdown_with_languages(inert(text)) if text.strip() else ""
    return split_sections(shown) if shown else []


def preview_head(text: str, limit: int = PREVIEW_CHARS) -> str:
    """``text``, or its first ``limit`` characters or fewer, ended at a line break when one
    falls in the second half of them (a 58 MB summary can be a single line)."""
    if len(text) <= limit:
        return text
    cut = text.rfind("\n", limit // 2, limit)
    return text[: cut + 1] if cut != -1 else text[:limit]


def split_sections(text: str) -> list[str]:
    """``text`` cut before every ATX heading that is not inside a fenced code block."""
    sections: list[list[str]] = [[]]
    fence = ""  # the open fence's run of backticks or tildes
    for line in text.split("\n"):
        if fence:
            stripped = line.strip()
            if stripped.startswith(fence) and set(stripped) == {fence[0]}:
                fence = ""
        elif match := _FENCE.match(line):
            fence = match.group(1)
        elif _HEADING.match(line) and sections[-1]:
            sections.append([])
        sections[-1].append(line)
    return ["\n".join(lines) for lines in sections]


def warm_up() -> None:
    """Do once, from a thread, what the first summary's render does once on the loop:
    import Rich's Markdown and markdown-it, compile markdown-it's link patterns
    and pygments' file-name patterns (a heading's language)."""
    from rich.markdown import Markdown as RichMarkdown

    lexer_name(path="no-language.goose-tui-warm-up")  # matches none: tries every pattern
    sample = "# notes.py\n\n- a `b` **c** https://example.com\n\n```python\nx = 1\n```"
    Console(width=40, file=io.StringIO()).render_lines(RichMarkdown(sample, hyperlinks=False))


@dataclass(frozen=True)
class _Renderer:
    """What rendering a section needs from the app, read on the event loop so a thread can
    render with it."""

    console: Console
    options: ConsoleOptions
    style: RichStyle
    dark: bool

    def render(self, section: str, width: int) -> tuple[list[Row], bool]:
        # Imported on the first summary, not at start-up: rich.markdown brings markdown-it,
        # which the first screen, showing no summary yet, need not wait for.
        from rich.markdown import Markdown as RichMarkdown

        markdown = RichMarkdown(
            section, hyperlinks=False, code_theme="github-dark" if self.dark else "friendly"
        )
        options = self.options.update(width=width, height=None, highlight=False)
        lines = self.console.render_lines(markdown, options, style=self.style)
        # Rich writes a blank line before a block when the block before it asks for one
        # (its element's ``new_line``): the last top-level token of the section decides.
        last = next((t.type for t in reversed(markdown.parsed) if t.level == 0), "")
        opening = last.removesuffix("_close") + "_open"  # elements are keyed by the opener
        element = markdown.elements.get(opening) or markdown.elements.get(last)
        return lines, bool(getattr(element, "new_line", True))


class MarkdownLines(ScrollView, can_focus=True):
    """Markdown rendered by Rich into lines, re-rendered only when the text or width changes.

    The scroll bar's gutter is always kept: otherwise a big summary's lines going (while a
    thread renders them) and coming back took the bar away and back, changed the width,
    and each width started another render, without end."""

    DEFAULT_CSS = """
    MarkdownLines { background: $surface; overflow-x: hidden; scrollbar-gutter: stable; }
    MarkdownLines > .markdown-lines--placeholder { color: $text-muted; text-style: italic; }
    """
    COMPONENT_CLASSES = {"markdown-lines--placeholder"}

    class SectionsRendered(Message):
        """Posted by the rendering thread: one text's sections and their lines."""

        def __init__(
            self, generation: int, sections: list[str], rendered: Rendered, head: bool = False
        ) -> None:
            super().__init__()
            self.generation = generation
            self.sections = sections
            self.rendered = rendered
            self.head = head  # the first sections only: the thread goes on with the rest

    def __init__(
        self, *, placeholder: str = "", id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(id=id, classes=classes)
        self._placeholder = placeholder
        self._text = ""
        # The text cut into sections; None while a thread prepares a big text's sections.
        self._sections: list[str] | None = []
        self._cache: Rendered = {}
        self._rows: list[Row] = []
        self._rows_text: str | None = None  # the text self._rows show
        self._rendered_width = -1  # the width self._rows were rendered at
        self._generation = 0  # bumped per text and width: a thread's late result is dropped
        self._rendering = False  # a thread is rendering the current text

    def set_markdown(self, text: str) -> None:
        self._text = text
        # Making a big text inert and finding its fences is slow too: the thread that
        # renders it does that as well.
        self._sections = _sections_of(text) if len(text) <= SYNC_RENDER_CHARS else None
        self._rendered_width = -1
        if self.is_mounted and self._width:
            self._render_lines(self._width)  # now, so the virtual size is right at once
        self.refresh()

    @property
    def text(self) -> str:
        """The Markdown shown."""
        return self._text

    @property
    def lines(self) -> list[Strip]:
        """The rendered lines (for tests)."""
        return [Strip(row, self._rendered_width) for row in self._rows]

    @property
    def lines_count(self) -> int:
        """How many lines the current text has rendered to (0 while a thread renders it)."""
        return len(self._rows)

    @property
    def rendering(self) -> bool:
        """Whether a thread is still rendering the current text."""
        return self._rendering

    def _render_lines(self, width: int) -> None:
        self._rendered_width = width
        self._generation += 1
        sections, cache = self._sections, self._cache
        if sections is not None:
            missing = {s for s in sections if (s, width) not in cache}
            if sum(map(len, missing)) <= SYNC_RENDER_CHARS:
                renderer = self._renderer()
                self._rendering = False
                self._show(sections, {(s, width): renderer.render(s, width) for s in missing})
                return
        # Too much for the event loop: a thread renders it, and until it is done the pane
        # says so rather than showing the previous summary's lines (the same text at the
        # last width stays, after a resize).
        self._rendering = True
        fresh = self._rows_text is not self._text
        if fresh:
            self._rows = []
            self.virtual_size = Size(width, 1)
        generation, renderer, text = self._generation, self._renderer(), self._text
        # A new text's first screens are shown as soon as they are rendered (all of a big
        # summary takes Rich seconds), the rest when all of it is.
        first = max(self.size.height, 10) * 2 if fresh else 0

        def work() -> None:
            cut = sections if sections is not None else _sections_of(text)
            rendered: Rendered = {}
            rows = 0
            for number, section in enumerate(cut):
                key = (section, width)
                if key not in rendered:
                    rendered[key] = cache.get(key) or renderer.render(section, width)
                if first and rows < first <= (rows := rows + len(rendered[key][0]) + 1):
                    head = cut[: number + 1]
                    self.post_message(self.SectionsRendered(generation, head, dict(rendered), True))
            self.post_message(self.SectionsRendered(generation, cut, rendered))

        self.run_worker(work, thread=True, group="markdown-lines", exclusive=True)

    def on_markdown_lines_sections_rendered(self, message: SectionsRendered) -> None:
        message.stop()
        if message.generation == self._generation:
            self._rendering = message.head
            self._show(message.sections, message.rendered, head=message.head)
            self.refresh()

    def _show(self, sections: list[str], rendered: Rendered, *, head: bool = False) -> None:
        """The text's lines at the rendered width, from ``rendered`` and the cache (``head``:
        its first sections only, shown while the rest renders; nothing is kept of them)."""
        width = self._rendered_width
        blank: Row = [Segment(" " * width, self.rich_style)]
        cache: Rendered = {}
        rows: list[Row] = []
        gap = False
        for section in sections:
            key = (section, width)
            lines, next_gap = cache[key] = rendered.get(key) or self._cache[key]
            rows.extend([blank, *lines] if gap else lines)
            gap = next_gap
        self._rows, self._rows_text = rows, self._text
        self.virtual_size = Size(width, len(rows))
        if head:
            return
        self._sections = sections
        # Keep what this text used plus the most recent others (typing back and forth).
        self._cache = dict(list(self._cache.items())[-SECTION_CACHE:]) | cache

    def _renderer(self) -> _Renderer:
        dark = self.app.current_theme.dark if self.app.current_theme else True
        return _Renderer(self.app.console, self.app.console_options, self.rich_style, dark)

    @property
    def _width(self) -> int:
        # The width left beside the vertical scrollbar, so lines never need a horizontal one.
        return self.scrollable_content_region.width

    def on_resize(self) -> None:
        if self._width != self._rendered_width:
            self._render_lines(self._width)
            self.refresh()

    def render_line(self, y: int) -> Strip:
        width = self._width
        if width != self._rendered_width:
            self._render_lines(width)
        base = self.rich_style
        number = self.scroll_offset.y + y
        if not self._rows:
            placeholder = RENDERING if self._rendering else self._placeholder
            if y == 0 and placeholder:
                style = base + self.get_component_rich_style("markdown-lines--placeholder")
                return Strip([Segment(placeholder, style)]).crop_extend(0, width, base)
            return Strip.blank(width, base)
        if number >= len(self._rows):
            return Strip.blank(width, base)
        strip = Strip(self._rows[number], self._rendered_width)
        if self._rendering and self._rendered_width != width:  # the last width's, for now
            return strip.crop_extend(0, width, base)
        return strip


class SummaryPreview(WorkerErrorsUp, Vertical, can_focus=False):
    """The summary's two views, and a note over them when they show only its head."""

    DEFAULT_CSS = """
    SummaryPreview > #preview-note { height: auto; padding: 0 1; background: $boost;
                                     color: $warning; display: none; }
    """
    BINDINGS = [
        Binding("m", "toggle_source", "Preview/source", id="preview.toggle_source"),
    ]

    show_source: reactive[bool] = reactive(False)

    def __init__(
        self,
        *,
        placeholder: str = "no summary yet",
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self._markdown = ""
        self._placeholder = placeholder

    @property
    def markdown(self) -> str:
        return self._markdown

    def compose(self) -> ComposeResult:
        yield Static(id="preview-note")
        with ContentSwitcher(initial="preview-markdown"):
            yield MarkdownLines(id="preview-markdown", placeholder=self._placeholder)
            yield TextViewer(id="preview-source", placeholder=self._placeholder, syntax="markdown")

    def set_markdown(self, text: str) -> None:
        self._markdown = text
        shown = preview_head(text)
        note = self.query_one("#preview-note", Static)
        note.display = len(shown) < len(text)
        if note.display:
            note.update(
                Content(
                    f"a huge summary: showing the first {len(shown):,} of {len(text):,} "
                    "characters · copying and saving take all of it"
                )
            )
        self.query_one("#preview-markdown", MarkdownLines).set_markdown(shown)
        self.query_one("#preview-source", TextViewer).set_text(shown)

    @work(thread=True, group="warm-up", exit_on_error=False)
    def prepare(self) -> None:
        """What a compaction's result needs once (this rendering, and the reply's check),
        prepared while the app is idle rather than on the loop by the first summary."""
        import goose_tui.compaction.reply_check  # noqa: F401

        warm_up()

    def watch_show_source(self, show: bool) -> None:
        switcher = self.query_one(ContentSwitcher)
        switcher.current = "preview-source" if show else "preview-markdown"

    def action_toggle_source(self) -> None:
        self.show_source = not self.show_source
