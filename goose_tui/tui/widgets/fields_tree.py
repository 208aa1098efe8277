"""The parsed summary as a tree: the nine fields in order, then any extras."""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from goose_tui.compaction.structured import FIELD_ORDER, StructuredSummary
from goose_tui.inert import inert
from goose_tui.tui.highlight import highlight_lines, lexer_name, rich_syntax_styles

LABEL_LIMIT = 300  # a tree label is one line; the JSON editor has the full text
KEY_CODE_LINES = 40  # key_code shows as one leaf per line, highlighted by its file's language
# Items shown per list field. Tree nodes are built on the event loop, and a big session's
# summary has thousands of items; the JSON editor and the preview have them all.
ITEMS_SHOWN = 200


def _label(text: str, style: str = "") -> Text:
    # Text(...) rather than a str: Tree parses plain strings as markup.
    one_line = inert(text).replace("\n", " ⏎ ")
    if len(one_line) > LABEL_LIMIT:
        one_line = one_line[:LABEL_LIMIT] + "…"
    return Text(one_line, style=style)


def _more(node: TreeNode[None], count: int) -> None:
    if count > ITEMS_SHOWN:
        node.add_leaf(Text(f"… {count - ITEMS_SHOWN:,} more (the json tab has them all)", "dim"))


class FieldsTree(Tree[None]):
    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(Text("summary"), id=id, classes=classes)
        self.show_root = False
        self.guide_depth = 2
        self.root.expand()  # kept by clear()

    def process_label(self, label: str | Text) -> Text:
        # Every label is one line already (``_label``, ``_highlighted``); Textual's own copies
        # each Text to take its first line.
        if isinstance(label, Text) and "\n" not in label.plain:
            return label
        return super().process_label(label)

    def show_summary(self, summary: StructuredSummary | None) -> None:
        self.clear()
        if summary is None:
            self.root.add_leaf(_label("(no structured summary)", "italic"))
            return
        for name in FIELD_ORDER:
            value = getattr(summary, name)
            self._add_field(name, value)
        for name, value in summary.extras.items():
            self._add_field(name, value, extra=True)

    def _add_field(self, name: str, value: Any, *, extra: bool = False) -> None:
        title = f"{name} (extra)" if extra else name
        if name == "files" and not extra:
            node = self.root.add(_label(f"{title} [{len(value)}]", "bold"), expand=True)
            for entry in value[:ITEMS_SHOWN]:
                file_node = node.add(_label(entry.path or "(no path)", "bold"), expand=True)
                file_node.add_leaf(_label(entry.summary))
                if entry.key_code:
                    language = lexer_name(path=entry.path) if entry.path else None
                    code_title = f"key_code ({language or 'text'})"
                    code = file_node.add(_label(code_title, "dim"), expand=True)
                    for line in self._highlighted(entry.key_code, language, KEY_CODE_LINES):
                        code.add_leaf(line)
            _more(node, len(value))
            return
        if isinstance(value, list):
            node = self.root.add(_label(f"{title} [{len(value)}]", "bold"), expand=True)
            for item in value[:ITEMS_SHOWN]:
                if isinstance(item, str):
                    node.add_leaf(_label(item))
                else:
                    node.add_leaf(self._highlighted(json.dumps(item), "json", 1)[0])
            _more(node, len(value))
            return
        node = self.root.add(_label(title, "bold"), expand=True)
        if value is None or isinstance(value, str):
            node.add_leaf(_label("—" if value is None else value))
        else:
            node.add_leaf(self._highlighted(json.dumps(value), "json", 1)[0])

    def _highlighted(self, text: str, language: str | None, limit: int) -> list[Text]:
        """One label per line of ``text`` (at most ``limit``), coloured by ``language``."""
        lines = inert(text).split("\n")
        more = len(lines) - limit
        lines = lines[:limit]
        spans = highlight_lines("\n".join(lines), language)
        styles = rich_syntax_styles(self.app.theme_variables) if language else {}
        labels = []
        for line, line_spans in zip(lines, spans, strict=True):
            label = Text(line[:LABEL_LIMIT])
            for start, end, kind in line_spans:
                label.stylize(styles[kind], start, end)
            labels.append(label)
        if more > 0:
            labels.append(Text(f"… {more:,} more lines", style="dim"))
        return labels
