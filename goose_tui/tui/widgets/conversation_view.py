"""The conversation, one row per line on Textual's line API (no widget per message), so a
50 MB session with tens of thousands of messages scrolls without building a DOM for it.

Rows are built per message when first drawn: a collapsed message has one header row and one
row per content item, so where each message starts is known without formatting any text,
and opening a 20k-message session costs a pass over item counts, not over 50 MB of content.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from datetime import UTC, datetime
from itertools import accumulate
from typing import Any

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message as TextualMessage
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from goose_tui.compaction.format import field_text
from goose_tui.compaction.visibility import hidden_item_indices
from goose_tui.inert import inert
from goose_tui.session.models import Message, content_type
from goose_tui.tui.highlight import highlight_lines, pretty_json, syntax_classes, syntax_css

SHARE_BAR = 10
# Before an item whose audience excludes the assistant: the summarizer never receives it.
USER_ONLY_MARK = "(user only: not sent) "
EXPANDED_LINE_LIMIT = 400  # an expanded 10 MB tool output shows its head, not every line

# A row: (message index, component class, text, syntax spans (start, end, kind)).
Row = tuple[int, str, str, list[tuple[int, int, str]]]


def _first_line(text: str) -> tuple[str, int]:
    """The first line of ``text`` and how many more lines follow."""
    end = text.find("\n")
    if end == -1:
        return text, 0
    return text[:end], text.count("\n", end)


def _compact_json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return str(value)


def _result_chars(result: Any) -> int:
    """Characters of text in a tool result, without serializing a possibly huge value."""
    value = result.get("value") if isinstance(result, dict) else None
    items = value.get("content") if isinstance(value, dict) else value
    if not isinstance(items, list):
        return 0
    return sum(len(t) for i in items if isinstance(i, dict) and isinstance(t := i.get("text"), str))


def _item_summary(item: Any) -> tuple[str, str]:
    """(component class, one-line description) of a collapsed content item."""
    kind = content_type(item)
    if not isinstance(item, dict):
        return "conversation--other", f"[not an object] {item!r}"
    if kind == "text":
        line, more = _first_line(field_text(item.get("text")))  # as the summarizer gets it
        return "conversation--text", line + (f"  … (+{more} lines)" if more else "")
    if kind == "toolRequest":
        call = item.get("toolCall") or {}
        value = call.get("value") if isinstance(call, dict) else None
        if isinstance(value, dict):
            args = _compact_json(value.get("arguments", {}))
            return "conversation--tool", f"▸ tool call {value.get('name', '?')} {args}"
        return "conversation--tool", "▸ tool call [error]"
    if kind == "toolResponse":
        result = item.get("toolResult") or {}
        status = result.get("status", "?") if isinstance(result, dict) else "?"
        return "conversation--tool", f"▸ tool response ({status}, {_result_chars(result):,} chars)"
    if kind in ("thinking", "redactedThinking", "reasoning"):
        line, _ = _first_line(str(item.get("thinking", "") or "[redacted]"))
        return "conversation--thinking", f"thinking (dropped from summarizer input): {line}"
    if kind == "image":
        return "conversation--other", f"[image: {item.get('mimeType', '?')}]"
    return "conversation--other", f"[{kind or 'untyped'}] {_compact_json(item)[:200]}"


def _tool_output_pieces(result: Any) -> list[tuple[str, str | None]]:
    """(text, language) of each piece of a tool result: text items with real newlines (JSON
    text pretty-printed), other items as JSON, an error as its message."""
    if not isinstance(result, dict):
        return [(_pretty(result), "json")]
    if result.get("status") == "error":
        return [(f"error: {result.get('error', '')}", None)]
    value = result.get("value")
    items = value.get("content") if isinstance(value, dict) else value
    if not isinstance(items, list):
        return [(_pretty(value), "json")]
    pieces: list[tuple[str, str | None]] = []
    for piece in items:
        text = piece.get("text") if isinstance(piece, dict) else None
        # A text piece that is no string (null) is not sent to the summarizer: its JSON.
        if isinstance(text, str) and content_type(piece) == "text":
            pretty = pretty_json(text)
            pieces.append((pretty, "json") if pretty is not None else (text, None))
        else:
            pieces.append((_pretty(piece), "json"))
    if isinstance(value, dict) and value.get("isError"):
        pieces.insert(0, ("(the tool reported an error)", None))
    return pieces


def _pretty(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2, default=str)


def _item_full(item: Any) -> tuple[str, str | None, list[tuple[str, str | None]]]:
    """(component class, head line or None, [(body text, language)]) of an expanded item."""
    kind = content_type(item)
    style, head = _item_summary(item)
    if kind == "text":
        return style, None, [(field_text(item.get("text")), None)]
    if kind in ("thinking", "redactedThinking", "reasoning"):
        body = str(item.get("thinking", "") or item.get("data", ""))
        return style, "thinking (dropped from summarizer input):", [(body, None)]
    if kind == "toolRequest":
        call = item.get("toolCall") or {}
        value = call.get("value") if isinstance(call, dict) else None
        if isinstance(value, dict):
            name = value.get("name", "?")
            return style, f"▸ tool call {name}", [(_pretty(value.get("arguments", {})), "json")]
    if kind == "toolResponse":
        return style, head, _tool_output_pieces(item.get("toolResult"))
    return style, head, [(_pretty(item), "json")]


def _expanded_rows(index: int, item: Any) -> list[Row]:
    style, head, pieces = _item_full(item)
    rows: list[Row] = [(index, style, inert("  " + head), [])] if head is not None else []
    budget = EXPANDED_LINE_LIMIT
    for text, language in pieces:
        lines = inert(text).split("\n")
        hidden = max(len(lines) - budget, 0)
        lines = lines[:budget]
        budget -= len(lines)
        spans = highlight_lines("\n".join(lines), language) if language else []
        for number, line in enumerate(lines):
            shifted = [(a + 2, b + 2, k) for a, b, k in spans[number]] if spans else []
            rows.append((index, style, "  " + line, shifted))
        if hidden:
            rows.append((index, "conversation--other", f"  … {hidden:,} more lines", []))
        if budget <= 0:
            break
    return rows


class ConversationView(ScrollView, can_focus=True):
    DEFAULT_CSS = """
    ConversationView { background: $surface; }
    ConversationView > .conversation--header { text-style: bold; }
    ConversationView > .conversation--user { color: $accent; }
    ConversationView > .conversation--assistant { color: $success; }
    ConversationView > .conversation--selected { background: $boost; text-style: bold reverse; }
    ConversationView > .conversation--highlighted { background: $warning 30%; }
    ConversationView > .conversation--text { }
    ConversationView > .conversation--tool { color: $secondary; }
    ConversationView > .conversation--thinking { color: $text-muted; text-style: dim italic; }
    ConversationView > .conversation--other { color: $warning; }
    """ + syntax_css("ConversationView", "conversation")
    COMPONENT_CLASSES = {
        "conversation--header",
        "conversation--user",
        "conversation--assistant",
        "conversation--selected",
        "conversation--highlighted",
        "conversation--text",
        "conversation--tool",
        "conversation--thinking",
        "conversation--other",
    } | syntax_classes("conversation")
    BINDINGS = [
        Binding("up", "select(-1)", "Previous message", id="conversation.previous", show=False),
        Binding("down", "select(1)", "Next message", id="conversation.next", show=False),
        Binding("enter", "toggle_message", "Expand message", id="conversation.toggle"),
        Binding(
            "n",
            "next_highlighted(1)",
            "Next marked",
            id="conversation.next_marked",
            show=False,
        ),
        Binding(
            "N",
            "next_highlighted(-1)",
            "Previous marked",
            id="conversation.previous_marked",
            show=False,
        ),
    ]

    selected: reactive[int] = reactive(0, init=False)

    class Selected(TextualMessage):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._messages: list[Message] = []
        self._tokens: list[int] | None = None
        self._token_total = self._token_max = 1
        self._expanded: set[int] = set()
        # Messages marked by the context breakdown (a category's messages), in order.
        self.highlighted: list[int] = []
        self._highlighted_set: set[int] = set()
        self._row_cache: dict[int, list[Row]] = {}  # per message, built when first drawn
        self._starts: list[int] = []  # first row of each message
        self._row_total = 0

    def set_messages(self, messages: list[Message]) -> None:
        self._messages = messages
        self._tokens = None
        self._expanded.clear()
        self._row_cache.clear()
        self.highlight([])
        self.selected = 0
        self._rebuild()

    def highlight(self, indexes: list[int]) -> None:
        """Mark ``indexes`` (headers drawn in the highlight colour); [] clears."""
        self.highlighted = sorted(indexes)
        self._highlighted_set = set(self.highlighted)
        self.refresh()

    def action_next_highlighted(self, direction: int) -> None:
        marks = self.highlighted
        if not marks:
            self.notify("nothing marked: the context breakdown (u) marks a category's messages")
            return
        if direction > 0:
            following = [i for i in marks if i > self.selected]
            self.selected = following[0] if following else marks[0]
        else:
            preceding = [i for i in marks if i < self.selected]
            self.selected = preceding[-1] if preceding else marks[-1]

    def set_token_counts(self, tokens: list[int], total: int) -> None:
        """Each message's figure (what it adds to the context: Goose's estimate of it, reply
        primer included) and the total its share is of (the context breakdown's "total in
        context"), so a message reads here as it does in the breakdown."""
        self._tokens = tokens
        self._token_total = total or 1
        self._token_max = max(tokens, default=0) or 1
        self.refresh()

    @property
    def row_count(self) -> int:
        return self._row_total

    def row_text(self, row: int) -> str:
        """What row ``row`` says (for tests and copying)."""
        index, kind, text, _ = self._row(row)
        return self._header(index) if kind == "header" else text

    def _rows_of(self, index: int) -> list[Row]:
        rows = self._row_cache.get(index)
        if rows is None:
            rows = self._row_cache[index] = self._message_rows(index)
        return rows

    def _row(self, row: int) -> Row:
        index = bisect_right(self._starts, row) - 1
        return self._rows_of(index)[row - self._starts[index]]

    def _height(self, index: int) -> int:
        if index in self._expanded:
            return len(self._rows_of(index))
        return 1 + max(len(self._messages[index].content), 1)  # header + items (or <empty>)

    def _message_rows(self, index: int) -> list[Row]:
        message = self._messages[index]
        rows: list[Row] = [(index, "header", "", [])]
        # Items the summarizer does not receive as stored (their audience is the user only).
        user_only = hidden_item_indices(message)
        for position, item in enumerate(message.content):
            mark = USER_ONLY_MARK if position in user_only else ""
            if index in self._expanded:
                if mark:
                    rows.append((index, "conversation--other", "  " + mark.strip(), []))
                rows.extend(_expanded_rows(index, item))
            else:
                style, text = _item_summary(item)
                rows.append((index, style, inert("  " + mark + text), []))
        if not message.content:
            rows.append((index, "conversation--other", "  <empty message>", []))
        return rows

    def _rebuild(self) -> None:
        heights = [self._height(index) for index in range(len(self._messages))]
        self._starts = [0, *accumulate(heights)]
        self._row_total = self._starts.pop()
        # Rows are cut at the view's width (no horizontal scrolling: rows are built lazily, so
        # the widest is unknown). A width taken from ``self.size`` would depend on whether
        # layout had run yet, and with it whether a horizontal scrollbar showed.
        self.virtual_size = Size(0, self._row_total)
        self.refresh()

    def _header(self, index: int) -> str:
        message = self._messages[index]
        # Fixed widths, so the token column lines up: the time or a dash as wide, the number
        # as wide as the last message's.
        when = (
            datetime.fromtimestamp(message.created, UTC).strftime("%Y-%m-%d %H:%M")
            if message.created
            else f"{'—':<16}"
        )
        number = f"#{index + 1:<{len(str(len(self._messages)))}}"
        if not message.metadata.agent_visible:
            hidden = "  (not agent-visible: not sent)"
        elif message.metadata.turn_context:
            hidden = "  (turn context: not sent)"
        else:
            hidden = ""
        if self._tokens is None or index >= len(self._tokens):
            return f"{number} {inert(message.role):<9} {when}  … tokens{hidden}"
        tokens = self._tokens[index]
        # A message not sent has no share of the context (its mark says why).
        share = f"{tokens / self._token_total:5.1%}" if message.metadata.agent_visible else "    —"
        # The bar is relative to the largest message, so differences show even when every
        # share of a long session is small; the percentage gives the share of the whole.
        filled = min(round(tokens / self._token_max * SHARE_BAR), SHARE_BAR)
        bar = "▮" * filled + "·" * (SHARE_BAR - filled)
        return f"{number} {inert(message.role):<9} {when}  {tokens:>7,} tok {bar} {share}{hidden}"

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.size.width
        base = self.rich_style
        number = scroll_y + y
        if number >= self._row_total:
            return Strip.blank(width, base)
        index, kind, text, spans = self._row(number)
        if kind == "header":
            role = self._messages[index].role
            style = base + self.get_component_rich_style("conversation--header")
            if role in ("user", "assistant"):
                style += self.get_component_rich_style(f"conversation--{role}", partial=True)
            if index in self._highlighted_set:
                style += self.get_component_rich_style("conversation--highlighted", partial=True)
            if index == self.selected:
                style += self.get_component_rich_style("conversation--selected", partial=True)
            text = self._header(index)
        else:
            style = base + self.get_component_rich_style(kind, partial=True)
        if spans:
            return Strip(self._highlighted(text, style, spans)).crop_extend(
                scroll_x, scroll_x + width, base
            )
        return Strip([Segment(text, style)]).crop_extend(scroll_x, scroll_x + width, base)

    def _highlighted(
        self, text: str, style: Style, spans: list[tuple[int, int, str]]
    ) -> list[Segment]:
        segments: list[Segment] = []
        position = 0
        for start, end, kind in spans:
            if start > position:
                segments.append(Segment(text[position:start], style))
            extra = self.get_component_rich_style(f"conversation--syn-{kind}", partial=True)
            segments.append(Segment(text[start:end], style + extra))
            position = end
        if position < len(text):
            segments.append(Segment(text[position:], style))
        return segments

    def watch_selected(self, old: int, new: int) -> None:
        self.refresh()
        if 0 <= new < len(self._starts):
            self.scroll_to_region(Region(0, self._starts[new], 1, 1), animate=False)
            self.post_message(self.Selected(new))

    def action_select(self, delta: int) -> None:
        if self._messages:
            self.selected = min(max(self.selected + delta, 0), len(self._messages) - 1)

    def action_toggle_message(self) -> None:
        if not self._messages:
            return
        self._expanded ^= {self.selected}
        self._row_cache.pop(self.selected, None)
        self._rebuild()
        self.scroll_to_region(Region(0, self._starts[self.selected], 1, 1), animate=False)
