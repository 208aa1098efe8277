"""Reading JSON in which one value must not make a whole session unreadable.

Python's ``json`` accepts ``NaN``/``Infinity``, turns ``1e400`` into ``inf``, refuses
integers of more than 4,300 digits with a ValueError, and lets a lone surrogate (``\\ud800``)
into a string, which no UTF-8 output (terminal, file, tokenizer, pydantic-core) can hold.
Each of those then fails far from the file (``int(nan)``, an encoder error).

Numbers are read as Goose's serde_json reads them (``serde_number``): 64-bit integers
exactly, a wider integer as the double Goose reads, floats through serde's float path; a
number serde cannot read (NaN, Infinity, 1e400, thousands of digits) is a bad one.

``loads`` decodes with number hooks that only note a bad number (NaN and Infinity reach
the hook alone; floats and long integers are checked as they are read) and looks for a lone
surrogate escape only in text that has a ``\\ud`` at all. Only then is the value walked:
every bad number becomes its source text as a string (so it is still shown), every lone
surrogate becomes the visible text ``\\ud800``, and each change is reported with its place
(``content[0].text``). A normal session costs no walk (benchmarks/bench.py, figure b)."""

from __future__ import annotations

import builtins
import json
import math
import re
import sys
from typing import Any

from goose_tui.session.serde import serde_number

# A lone surrogate escape: a high one not followed by a low one, or a low one alone.
_LONE_ESCAPE = re.compile(
    r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])"
    r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)
_SURROGATE = re.compile("[\ud800-\udfff]")
_INT_DIGITS = sys.get_int_max_str_digits() or 4300
_SHOWN = 40
_INT_MIN, _INT_MAX = -(2**63), 2**64 - 1


class _BadNumber(str):
    """A number JSON allowed but a session cannot use, kept as its source text."""


class _Hooks:
    """``json.loads`` hooks that keep unusable numbers as ``_BadNumber`` and remember that
    they did (then the value is walked; otherwise not, which keeps loading fast)."""

    def __init__(self) -> None:
        self.bad = False

    def constant(self, text: str) -> _BadNumber:
        self.bad = True
        return _BadNumber(text)

    def float(self, text: str) -> float | _BadNumber:
        # As Goose's serde_json reads it: its float path is not always correctly rounded,
        # and the formatted tool arguments must show Goose's digits.
        try:
            value = float(serde_number(text))
        except ValueError:  # out of serde's range
            value = math.inf
        if math.isfinite(value):
            return value
        self.bad = True
        return _BadNumber(text)

    def int(self, text: str) -> int | builtins.float | _BadNumber:
        # Goose reads a 64-bit integer exactly and a wider one as a double (the formatter
        # writes that double from the digits kept here); past the double's range, or the
        # 4,300 digits Python converts at all, no writer meant a count or a time.
        if len(text) < 20:
            return int(text) if text != "-0" else -0.0  # serde reads -0 as the float -0.0
        if len(text.lstrip("-")) < _INT_DIGITS:
            value = int(text)
            if _fits(value):
                return value
            try:
                if math.isfinite(float(serde_number(text))):
                    return value
            except ValueError:
                pass
        self.bad = True
        return _BadNumber(text)


def _fits(value: int) -> bool:
    return _INT_MIN <= value <= _INT_MAX


def _short(text: str) -> str:
    if len(text) <= _SHOWN:
        return text
    return f"{text[:12]}…{text[-6:]} ({len(text):,} characters)"


def _visible_surrogates(text: str) -> str:
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _clean(value: Any, place: str, problems: list[str]) -> Any:
    if isinstance(value, _BadNumber):
        text = str(value)
        problems.append(f"{place or 'value'}: number {_short(text)} cannot be used, kept as text")
        return text
    if isinstance(value, str):
        if _SURROGATE.search(value):
            problems.append(
                f"{place or 'value'}: lone surrogate (not a character) shown as \\uXXXX text"
            )
            return _visible_surrogates(value)
        return value
    if isinstance(value, list):
        return [_clean(item, f"{place}[{i}]", problems) for i, item in enumerate(value)]
    if isinstance(value, dict):
        cleaned: dict[str, Any] = {}
        for key, item in value.items():
            name = _clean(key, place, problems) if _SURROGATE.search(key) else key
            cleaned[name] = _clean(item, f"{place}.{name}" if place else name, problems)
        return cleaned
    return value


def json_error(exc: json.JSONDecodeError) -> str:
    """json's reason with its line and column, as one sentence: several of json's reasons end
    in "at" ("Unterminated string starting at"), for the place to follow."""
    return f"{exc.msg.removesuffix(' at')} at line {exc.lineno}, column {exc.colno}"


def loads(data: str | bytes) -> tuple[Any, list[str]]:
    """``json.loads(data)`` and what was changed, each as ``"place: what"``. Raises what
    ``json.loads`` raises for text that is not JSON (``JSONDecodeError``, ``RecursionError``,
    ``UnicodeDecodeError`` for bytes that are not UTF-8)."""
    if isinstance(data, bytes):  # a BLOB column
        data = data.decode("utf-8")
    hooks = _Hooks()
    value = json.loads(
        data, parse_constant=hooks.constant, parse_float=hooks.float, parse_int=hooks.int
    )
    surrogates = ("\\ud" in data or "\\uD" in data) and _LONE_ESCAPE.search(data)
    if not hooks.bad and not surrogates:
        return value, []
    problems: list[str] = []
    return _clean(value, "", problems), problems
