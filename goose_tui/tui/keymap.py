"""The ``[keymap]`` of the settings file checked against the app's binding ids: Textual
ignores an id no binding has, so a typo there would rebind nothing and say nothing."""

from __future__ import annotations

import difflib
import importlib
import pkgutil
from collections.abc import Iterator, Mapping

from textual.binding import Binding
from textual.dom import DOMNode


def _subclasses(cls: type[DOMNode]) -> Iterator[type[DOMNode]]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def binding_ids() -> set[str]:
    """Every binding id of the app's screens and widgets (Textual's own included). Screens
    the app imports only when opened (the timeline, compare) are imported here: ~30 ms,
    paid only with a keymap."""
    from goose_tui.tui import screens, widgets

    for package in (screens, widgets):
        for module in pkgutil.iter_modules(package.__path__):
            importlib.import_module(f"{package.__name__}.{module.name}")
    return {
        binding.id
        for cls in {DOMNode, *_subclasses(DOMNode)}
        for binding in cls.__dict__.get("BINDINGS", ())
        if isinstance(binding, Binding) and binding.id
    }


def unknown_ids_problem(keymap: Mapping[str, str]) -> str | None:
    """What to report of the ids in ``keymap`` that no binding has (each with the closest
    one, when there is one), or None."""
    known = binding_ids()
    unknown = [name for name in keymap if name not in known]
    if not unknown:
        return None
    named = []
    for name in unknown:
        close = difflib.get_close_matches(name, known, n=1)
        named.append(f"{name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    return f"[keymap]: no binding has the id {', '.join(named)}"
