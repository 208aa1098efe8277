"""What the screens ask of the app, as a Protocol: screens hold the ``Inspector`` they are
given and call the app through this, so no screen imports ``tui.app`` (no import cycle) and
none reads another screen's attributes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, cast

from textual.dom import DOMNode

from goose_tui.compaction.profiles import GooseProfile
from goose_tui.compaction.templates import TemplateName
from goose_tui.inspector import Inspector


class InspectorHost(Protocol):
    """The app (``GooseTUI``) as its screens see it."""

    @property
    def inspector(self) -> Inspector: ...

    def worker_failed(self, title: str, error: BaseException | None) -> None:
        """The one place a worker's error becomes the error modal."""

    def ask_save(self) -> None: ...

    def edit_template(self, name: TemplateName) -> None: ...

    def set_goose_profile(self, profile: GooseProfile) -> None: ...

    def show_message(self, index: int, highlight: Sequence[int] = ()) -> None:
        """Back to the inspector with message ``index`` selected (``highlight``: also mark
        these messages)."""


def host(node: DOMNode) -> InspectorHost:
    """The app of ``node``, as the screens see it."""
    return cast(InspectorHost, node.app)
