"""JSON text as Goose's Rust reader and writer (serde_json) make it.

Goose reads session files and model replies with serde_json and writes tool arguments with
it, so the text the summarizer sees depends on its number rules: u64/i64 integers exact,
its float parsing (not always correctly rounded) and its float formatting. Checked against
the goose-sdk wheel (tests/compaction/test_structured.py, tests/differential).
"""

from __future__ import annotations

import json
import math
import re
from decimal import Decimal
from typing import Any

_I64_MIN = -(2**63)
_U64_MAX = 2**64 - 1
_I32_MAX = 2**31 - 1
_POW10 = [float(f"1e{i}") for i in range(309)]  # correctly rounded, like serde's table


def json_kind(value: object) -> str:
    """What a decoded JSON value is, as an error message names it ("an array")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object" if isinstance(value, dict) else type(value).__name__


def compact_json(value: Any) -> str:
    """JSON as serde_json::to_string writes it: no spaces, non-ASCII kept, key order kept,
    and numbers as serde_json prints them (``0.00001``, ``1e-7``, ``1e+16``; an integer
    beyond 64 bits is read as a float, ``1.2345678901234568e+29``). Python's own float
    text differs (``1e-05``), so numbers are written here and everything else by ``json``.

    NaN and infinities are not JSON (serde refuses them), so they count as unserializable."""
    if isinstance(value, dict) and all(map(_flat_plain, value.values())):
        # Most tool arguments: strings and small integers, which json writes as serde does.
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    pieces: list[str] = []
    _write_json(value, pieces)
    return "".join(pieces)


def _flat_plain(value: Any) -> bool:
    return (
        isinstance(value, str)
        or value is None
        or isinstance(value, bool)
        or (type(value) is int and _I64_MIN <= value <= _U64_MAX)
    )


def _write_json(value: Any, out: list[str]) -> None:
    if isinstance(value, str) or value is None or isinstance(value, bool):
        out.append(json.dumps(value, ensure_ascii=False))
    elif isinstance(value, int):
        out.append(str(value) if _I64_MIN <= value <= _U64_MAX else _wide_int(value))
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("NaN and infinities are not JSON")
        out.append(format_float(value))
    elif isinstance(value, dict):
        out.append("{")
        for number, (key, item) in enumerate(value.items()):
            if not isinstance(key, str):
                raise TypeError(f"a JSON object key must be a string, not {type(key).__name__}")
            out.append(("," if number else "") + json.dumps(key, ensure_ascii=False) + ":")
            _write_json(item, out)
        out.append("}")
    elif isinstance(value, list | tuple):
        out.append("[")
        for number, item in enumerate(value):
            if number:
                out.append(",")
            _write_json(item, out)
        out.append("]")
    else:
        raise TypeError(f"{type(value).__name__} is not JSON")


def _wide_int(value: int) -> str:
    # serde_json (without arbitrary_precision) holds such a literal as the f64 its own
    # parser makes of the digits; the text of a Python int is that literal.
    number = serde_number(str(value))
    return format_float(float(number))


def format_float(value: float) -> str:
    """A float as serde_json writes it: shortest round-trip digits, `1000.0`, `0.00001`,
    `1e-6`, `1e+16` (decimal notation while 1e-5 <= |v| < 1e16)."""
    if not math.isfinite(value):
        return ""  # serde_json cannot hold NaN/inf: it turns them into null
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    sign = "-" if value < 0 else ""
    parts = Decimal(repr(abs(value))).normalize().as_tuple()
    digits = "".join(map(str, parts.digits))
    exponent = int(parts.exponent)
    length = len(digits)
    point = length + exponent  # 10^(point-1) <= |value| < 10^point
    if exponent >= 0 and point <= 16:
        return f"{sign}{digits}{'0' * exponent}.0"
    if 0 < point <= 16:
        return f"{sign}{digits[:point]}.{digits[point:]}"
    if -5 < point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    exp = point - 1
    exp_text = f"e+{exp}" if exp >= 0 else f"e{exp}"
    mantissa = digits if length == 1 else f"{digits[0]}.{digits[1:]}"
    return f"{sign}{mantissa}{exp_text}"


class JsonValueError(ValueError):
    """JSON that Python accepts but Goose's reader rejects (or that is too deep)."""

    def __init__(self, message: str, pos: int | None = None):
        super().__init__(message)
        self.msg, self.pos = message, pos


_NUMBER = re.compile(r"(-?)(\d+)(?:\.(\d+))?(?:[eE]([-+]?)(\d+))?")


def serde_number(literal: str) -> int | float:
    """The value serde_json gives a JSON number literal (without its float_roundtrip
    feature): u64/i64 integers stay exact, anything else goes through its fast float path,
    which is not always correctly rounded (`1.5e-300` reads as 1.4999999999999998e-300)."""
    match = _NUMBER.fullmatch(literal)
    if match is None:
        raise JsonValueError(f"invalid number {literal[:40]!r}")
    negative = match.group(1) == "-"
    int_digits, frac_digits, exp_sign, exp_digits = match.group(2, 3, 4, 5)
    if frac_digits is None and exp_digits is None and len(int_digits) <= 20:
        whole = int(int_digits)
        if whole <= _U64_MAX:
            if not negative:
                return whole
            return -whole if 0 < whole <= 2**63 else -float(whole)
    magnitude = _serde_float(int_digits, frac_digits or "", exp_sign, exp_digits)
    return -magnitude if negative else magnitude


def _serde_float(
    int_digits: str, frac_digits: str, exp_sign: str | None, exp_digits: str | None
) -> float:
    significand, used = _accumulate(0, int_digits)
    exponent = len(int_digits) - used  # digits past u64 range only scale the value
    if frac_digits:
        stripped = frac_digits.lstrip("0") if significand == 0 else frac_digits
        exponent -= len(frac_digits) - len(stripped)
        significand, used = _accumulate(significand, stripped)
        exponent -= used  # fraction digits past u64 range are ignored, as serde does
    if exp_digits is not None:
        exp_value = exp_digits.lstrip("0") or "0"
        if len(exp_value) > 10 or int(exp_value) > _I32_MAX:
            if significand != 0 and exp_sign != "-":
                raise JsonValueError("number out of range")
            return 0.0
        step = int(exp_value)
        exponent = exponent - step if exp_sign == "-" else exponent + step
        exponent = max(-(2**31), min(_I32_MAX, exponent))  # i32 saturating arithmetic
    return _from_parts(significand, exponent)


def _accumulate(significand: int, digits: str) -> tuple[int, int]:
    """Append digits while the significand stays within u64; how many were taken."""
    used = 0
    for char in digits:
        candidate = significand * 10 + ord(char) - 48
        if candidate > _U64_MAX:
            break
        significand, used = candidate, used + 1
    return significand, used


def _from_parts(significand: int, exponent: int) -> float:
    value = float(significand)
    while True:
        if abs(exponent) <= 308:
            if exponent >= 0:
                value *= _POW10[exponent]
                if math.isinf(value):
                    raise JsonValueError("number out of range")
            else:
                value /= _POW10[-exponent]
            return value
        if value == 0.0:
            return value
        if exponent >= 0:
            raise JsonValueError("number out of range")
        value /= 1e308
        exponent += 308
