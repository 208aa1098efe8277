"""Reading JSON in which one value must not make a whole session unreadable.

Python's ``json`` accepts ``NaN``/``Infinity``, turns ``1e400`` into ``inf``, refuses
integers of more than 4,300 digits with a ValueError, and lets a lone surrogate (``\\ud800``)
into a string, which no UTF-8 output (terminal, file, tokenizer, pydantic-core) can hold.
Each of those then fails far from the file (``int(nan)``, an encoder error).

``loads`` decodes as ``json.loads`` does on the fast path; only when the text can hold
such a value (one regex scan) or the fast path fails on a huge integer does it decode again
with hooks and walk the value: every bad number becomes its source text as a string (so it
is still shown), every lone surrogate becomes the visible text ``\\ud800``, and each change
is reported with its place (``content[0].text``)."""

from __future__ import annotations

import json
import math
import re
import sys
from typing import Any

# Could the text hold a non-finite number, an out-of-range float or a lone surrogate?
_SUSPECT_TEXT = re.compile(r"NaN|Infinity|[eE]\+?\d{3}|\d{20}|\\u[dD][89a-fA-F]")
_SUSPECT_BYTES = re.compile(_SUSPECT_TEXT.pattern.encode())
_SURROGATE = re.compile("[\ud800-\udfff]")
_INT_DIGITS = sys.get_int_max_str_digits() or 4300
_SHOWN = 40
_INT_MIN, _INT_MAX = -(2**63), 2**64 - 1


class _BadNumber(str):
    """A number JSON allowed but a session cannot use, kept as its source text."""


def _constant(text: str) -> _BadNumber:
    return _BadNumber(text)


def _float(text: str) -> float | _BadNumber:
    value = float(text)
    return value if math.isfinite(value) else _BadNumber(text)


def _int(text: str) -> int | _BadNumber:
    # Goose reads numbers as 64-bit integers or doubles; anything wider is no count, id or
    # time any writer meant (and past 4,300 digits Python refuses to convert it at all).
    if len(text.lstrip("-")) >= _INT_DIGITS:
        return _BadNumber(text)
    value = int(text)
    return value if _INT_MIN <= value <= _INT_MAX else _BadNumber(text)


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


def loads(data: str | bytes) -> tuple[Any, list[str]]:
    """``json.loads(data)`` and what was changed, each as ``"place: what"``. Raises what
    ``json.loads`` raises for text that is not JSON (``JSONDecodeError``, ``RecursionError``,
    ``UnicodeDecodeError``)."""
    try:
        value = json.loads(data)
    except json.JSONDecodeError:
        raise
    except ValueError:
        pass  # an integer past the digit limit: decode again, with the hooks
    else:
        suspect = _SUSPECT_BYTES if isinstance(data, bytes) else _SUSPECT_TEXT
        if not suspect.search(data):  # type: ignore[arg-type]
            return value, []
    value = json.loads(data, parse_constant=_constant, parse_float=_float, parse_int=_int)
    problems: list[str] = []
    return _clean(value, "", problems), problems
