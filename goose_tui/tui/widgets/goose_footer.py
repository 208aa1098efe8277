"""The footer: ``? Help`` first, so a narrow terminal never cuts it off, and at
``NARROW_COLUMNS`` or fewer the most important bindings next, in ``IMPORTANT`` order.

Textual's footer lists the focused widget's bindings, then the screen's, then the app's, so
``? Help`` (an app binding) falls off the end of a narrow one. Everything else comes in
Textual's order; the command palette key stays at the right edge.

It is one widget drawing one line from ``Screen.active_bindings``, laid out and styled as
Textual's footer lays out its keys; Textual's builds a widget per key again after every focus
change and resize, which is a large part of the main screen's widgets and of its start.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import App
from textual.binding import Binding
from textual.reactive import reactive
from textual.screen import Screen
from textual.widget import Widget

NARROW_COLUMNS = 100
HELP_ACTIONS = ("help", "app.help")

# Binding ids, most important first: what a user needs to get going on each screen.
IMPORTANT = (
    "main.compact",
    "main.next_pane",
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


def bound_key(app: App[Any], binding: Binding) -> str:
    """The key a hint should name for ``binding``: the user's keymap's for its id (its first
    key), else the declared one, as the footer shows keys."""
    keymap: dict[str, str] = getattr(app, "keymap", {})  # a bare App (a test's) has none
    keys = keymap.get(binding.id or "", binding.key)
    return app.get_key_display(Binding(keys.split(",")[0].strip() or binding.key, ""))


def _declared_order(nodes: list[Any]) -> dict[str, int]:
    """Each binding's place (by id, else action) in the BINDINGS of ``nodes``' classes, the
    nodes in the order given, each class's own before its bases'."""
    order: dict[str, int] = {}
    for node in dict.fromkeys(nodes):
        for cls in type(node).__mro__:
            for binding in cls.__dict__.get("BINDINGS", ()):
                if isinstance(binding, Binding):
                    order.setdefault(binding.id or binding.action, len(order))
    return order


def footer_order(bindings: list[Binding], narrow: bool) -> list[Binding]:
    """``bindings`` in the order the footer shows them."""
    helps = [b for b in bindings if b.action in HELP_ACTIONS]
    rest = [b for b in bindings if b.action not in HELP_ACTIONS]
    if narrow:
        rank = {binding_id: n for n, binding_id in enumerate(IMPORTANT)}
        rest.sort(key=lambda b: rank.get(b.id or "", len(rank)))  # stable: ties keep order
    return helps[:1] + rest


class FooterKey(NamedTuple):
    """One key the footer shows, and the columns it takes (``start`` to ``end``)."""

    key: str
    key_display: str
    description: str
    action: str
    disabled: bool
    tooltip: str
    palette: bool  # the command palette's key, at the right edge
    start: int = 0
    end: int = 0


class GooseFooter(Widget, can_focus=False):
    ALLOW_SELECT = False
    COMPONENT_CLASSES = {
        "footer-key--key",
        "footer-key--description",
        "footer--palette-edge",
        "footer--hover",
    }
    # Textual's FooterKey and Footer rules, for one line (textual/widgets/_footer.py).
    DEFAULT_CSS = """
    GooseFooter {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
        .footer-key--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        .footer-key--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        .footer--palette-edge { color: $foreground 20%; }
        .footer--hover { color: $footer-key-foreground; background: $block-hover-background; }
    }
    """

    hovered: reactive[int | None] = reactive(None)  # the index of the key under the mouse

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.keys: list[FooterKey] = []  # as last drawn

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen[Any]) -> None:
        if self.is_attached and screen is self.screen:
            self.refresh()

    @property
    def compact(self) -> bool:
        """At NARROW_COLUMNS or fewer: less space around each key, the important keys first."""
        return self.app.size.width <= NARROW_COLUMNS

    def _plan(self) -> list[FooterKey]:
        """The keys the footer shows now, placed: the ones that fit whole, the palette's last."""
        app = self.app
        active = self.screen.active_bindings
        shown: list[tuple[Binding, bool, str]] = []
        seen_actions: set[str] = set()
        for _, binding, enabled, tooltip in active.values():
            if binding.show and binding.action not in seen_actions:
                seen_actions.add(binding.action)
                shown.append((binding, enabled, tooltip))
        # In Textual's order with the keys as declared (priority ones first): a key rebound
        # by the user's keymap comes last among Textual's bindings, and would leave the
        # footer's visible part.
        declared = _declared_order([node for node, *_ in active.values()])
        shown.sort(
            key=lambda entry: (
                not entry[0].priority,
                declared.get(entry[0].id or entry[0].action, len(declared)),
            )
        )
        by_binding = {id(binding): (enabled, tooltip) for binding, enabled, tooltip in shown}
        compact = self.compact
        ordered = footer_order([binding for binding, _, _ in shown], compact)
        width = self.size.width or app.size.width
        palette: FooterKey | None = None
        found = active.get(app.COMMAND_PALETTE_BINDING) if app.ENABLE_COMMAND_PALETTE else None
        if found is not None:
            _, binding, enabled, _ = found
            display = app.get_key_display(binding)
            start = width - palette_width(display, binding.description)
            tip = binding.tooltip or binding.description
            palette = FooterKey(
                binding.key,
                display,
                binding.description,
                binding.action,
                not enabled,
                tip,
                True,
                start,
                width,
            )
        # Only the keys that fit whole: the last one was cut at the edge, and a character of
        # it showed beside the palette's key ("^p palettes"). The palette lists them all.
        room = palette.start if palette is not None else width
        keys: list[FooterKey] = []
        x = 0
        for binding in ordered:
            enabled, tooltip = by_binding[id(binding)]
            display = app.get_key_display(binding)
            end = x + key_width(display, binding.description, compact)
            if end > room:
                break
            keys.append(
                FooterKey(
                    binding.key,
                    display,
                    binding.description,
                    binding.action,
                    not enabled,
                    tooltip,
                    False,
                    x,
                    end,
                )
            )
            x = end
        if palette is not None:
            keys.append(palette)
        return keys

    def render(self) -> Text:
        self.keys = keys = self._plan()
        base = self.rich_style
        key_style = self.get_component_rich_style("footer-key--key", partial=True)
        description_style = self.get_component_rich_style("footer-key--description", partial=True)
        hover = self.get_component_rich_style("footer--hover", partial=True)
        edge = self.get_component_rich_style("footer--palette-edge")
        line = Text(no_wrap=True, end="")
        x = 0
        for index, key in enumerate(keys):
            line.append(" " * (key.start - x), base)
            under = base + hover if index == self.hovered else base
            if key.disabled:
                under += Style(dim=True)
            if key.palette:
                line.append("▏", edge)
            if key.palette or self.compact:
                pieces = [key.key_display, f" {key.description}" if key.description else ""]
            else:
                pieces = [f" {key.key_display} ", f"{key.description} " if key.description else ""]
            line.append(pieces[0], under + key_style)
            line.append(pieces[1], under + description_style)
            x = line.cell_len
            line.append(" " * (key.end - x), base)  # a compact key's margin, the palette's
            x = key.end
        line.append(" " * max(self.size.width - x, 0), base)
        return line

    def key_at(self, x: int) -> int | None:
        """The index of the key drawn at column ``x``."""
        for index, key in enumerate(self.keys):
            if key.start <= x < key.end and (key.palette or x < key.end - self.compact):
                return index
        return None

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self.hovered = self.key_at(event.x)
        key = self.keys[self.hovered] if self.hovered is not None else None
        self.tooltip = key.tooltip if key is not None and key.tooltip else None

    def on_leave(self) -> None:
        self.hovered = None

    def on_mouse_down(self, event: events.MouseDown) -> None:
        index = self.key_at(event.x)
        if index is None:
            return
        key = self.keys[index]
        if key.disabled:
            self.app.bell()
        else:
            self.app.simulate_key(key.key)


# The columns a key takes, as Textual's footer styles lay it out (textual/widgets/_footer.py),
# margins included: compact, the key's own text, a space and the description, then a margin
# of one; otherwise a space each side of the key and one after the description.
def key_width(display: str, description: str, compact: bool) -> int:
    if compact:
        return cell_len(display) + (1 + cell_len(description) if description else 0) + 1
    return cell_len(display) + 2 + (cell_len(description) + 1 if description else 0)


def palette_width(display: str, description: str) -> int:
    """The palette's key, drawn compact in either mode, and a bar on its left (its padding
    in a wide footer takes the column its margin takes in a compact one)."""
    return key_width(display, description, True) + 1
