"""Going back from an analysis screen to one message of the conversation."""

from __future__ import annotations

from collections.abc import Sequence

from textual.dom import DOMNode

from goose_tui.tui.host import host


def show_message(node: DOMNode, index: int, highlight: Sequence[int] = ()) -> None:
    """Pop back to the inspector and select (highlight and scroll to) message ``index``;
    ``highlight`` marks these messages too (n / N move between them)."""
    host(node).show_message(index, highlight)
