"""docs/pipeline.md §5: the structured summary, read leniently.

JSON is read the way Goose's Rust reader (serde_json) reads it, because the rendered summary
must match Goose byte for byte: numbers keep serde_json's integer ranges, its float parsing
and its float formatting; NaN/Infinity, lone surrogate escapes, a number out of range and
nesting deeper than 127 are errors. Checked against the goose-sdk wheel
(tests/compaction/test_structured.py).
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, Field

from goose_tui.session.hostile import json_error
from goose_tui.session.serde import JsonValueError, format_float, json_kind, serde_number

LIST_FIELDS = (
    "user_intent",
    "technical_concepts",
    "errors_and_fixes",
    "problem_solving",
    "user_messages",
    "pending_tasks",
)
FIELD_ORDER = (
    "user_intent",
    "technical_concepts",
    "files",
    "errors_and_fixes",
    "problem_solving",
    "user_messages",
    "pending_tasks",
    "current_work",
    "next_step",
)
_FIELDS = frozenset(FIELD_ORDER)

# Rust's `char::is_whitespace` (Unicode White_Space): what Goose's `trim()` strips. Python's
# str.isspace() also counts \x1c-\x1f, which Goose does not treat as blank.
RUST_WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
    + "\u2028\u2029\u202f\u205f\u3000"
)

MAX_DEPTH = 127  # serde_json's recursion limit: 128 nested arrays/objects fail
_SURROGATE = re.compile("[\ud800-\udfff]")


def is_blank(text: str) -> bool:
    return not text.strip(RUST_WHITESPACE)


class FileEntry(BaseModel):
    path: str = ""
    summary: str = ""
    key_code: str | None = None


class StructuredSummary(BaseModel):
    user_intent: list[str] = Field(default_factory=list)
    technical_concepts: list[str] = Field(default_factory=list)
    files: list[FileEntry] = Field(default_factory=list)
    errors_and_fixes: list[str] = Field(default_factory=list)
    problem_solving: list[str] = Field(default_factory=list)
    user_messages: list[str] = Field(default_factory=list)
    pending_tasks: list[str] = Field(default_factory=list)
    current_work: str | None = None
    next_step: str | None = None
    # Unknown top-level keys, in the order written, values as parsed (not stringified).
    extras: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def parse(cls, value: Any) -> StructuredSummary | None:
        """Lenient read of a parsed JSON value; None when it is not an object. Not normalized."""
        if not isinstance(value, dict):
            return None
        # Every field is given, so model_construct never computes a default: pydantic's
        # default-factory path inspects signatures, too slow for a reply of many candidates.
        data: dict[str, Any] = dict.fromkeys(("current_work", "next_step"))
        data |= {name: [] for name in (*LIST_FIELDS, "files")}
        extras: dict[str, Any] = {}
        for key, item in value.items():
            if key in LIST_FIELDS:
                data[key] = _string_list(item)
            elif key == "files":
                data[key] = _files(item)
            elif key in ("current_work", "next_step"):
                data[key] = None if item is None else stringify(item)
            else:
                extras[str(key)] = item
        # The values are built with the right types here; skipping validation keeps the
        # candidate search fast on replies with thousands of objects.
        return cls.model_construct(**data, extras=extras)

    @classmethod
    def parse_json_text(cls, text: str) -> StructuredSummary:
        """Parse JSON text (raw control characters in strings allowed, duplicate keys: last
        wins) and read it; raises ``ValueError`` with line and column when it is not JSON or
        not an object."""
        value = loads_json(text)
        summary = cls.parse(value)
        if summary is None:
            raise ValueError(
                f"the summary must be a JSON object, not {json_kind(value)} (line 1, column 1)"
            )
        return summary

    def normalized(self) -> StructuredSummary:
        lists: dict[str, Any] = {
            name: [s for s in getattr(self, name) if not is_blank(s)] for name in LIST_FIELDS
        }
        files = []
        for entry in self.files:
            key_code = _optional(entry.key_code)
            if is_blank(entry.path) and is_blank(entry.summary) and key_code is None:
                continue
            files.append(
                FileEntry.model_construct(path=entry.path, summary=entry.summary, key_code=key_code)
            )
        return StructuredSummary.model_construct(
            **lists,
            files=files,
            current_work=_optional(self.current_work),
            next_step=_optional(self.next_step),
            extras=dict(self.extras),
        )

    def has_content(self) -> bool:
        """Any of the nine fields non-empty as it stands (usable, for a normalized summary)."""
        return any(getattr(self, name) for name in FIELD_ORDER)

    def template_context(self) -> dict[str, Any]:
        """Every field as a top-level template variable, extras included."""
        context: dict[str, Any] = dict(self.extras)
        for name in LIST_FIELDS:
            context[name] = list(getattr(self, name))
        context["files"] = [entry.model_dump() for entry in self.files]
        context["current_work"] = self.current_work
        context["next_step"] = self.next_step
        return context

    def to_json_dict(self) -> dict[str, Any]:
        """The nine fields then the extras, as a summary JSON a user can edit and re-read."""
        out: dict[str, Any] = {}
        for name in FIELD_ORDER:
            if name == "files":
                out[name] = [entry.model_dump(exclude_none=True) for entry in self.files]
            else:
                out[name] = getattr(self, name)
        out.update(self.extras)
        return out


def stringify(value: Any) -> str:
    """docs/pipeline.md §5: a JSON value as the one line of text Goose makes of it."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format_float(value)
    if isinstance(value, dict):
        return "; ".join(f"{key}: {stringify(item)}" for key, item in value.items())
    if isinstance(value, list | tuple):
        return "; ".join(stringify(item) for item in value)
    return str(value)


