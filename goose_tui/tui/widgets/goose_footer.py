"""The footer: ``? Help`` first, so a narrow terminal never cuts it off, and at
``NARROW_COLUMNS`` or fewer the most important bindings next, in ``IMPORTANT`` order.

Textual's footer lists the focused widget's bindings, then the screen's, then the app's: at
100 columns ``? Help`` (an app binding) fell off the end. Everything else comes in Textual's
order; the command palette key stays at the right edge.
"""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

NARROW_COLUMNS = 100
HELP_ACTIONS = ("help", "app.help")
# Binding ids, most important first: what a user needs to get going on each screen.
IMPORTANT = (
    "main.compact",
    "main.save",
    "main.retention",
    "main.compare",
    "main.timeline",
    "main.context",
    "main.focus",
    "main.search",
    "conversation.toggle",
    "retention.back",
    "compare.back",
    "compare.toggle_diff",
    "timeline.back",
    "context.back",
    "picker.choose",
    "picker.cancel",
    "app.quit",
)


def footer_order(bindings: list[Binding], narrow: bool) -> list[Binding]:
    """``bindings`` in the order the footer shows them."""
    helps = [b for b in bindings if b.action in HELP_ACTIONS]
    rest = [b for b in bindings if b.action not in HELP_ACTIONS]
    if narrow:
        rank = {binding_id: n for n, binding_id in enumerate(IMPORTANT)}
        rest.sort(key=lambda b: rank.get(b.id or "", len(rank)))  # stable: ties keep order
    return helps[:1] + rest


# What one key of the footer shows: (key, display, description, action, disabled, tooltip,
# palette). The footer is drawn again only when this list changes.
KeyPlan = tuple[str, str, str, str, bool, str, bool]


class GooseFooter(Footer):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._narrow: bool | None = None
        self._shown: tuple[bool, list[KeyPlan]] | None = None

    def on_resize(self) -> None:
        narrow = self.app.size.width <= NARROW_COLUMNS
        if narrow != self._narrow:
            self._narrow = narrow
            self.compact = narrow
        # Which keys fit depends on the width (compose).
        self.call_after_refresh(self.recompose)

    async def recompose(self) -> None:
        """Only when the keys shown change: Textual asks after every focus change and resize
        (four times as the app starts, twice per tab), and each rebuild of a dozen keys was
        ~10 ms of the event loop."""
        if self.is_attached and self._bindings_ready and self._shown == self._plan():
            return
        await super().recompose()

    def _plan(self) -> tuple[bool, list[KeyPlan]]:
        """(compact, the keys) the footer shows now."""
        active = self.screen.active_bindings
        shown: list[tuple[Binding, bool, str]] = []
        seen_actions: set[str] = set()
        for _, binding, enabled, tooltip in active.values():
            if binding.show and binding.action not in seen_actions:
                seen_actions.add(binding.action)
                shown.append((binding, enabled, tooltip))
        by_binding = {id(binding): (enabled, tooltip) for binding, enabled, tooltip in shown}
        narrow = self.app.size.width <= NARROW_COLUMNS
        ordered = footer_order([binding for binding, _, _ in shown], narrow)
        keys: list[KeyPlan] = []
        palette: KeyPlan | None = None
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            found = active.get(self.app.COMMAND_PALETTE_BINDING)
            if found is not None:
                _, binding, enabled, tooltip = found
                display, tip = self.app.get_key_display(binding), binding.tooltip
                palette = (
                    binding.key,
                    display,
                    binding.description,
                    binding.action,
                    not enabled,
                    tip or binding.description,
                    True,
                )
        # Only the keys that fit whole: the last one was cut at the edge, and a character of
        # it showed beside the palette's key ("^p palettes"). The palette lists them all.
        room = self.size.width or self.app.size.width
        if palette is not None:
            room -= palette_width(palette[1], palette[2])
        for binding in ordered:
            enabled, tooltip = by_binding[id(binding)]
            display = self.app.get_key_display(binding)
            room -= key_width(display, binding.description, self.compact)
            if room < 0:
                break
            keys.append(
                (
                    binding.key,
                    display,
                    binding.description,
                    binding.action,
                    not enabled,
                    tooltip,
                    False,
                )
            )
        if palette is not None:
            keys.append(palette)
        return self.compact, keys

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        self._shown = plan = self._plan()
        for key, display, description, action, disabled, tooltip, palette in plan[1]:
            if palette:
                yield FooterKey(
                    key,
                    display,
                    description,
                    action,
                    classes="-command-palette -compact",  # compact, as Textual draws it
                    disabled=disabled,
                    tooltip=tooltip,
                )
                continue
            widget = FooterKey(
                key,
                display,
                description,
                action,
                classes="-compact" if self.compact else "",
                disabled=disabled,
                tooltip=tooltip,
            )
            # Built in the footer's mode: Textual's key starts compact and is then bound to
            # the footer's mode, and each class change restyled the stylesheet for that key.
            widget.set_reactive(FooterKey.compact, self.compact)
            yield widget.data_bind(compact=Footer.compact)


# The columns Textual's footer styles give a key, margins included (textual/widgets/
# _footer.py): compact, the key's own text, a space and the description, then a margin of
# one; otherwise a space each side of the key and one after the description.
# tests/tui/test_discoverability.py compares them with the keys' laid-out widths.
def key_width(display: str, description: str, compact: bool) -> int:
    if compact:
        return cell_len(display) + (1 + cell_len(description) if description else 0) + 1
    return cell_len(display) + 2 + (cell_len(description) + 1 if description else 0)


def palette_width(display: str, description: str) -> int:
    """The palette's key, drawn compact in either mode, and a bar on its left (its padding
    in a wide footer takes the column its margin takes in a compact one)."""
    return key_width(display, description, True) + 1
