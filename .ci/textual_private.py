"""Fails on any use of Textual's private API in goose_tui/, which ruff cannot see.

ruff's SLF001 and PLC2701 catch ``obj._name`` and ``from textual._module import ...``. This
catches the rest: ``import textual.x._module``, and, in a class built on a Textual class, a
method, ``self._name`` or ``super()._name`` that is one of Textual's own private names
(overriding or reading it). Our own private names in such a class are fine.

    python .ci/textual_private.py   # prints each use, exits 1 if there is any
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import sys
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


@cache
def own_private_names(base: type) -> frozenset[str]:
    """The private names one Textual class defines, sets or reads. Once a class: getsource
    parses the class's whole module each time."""
    names = {name for name in vars(base) if private(name)}
    try:
        source = inspect.getsource(base)
    except (OSError, TypeError):
        return frozenset(names)
    return frozenset(names.union(re.findall(r"\bself\.(_[A-Za-z0-9]\w*)", source)))


def textual_private_names(cls: type) -> frozenset[str]:
    """The private names Textual's classes in ``cls``'s MRO define, set or read."""
    mro = (base for base in cls.__mro__ if base.__module__.startswith("textual."))
    return frozenset().union(*map(own_private_names, mro))


def imports(tree: ast.Module) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules = [node.module]
            if not any(map(private, node.module.split("."))):
                modules += [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        for module in modules:
            parts = module.split(".")
            if parts[0] == "textual" and any(map(private, parts[1:])):
                found.append((node.lineno, f"imports {module}"))
    return found


def in_textual_subclasses(tree: ast.Module, module: object) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        cls = getattr(module, node.name, None)
        if not inspect.isclass(cls):
            continue
        theirs = textual_private_names(cls)
        if not theirs:
            continue
        for inner in ast.walk(node):
            if isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef) and inner.name in theirs:
                found.append((inner.lineno, f"{node.name} overrides Textual's {inner.name}"))
            elif isinstance(inner, ast.Attribute) and inner.attr in theirs:
                owner = inner.value
                if (isinstance(owner, ast.Name) and owner.id in ("self", "cls")) or (
                    isinstance(owner, ast.Call)
                    and isinstance(owner.func, ast.Name)
                    and owner.func.id == "super"
                ):
                    found.append((inner.lineno, f"{node.name} uses Textual's {inner.attr}"))
    return found


def main() -> int:
    problems = []
    for path in sorted((ROOT / "goose_tui").rglob("*.py")):
        relative = path.relative_to(ROOT)
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text, str(relative))
        found = imports(tree)
        if "textual" in text:
            name = ".".join(relative.with_suffix("").parts).removesuffix(".__init__")
            found += in_textual_subclasses(tree, importlib.import_module(name))
        problems += [f"{relative}:{line}: {what}" for line, what in sorted(found)]
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} uses of Textual's private API (only its public API, please)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