# --- reading JSON text as serde_json does ---------------------------------------------------


def _reject_constant(name: str) -> Any:
    raise JsonValueError(f"{name} is not valid JSON")


DECODER = json.JSONDecoder(
    strict=False,  # raw control characters inside strings are allowed (summary files)
    parse_float=serde_number,
    parse_int=serde_number,
    parse_constant=_reject_constant,
)
STRICT_DECODER = json.JSONDecoder(
    parse_float=serde_number, parse_int=serde_number, parse_constant=_reject_constant
)


def _checked_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # Sees every pair, also those a later duplicate key replaces; objects nested in a value
    # were checked when they were built, so only strings and arrays are walked here.
    for key, value in pairs:
        _check_strings(key)
        _check_strings(value)
    return dict(pairs)


def _check_strings(value: Any) -> None:
    if isinstance(value, str):
        if _SURROGATE.search(value):
            raise JsonValueError("lone surrogate in a \\u escape")
    elif isinstance(value, list):
        for item in value:
            _check_strings(item)


PAIRS_DECODER = json.JSONDecoder(
    strict=False,
    parse_float=serde_number,
    parse_int=serde_number,
    parse_constant=_reject_constant,
    object_pairs_hook=_checked_pairs,
)
STRICT_PAIRS_DECODER = json.JSONDecoder(
    parse_float=serde_number,
    parse_int=serde_number,
    parse_constant=_reject_constant,
    object_pairs_hook=_checked_pairs,
)


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
# Brackets outside strings, and whole strings (skipped), for measuring nesting depth.
_STRUCTURE = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


def decode_at(text: str, start: int, *, strict: bool = False) -> tuple[Any, int]:
    """Parse the JSON value that begins at ``start``; (value, end). Raises ValueError.

    ``strict`` refuses raw control characters in strings, as serde_json does; the reply
    reader uses it (extract.py), hand-written summary files are read without it."""
    decoder = STRICT_DECODER if strict else DECODER
    try:
        value, end = decoder.raw_decode(text, start)
    except RecursionError:
        raise JsonValueError(f"nested deeper than {MAX_DEPTH} levels", start) from None
    # Walk the text only when it could hold what serde rejects. The text, not the value:
    # a value a later duplicate key replaced is gone from the dict, but serde_json had
    # already failed on it (tests/differential/test_reply_reading.py).
    if text.count("[", start, end) + text.count("{", start, end) > MAX_DEPTH:
        if _max_depth(text, start, end) > MAX_DEPTH:
            raise JsonValueError(f"nested deeper than {MAX_DEPTH} levels", start)
    if _SURROGATE.search(text, start, end) or _SURROGATE_ESCAPE.search(text, start, end):
        _check_surrogates(text, start, strict)
    return value, end


def _max_depth(text: str, start: int, end: int) -> int:
    """The deepest nesting of arrays and objects between start and end, strings skipped."""
    depth = deepest = 0
    for match in _STRUCTURE.finditer(text, start, end):
        token = match.group()
        if token in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif token in "]}":
            depth -= 1
    return deepest


def _check_surrogates(text: str, start: int, strict: bool) -> None:
    """Reject a lone surrogate anywhere in the value, replaced duplicates included: parse
    again, looking at every pair."""
    decoder = STRICT_PAIRS_DECODER if strict else PAIRS_DECODER
    _check_strings(decoder.raw_decode(text, start)[0])


def loads_json(text: str) -> Any:
    """Parse a whole JSON document as Goose would; ValueError names line and column."""
    ws = " \t\n\r"
    start = len(text) - len(text.lstrip(ws))
    try:
        value, end = decode_at(text, start)
    except json.JSONDecodeError as err:
        raise ValueError(json_error(err)) from None
    except JsonValueError as err:
        raise ValueError(f"{err.msg} at {_where(text, err.pos)}") from None
    rest = text[end:]
    if rest.strip(ws):
        line, col = line_col(text, end + len(rest) - len(rest.lstrip(ws)))
        raise ValueError(f"extra data after the JSON value at line {line}, column {col}")
    return value


def _where(text: str, pos: int | None) -> str:
    # Errors found after parsing carry no offset; point at the start of the document.
    line, col = line_col(text, pos or 0)
    return f"line {line}, column {col}"


def line_col(text: str, pos: int) -> tuple[int, int]:
    """The 1-based line and column of offset ``pos`` in ``text``, as an error names them."""
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def _string_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list):
        return [stringify(item) for item in value]
    return [stringify(value)]


def _files(value: Any) -> list[FileEntry]:
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    return [_file(item) for item in items]


def _file(item: Any) -> FileEntry:
    if not isinstance(item, dict):
        return FileEntry(path=stringify(item))
    key_code = item.get("key_code")
    return FileEntry(
        path=stringify(item.get("path")),
        summary=stringify(item.get("summary")),
        key_code=None if key_code is None else stringify(key_code),
    )


def _optional(text: str | None) -> str | None:
    return None if text is None or is_blank(text) else text
