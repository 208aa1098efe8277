"""One of the four inspector panes: a titled column that can be maximized and copied."""

from __future__ import annotations

from collections.abc import Callable

from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from goose_tui.inert import inert


class Pane(Vertical):
    """``copy_source`` returns the text the copy key puts on the clipboard."""

    ALLOW_MAXIMIZE = True
    DEFAULT_CSS = """
    Pane { border: round $primary 50%; border-title-color: $text; }
    Pane:focus-within { border: round $accent; }
    Pane > .pane-banner { height: auto; max-height: 3; padding: 0 1; background: $boost; }
    Pane > .pane-banner.-error { color: $error; text-style: bold; }
    Pane > .pane-banner.-fallback { color: $warning; }
    """

    def __init__(
        self,
        title: str,
        *,
        copy_source: Callable[[], str],
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.border_title = title
        self.copy_source = copy_source

    def set_title(self, title: str, subtitle: str = "") -> None:
        # Border titles are parsed as markup: escape what came from files or models.
        self.border_title = Content(inert(title))
        self.border_subtitle = Content(inert(subtitle))


class Banner(Static):
    """A one-line notice at the top of a pane (candidate read, fallback, error)."""

    shown: tuple[str, str] = ("", "")  # (text, kind) of the last ``show``

    def show(self, text: str, kind: str = "") -> None:
        self.shown = (text, kind)
        self.remove_class("-error", "-fallback")
        if kind:
            self.add_class(f"-{kind}")
        self.update(Content(inert(text)))
