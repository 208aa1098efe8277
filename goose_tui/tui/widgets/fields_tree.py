"""The parsed summary as a tree: the nine fields in order, then any extras."""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text
from textual.widgets import Tree

from goose_tui.compaction.structured import FIELD_ORDER, StructuredSummary
from goose_tui.tui.inert import inert

LABEL_LIMIT = 300  # a tree label is one line; the JSON editor has the full text


def _label(text: str, style: str = "") -> Text:
    # Text(...) rather than a str: Tree parses plain strings as markup.
    one_line = inert(text).replace("\n", " ⏎ ")
    if len(one_line) > LABEL_LIMIT:
        one_line = one_line[:LABEL_LIMIT] + "…"
    return Text(one_line, style=style)


class FieldsTree(Tree[None]):
    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(Text("summary"), id=id, classes=classes)
        self.show_root = False
        self.guide_depth = 2

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
        self.root.expand_all()

    def _add_field(self, name: str, value: Any, *, extra: bool = False) -> None:
        title = f"{name} (extra)" if extra else name
        if name == "files" and not extra:
            node = self.root.add(_label(f"{title} [{len(value)}]", "bold"))
            for entry in value:
                file_node = node.add(_label(entry.path or "(no path)", "bold"))
                file_node.add_leaf(_label(entry.summary))
                if entry.key_code:
                    file_node.add_leaf(_label(f"key_code: {entry.key_code}", "dim"))
            return
        if isinstance(value, list):
            node = self.root.add(_label(f"{title} [{len(value)}]", "bold"))
            for item in value:
                node.add_leaf(_label(item if isinstance(item, str) else json.dumps(item)))
            return
        shown = "—" if value is None else value if isinstance(value, str) else json.dumps(value)
        node = self.root.add(_label(title, "bold"))
        node.add_leaf(_label(shown))
