"""The ``[keymap]`` of the settings file checked against the app's binding ids and Textual's
key names: Textual ignores an id no binding has, so a typo there would rebind nothing and
say nothing, and takes any text as keys, so a typo in a key unbound the action."""

from __future__ import annotations

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
    the app imports only when opened (the timeline, compare) are imported here, a cost
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
    from goose_tui.settings import did_you_mean

    named = [did_you_mean(name, known) for name in unknown]
    return f"[keymap]: no binding has the id {', '.join(named)}"


_MODIFIERS = frozenset(("ctrl", "shift", "alt", "meta", "super", "hyper"))


def _is_key(name: str) -> bool:
    from textual.keys import Keys, key_to_character

    return len(name) == 1 or name in {k.value for k in Keys} or key_to_character(name) is not None


def key_problem(keys: str) -> str | None:
    """Why ``keys`` (a binding's keys as Textual reads them: ``"ctrl+s,f5"``) binds nothing
    it should, or None."""
    if not keys.strip():
        return "no key"
    for key in keys.split(","):
        *modifiers, name = key.strip().split("+")
        if bad := [m for m in modifiers if m not in _MODIFIERS]:
            return f"{bad[0]!r} is no modifier"
        if not _is_key(name):
            return f"{name!r} is no key" if name else f"{key.strip()!r} names no key"
    return None


def checked_keymap(keymap: Mapping[str, str]) -> tuple[dict[str, str], str | None]:
    """(the entries to apply, what to report of the others or None): an entry whose keys
    are no keys is left out, so its action keeps its own key."""
    good: dict[str, str] = {}
    bad: list[str] = []
    for binding_id, keys in keymap.items():
        if (problem := key_problem(keys)) is None:
            good[binding_id] = keys
        else:
            bad.append(f"{binding_id!r} = {keys!r} ({problem})")
    return good, f"[keymap]: {'; '.join(bad)}" if bad else None
