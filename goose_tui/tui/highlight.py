"""Syntax highlighting with pygments, as spans of a few theme-coloured classes.

Every highlighted place in the app (the JSON editor, the Markdown source, key_code, tool
arguments and output, the compare diff) asks for the same thing: per line, ``(start, end,
kind)`` spans where ``kind`` is one of ``SYNTAX_KINDS``. Each widget maps a kind to a
component class styled with the theme's variables (``$success``, ``$warning``...), so colours
follow the theme. Text is made inert before display, so spans are computed on the inert
text. Big texts are not highlighted (``MAX_HIGHLIGHT_CHARS``): a 50 MB prompt stays fast.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

# (start, end, kind) in characters of one line.
LineSpans = list[tuple[int, int, str]]

MAX_HIGHLIGHT_CHARS = 400_000
SYNTAX_KINDS = (
    "keyword",
    "string",
    "number",
    "comment",
    "name",
    "constant",
    "heading",
    "emphasis",
    "deleted",
    "inserted",
    "meta",
)


def syntax_css(widget: str, prefix: str) -> str:
    """CSS for a widget that uses the kinds as component classes ``{prefix}--syn-{kind}``."""
    colours = {
        "keyword": "color: $accent; text-style: bold;",
        "string": "color: $success;",
        "number": "color: $warning;",
        "comment": "color: $text-muted; text-style: italic;",
        "name": "color: $primary;",
        "constant": "color: $secondary;",
        "heading": "color: $primary; text-style: bold;",
        "emphasis": "text-style: italic;",
        "deleted": "color: $error;",
        "inserted": "color: $success;",
        "meta": "color: $secondary; text-style: bold;",
    }
    return "\n".join(
        f"{widget} > .{prefix}--syn-{kind} {{ {rule} }}" for kind, rule in colours.items()
    )


def syntax_classes(prefix: str) -> set[str]:
    return {f"{prefix}--syn-{kind}" for kind in SYNTAX_KINDS}


# kind -> (theme variable, bold, italic), for places that need Rich styles (Tree labels,
# the TextArea theme) rather than component classes.
_THEME_STYLES = {
    "keyword": ("accent", True, False),
    "string": ("success", False, False),
    "number": ("warning", False, False),
    "comment": ("text-muted", False, True),
    "name": ("primary", False, False),
    "constant": ("secondary", False, False),
    "heading": ("primary", True, False),
    "emphasis": ("", False, True),
    "deleted": ("error", False, False),
    "inserted": ("success", False, False),
    "meta": ("secondary", True, False),
}


def rich_syntax_styles(variables: dict[str, str]) -> dict[str, Any]:
    """A Rich style per kind from the app theme's variables (``App.theme_variables``)."""
    from rich.style import Style
    from textual.color import Color

    styles: dict[str, Any] = {}
    for kind, (name, bold, italic) in _THEME_STYLES.items():
        color = None
        if name in variables:
            try:
                color = Color.parse(variables[name]).rich_color
            except Exception:  # noqa: BLE001 - a colour we cannot read leaves the text plain
                color = None
        styles[kind] = Style(color=color, bold=bold or None, italic=italic or None)
    return styles


def _kind(token: Any) -> str | None:
    from pygments import token as t

    for kind, types in (
        ("deleted", (t.Generic.Deleted,)),
        ("inserted", (t.Generic.Inserted,)),
        ("meta", (t.Generic.Subheading,)),
        ("heading", (t.Generic.Heading,)),
        ("emphasis", (t.Generic.Emph, t.Generic.Strong)),
        ("comment", (t.Comment,)),
        ("constant", (t.Keyword.Constant, t.Name.Builtin.Pseudo)),
        ("keyword", (t.Keyword, t.Operator.Word)),
        ("string", (t.String,)),
        ("number", (t.Number,)),
        ("name", (t.Name.Tag, t.Name.Function, t.Name.Class, t.Name.Attribute)),
    ):
        if any(token in kind_type for kind_type in types):
            return kind
    return None


@lru_cache(maxsize=128)
def lexer_name(language: str | None = None, path: str | None = None) -> str | None:
    """A pygments lexer alias for a language name or a file's name; None when unknown."""
    from pygments.lexers import find_lexer_class_for_filename, get_lexer_by_name
    from pygments.util import ClassNotFound

    if language:
        try:
            alias: str = get_lexer_by_name(language).aliases[0]
            return alias
        except (ClassNotFound, IndexError):
            pass
    if path:
        try:
            found = find_lexer_class_for_filename(path.rsplit("/", 1)[-1])
        except ClassNotFound:
            found = None
        if found is not None and found.aliases:
            first: str = found.aliases[0]
            return first
    return None


@lru_cache(maxsize=64)
def _lexer(name: str) -> Any:
    from pygments.lexers import get_lexer_by_name

    return get_lexer_by_name(name, stripnl=False, ensurenl=False)


def highlight_lines(text: str, language: str | None) -> list[LineSpans]:
    """Spans for each line of ``text`` (split on ``\\n``) in ``language`` (a pygments
    alias); no spans when the language is unknown or the text is too big."""
    lines = text.split("\n")
    spans: list[LineSpans] = [[] for _ in lines]
    if not language or len(text) > MAX_HIGHLIGHT_CHARS:
        return spans
    try:
        lexer = _lexer(language)
    except Exception:  # noqa: BLE001 - an unknown lexer means plain text
        return spans
    line, column = 0, 0
    for token, value in lexer.get_tokens(text):
        kind = _kind(token)
        pieces = value.split("\n")
        for number, piece in enumerate(pieces):
            if number:
                line, column = line + 1, 0
            if kind and piece and line < len(spans):
                spans[line].append((column, column + len(piece), kind))
            column += len(piece)
    return spans


def pretty_json(text: str) -> str | None:
    """``text`` pretty-printed when it is a JSON object or array; None otherwise."""
    stripped = text.strip()
    if not stripped or stripped[0] not in "[{":
        return None
    try:
        value = json.loads(stripped)
    except ValueError:
        return None
    return json.dumps(value, indent=2, ensure_ascii=False)


def markdown_with_languages(text: str) -> str:
    """``text`` with a language added to every fenced block that has none, taken from the
    file heading above it (``### path/to/file.py``, as the summary template writes key_code).
    For the preview only: Rich highlights a fence by its language."""
    out: list[str] = []
    fence = ""
    language: str | None = None
    for line in text.split("\n"):
        stripped = line.strip()
        if fence:
            if stripped.startswith(fence) and set(stripped) == {fence[0]}:
                fence = ""
        elif stripped.startswith(("```", "~~~")):
            marker = stripped[0]
            run = len(stripped) - len(stripped.lstrip(marker))
            fence = marker * run
            if stripped == fence and language:
                line = f"{line}{language}"
        elif stripped.startswith("#"):
            heading = stripped.lstrip("#").strip()
            language = lexer_name(path=heading) if heading else None
        out.append(line)
    return "\n".join(out)
