"""Goose's template engine: the ``minijinja`` Python binding, configured as Goose builds it.

Goose renders compaction templates with the Rust crate minijinja (2.24.0 in the goose-sdk
wheel: the version string is in its ``libgoose_sdk.so``), built with
``default-features = false, features = ["loader", "multi_template", "serde"]``
(``crates/goose-context-management/Cargo.toml``) and configured in
``crates/goose-context-management/src/templates.rs``: ``Environment::new()``,
``trim_blocks``, ``lstrip_blocks``, the ``code_fence`` filter, one template named
``template``, lenient undefined values, no auto-escape, no trailing newline kept, the
result ``trim()``-ed. The Python binding (``minijinja==2.24.0``, the same Rust engine) is
compiled with more features; what those add is taken away again here:

- ``builtins`` and minijinja-contrib: every built-in filter, test and global is removed
  (only ``safe``/``escape``/``e`` and the tests ``defined``/``undefined``/``none``/
  ``safe``/``escaped`` stay, as in Goose) and pycompat's Python methods are off.
- ``macros`` and ``loop_controls``: ``{% macro %}``, ``{% call %}``, ``{% break %}`` and
  ``{% continue %}`` are "unknown statement" syntax errors, found by :func:`scan`, which
  lexes the template as minijinja's lexer does.
- ``unicode``: identifiers are ASCII; a non-ASCII letter in a tag is "unexpected character".
- ``adjacent_loop_items``: ``loop.previtem``/``loop.nextitem`` are undefined.
- ``preserve_order``: maps are sorted by key. Maps from the context are sorted before they
  are handed over; a map literal whose keys are all string literals is reordered in the
  source (same text, same lines).
- Python objects: a list, a dict, or the context itself passed from Python stays a Python
  object inside the binding (printed by Python's ``str``, with Python's methods; a name
  the context lacks found the dict's ``items``). Every context value is therefore set in a
  wrapper that includes the user's template (``{% set x = [...] %}``), so values are the
  engine's own, as in Goose, and the context is native: a list or a map as a template
  literal, a string (which the binding does convert to a native string) from a global
  whose name is random per process, so a big ``{{ messages }}`` is not lexed again.

Sandbox (docs/reliability.md): every render runs on a fuel budget (minijinja counts
instructions) and an output cap; either one exhausted stops the render with a
:class:`EngineError` naming the budget. Where Goose's engine panics (a reverse slice of an
empty sequence), the panic is caught and reported as an error instead of crashing.
"""

from __future__ import annotations

import math
import os
import re
import threading
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any

from goose_tui.compaction.structured import RUST_WHITESPACE
from goose_tui.pieces import Pieces

GOOSE_MINIJINJA_VERSION = "2.24.0"
TEMPLATE_NAME = "template"  # the name Goose gives every template it renders
WRAPPER_NAME = "\x00goose-tui context"

# Budgets: a render that loops or prints without end stops here (see docs/reliability.md).
FUEL = 2_000_000  # minijinja instructions per render
OUTPUT_CAP = 64 * 1024 * 1024  # characters of output per render
VERBATIM_CHARS = 1 << 16  # a string value this long, printed only whole, is spliced in

# Filters, tests and globals the Python binding registers (minijinja built-ins and
# minijinja-contrib) that Goose's build does not have.
_EXTRA_FILTERS = (
    "lower upper title capitalize replace length count dictsort items reverse trim join split "
    "lines default round abs int float attr first last min max sort d list string bool batch "
    "slice indent select reject selectattr rejectattr map groupby unique pprint tojson "
    "urlencode sum zip chain datetimeformat dateformat timeformat pluralize filesizeformat "
    "truncate wordcount wordwrap striptags random unescape"
).split()
_EXTRA_TESTS = (
    "boolean odd even divisibleby number integer int float string sequence iterable mapping "
    "startingwith endingwith lower upper sameas eq equalto == ne != lt lessthan < le <= gt "
    "greaterthan > ge >= in true false filter test"
).split()
_UNKNOWN_STATEMENTS = ("macro", "call", "break", "continue")

# Names a template cannot ``{% set %}``: the constants, the operators "in" and "not", and the
# reserved variables "loop" and "self". A context value under one of these is not written into
# the wrapper (Goose hands "loop", "self" and "in" to a template all the same: README, known
# differences). Other words of the syntax ("if", "with", "context", "missing", ...) are names
# like any other, and set as such (a seeded fuzz against the wheel found them left out).
_RESERVED = frozenset("true false none True False None in not loop self".split())
_ASCII_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_INCLUDE = '{% include "' + TEMPLATE_NAME + '" %}'
# The prefix of the globals a render's string values are handed over in (Compiled._render):
# random per process, so no template can name one.
_SLOT = f"_goose_tui_{os.urandom(8).hex()}_"


def _has_surrogate(text: str, step: int = 1 << 20) -> bool:
    """Whether ``text`` holds a lone surrogate: UTF-8 refuses one. Encoding is one C pass,
    several times quicker than a regex search for them; a slice at a time, so a thread
    rendering a big prompt never holds the GIL long enough to stall the app's loop."""
    if text.isascii():
        return False
    for at in range(0, len(text), step):
        try:
            text[at : at + step].encode("utf-8")
        except UnicodeEncodeError:
            return True
    return False


class EngineError(Exception):
    """A template that does not compile or render in Goose's engine; ``message`` is Goose's
    reason (``unknown filter: filter upper is unknown``), ``line`` the template line."""

    def __init__(self, message: str, line: int | None, *, kind: str = "error"):
        self.message, self.line, self.kind = message, line, kind
        super().__init__(message)


# --- the lexer (minijinja 2.24 lexer.rs, without the custom_syntax and unicode features) ----


@dataclass
class Token:
    kind: str  # "ident", "str", "num", "op", "block_start", "var_start", "end"
    start: int  # byte offsets into the UTF-8 source
    end: int
    text: str = ""  # identifier name, operator, or the decoded string


@dataclass
class Scan:
    tokens: list[Token] = field(default_factory=list)
    # The first thing Goose's build rejects that the binding accepts: (offset, line, reason).
    goose_error: tuple[int, int, str] | None = None
    # The runs of template text inside a for loop (byte ranges), and the longest raw block's
    # text inside one: what a loop prints without a value passing the finalizer.
    loop_data: list[tuple[int, int]] = field(default_factory=list)
    max_raw_in_loop: int = 0
    edits: list[tuple[int, int, bytes]] = field(default_factory=list)
    # Map literals to reorder: the byte range of each pair, and the sorted order.
    maps: list[tuple[list[tuple[int, int]], list[int]]] = field(default_factory=list)
    error_order_may_differ: bool = False
    complete: bool = False  # lexed to the end (not stopped at an error)


_ENDRAW = re.compile(rb"\{%[-+]?[ \t\n\r\x0c]*endraw[ \t\n\r\x0c]*[-+]?%}")


def _is_ws(b: int) -> bool:
    return b in b" \t\n\r\x0c"  # Rust's u8::is_ascii_whitespace


def _unescape(raw: str) -> str:
    out, i = [], 0
    simple = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "\\": "\\", "/": "/"}
    while i < len(raw):
        c = raw[i]
        if c != "\\" or i + 1 >= len(raw):
            out.append(c)
            i += 1
            continue
        n = raw[i + 1]
        if n in simple:
            out.append(simple[n])
        elif n in "'\"":
            out.append(n)
        elif n == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", raw[i + 2 : i + 6]):
            out.append(chr(int(raw[i + 2 : i + 6], 16)))
            i += 4
        else:
            out.append("\\" + n)
        i += 2
    return "".join(out)


def scan(text: str) -> Scan:
    """Lex ``text`` as Goose's minijinja does, far enough to find what Goose's build rejects
    and the binding accepts, and the map literals to sort. Lexing stops at the first error
    either engine would raise (the binding then reports it)."""
    src = text.encode("utf-8", "surrogatepass")
    if src.endswith(b"\n"):  # keep_trailing_newline is off
        src = src[:-1]
    if src.endswith(b"\r"):
        src = src[:-1]
    result = Scan()
    pos, n = 0, len(src)
    line_starts = [0] + [m.end() for m in re.finditer(rb"\n", src)]

    def goose_error(offset: int, reason: str) -> None:
        if result.goose_error is None:
            # The line: how many lines start at or before the offset.
            result.goose_error = (offset, bisect_right(line_starts, offset), reason)

    loop_depth = 0
    tokens = result.tokens
    while pos < n:
        # template data up to the next start marker
        start = pos
        while True:
            idx = src.find(b"{", pos)
            if idx < 0 or idx + 1 >= n:
                pos = n
                marker = None
                break
            nxt = src[idx + 1]
            if nxt in b"{%#":
                marker = chr(nxt)
                pos = idx
                break
            pos = idx + 1
        if loop_depth and pos > start:
            result.loop_data.append((start, pos))
        if marker is None:
            break
        skip = 2 + (1 if pos + 2 < n and src[pos + 2] in b"-+" else 0)
        if marker == "#":
            end = src.find(b"#}", pos + skip)
            if end < 0:
                return result
            pos = end + 2
            continue
        if marker == "%":
            # skip_basic_tag(.., "raw", .., false): a raw block is skipped to {% endraw %}
            raw = re.match(rb"[ \t\n\r\x0c]*raw[ \t\n\r\x0c]*[-+]?%}", src[pos + skip :])
            if raw is not None:
                body = pos + skip + raw.end()
                endraw = _ENDRAW.search(src, body)
                if endraw is None:
                    return result
                if loop_depth:
                    result.max_raw_in_loop = max(result.max_raw_in_loop, endraw.start() - body)
                pos = endraw.end()
                continue
        tokens.append(Token("block_start" if marker == "%" else "var_start", pos, pos + skip))
        pos += skip
        sentinel = b"%}" if marker == "%" else b"}}"
        balance = 0
        first = True
        while True:
            while pos < n and _is_ws(src[pos]):
                pos += 1
            if pos >= n:
                return result
            if balance == 0:
                if src[pos : pos + 1] in (b"-", b"+") and src[pos + 1 : pos + 3] == sentinel:
                    tokens.append(Token("end", pos, pos + 3))
                    pos += 3
                    break
                if src[pos : pos + 2] == sentinel:
                    tokens.append(Token("end", pos, pos + 2))
                    pos += 2
                    break
            two = src[pos : pos + 2]
            c = src[pos]
            if two in (b"//", b"**", b"==", b"!=", b">=", b"<="):
                tokens.append(Token("op", pos, pos + 2, two.decode()))
                pos += 2
            elif c in b"+-*/%.,:~|=><()[]{}":
                if c in b"([{":
                    balance += 1
                elif c in b")]}":
                    balance -= 1
                tokens.append(Token("op", pos, pos + 1, chr(c)))
                pos += 1
            elif c in b"'\"":
                i, escaped = pos + 1, False
                while i < n and (escaped or src[i] != c):
                    escaped = not escaped and src[i] == 0x5C
                    i += 1
                if i >= n:
                    return result  # unexpected end of string: both engines say so
                literal_text = src[pos + 1 : i].decode("utf-8", "surrogatepass")
                tokens.append(Token("str", pos, i + 1, _unescape(literal_text)))
                pos = i + 1
            elif 0x30 <= c <= 0x39:
                m = re.match(rb"0[bBoOxX][0-9a-fA-F_]*|[0-9_]*", src[pos:])
                assert m is not None  # the second alternative matches the empty string
                end = pos + m.end()
                # ".5" after digits is a fraction unless an identifier follows the dot
                if src[end : end + 1] == b"." and not re.match(rb"[A-Za-z_]", src[end + 1 :]):
                    m2 = re.match(rb"\.[0-9_]*([eE][+-]?[0-9_]*)?", src[end:])
                    assert m2 is not None  # the dot is there
                    end += m2.end()
                elif re.match(rb"[eE]", src[end : end + 1]):
                    m2 = re.match(rb"[eE][+-]?[0-9_]*", src[end:])
                    assert m2 is not None  # the e is there
                    end += m2.end()
                tokens.append(Token("num", pos, end))
                pos = end
            else:
                m = re.match(rb"[A-Za-z_][A-Za-z0-9_]*", src[pos:])
                if m is None:
                    char = src[pos:].decode("utf-8", "replace")[:1]
                    if char.isidentifier():
                        goose_error(pos, "syntax error: unexpected character")
                    return result  # the binding reports whatever it reports here
                end = pos + m.end()
                name = m.group().decode()
                tokens.append(Token("ident", pos, end, name))
                if end < n and src[end] >= 0x80:
                    char = src[end:].decode("utf-8", "replace")[:1]
                    if ("a" + char).isidentifier():
                        goose_error(end, "syntax error: unexpected character")
                if first and marker == "%":
                    if name in _UNKNOWN_STATEMENTS:
                        goose_error(pos, f"syntax error: unknown statement {name}")
                    elif name == "for":
                        loop_depth += 1
                    elif name == "endfor":
                        loop_depth = max(0, loop_depth - 1)
                if name == "code_fence" and len(tokens) >= 2 and tokens[-2].text == "|":
                    # Goose's code_fence takes a String: Value::to_string(). The binding would
                    # hand Python a converted value (undefined and none both None, 5.0 as 5);
                    # the engine's own `safe` (also a String argument) converts it first.
                    result.edits.append((pos, end, b"safe | code_fence"))
                if loop_depth and name in ("previtem", "nextitem") and len(tokens) >= 3:
                    before = tokens[-3:-1]
                    if before[0].kind == "ident" and before[0].text == "loop":
                        if before[1].text == ".":
                            result.edits.append((pos, end, name.encode() + b"_"))
                pos = end
            first = False
    _map_literal_edits(result)
    result.complete = True
    return result


# Statements whose body's output is captured or transformed (`{% filter f %}`,
# `{% autoescape %}`, the block form of `{% set x %}...{% endset %}`): a value printed inside
# one does not reach the output as it is.
_CAPTURING = frozenset({"filter", "autoescape"})


def printed_verbatim(result: Scan) -> frozenset[str]:
    """The names whose every use in the template is a bare ``{{ name }}``: their values reach
    the output as they are, wherever and however often they are printed (Goose's engine has
    no auto-escape). Empty when the template did not lex to the end or has a statement that
    captures or transforms what it prints."""
    if not result.complete or result.goose_error is not None:
        return frozenset()
    tokens = result.tokens
    bare: set[str] = set()
    other: set[str] = set()
    for i, token in enumerate(tokens):
        if token.kind == "block_start" and i + 1 < len(tokens):
            head = tokens[i + 1]
            if head.kind == "ident" and (
                head.text in _CAPTURING or (head.text == "set" and _captures(tokens, i + 1))
            ):
                return frozenset()
        if token.kind != "ident":
            continue
        if 0 < i < len(tokens) - 1 and tokens[i - 1].kind == "var_start":
            if tokens[i + 1].kind == "end":
                bare.add(token.text)
                continue
        other.add(token.text)
    return frozenset(bare - other)


def _captures(tokens: list[Token], at: int) -> bool:
    """Whether the ``set`` statement at ``at`` is the block form (no ``=`` before its end)."""
    for token in tokens[at + 1 :]:
        if token.kind == "end":
            return True
        if token.kind == "op" and token.text == "=":
            return False
    return True


def _map_literal_edits(result: Scan) -> None:
    """Sort the pairs of each map literal whose keys are all string literals (Goose's maps
    are BTreeMaps, the binding's keep insertion order). Pair texts are moved, separators
    stay, so the line count is unchanged."""
    tokens = result.tokens
    stack: list[tuple[int, list[list[int]]]] = []  # (index of "{", pairs of token ranges)
    maps: list[tuple[int, int, list[list[int]]]] = []
    in_tag = False
    for i, tok in enumerate(tokens):
        if tok.kind in ("block_start", "var_start"):
            in_tag, stack = True, []
            continue
        if tok.kind == "end":
            in_tag = False
            continue
        if not in_tag or tok.kind != "op":
            continue
        if tok.text == "{":
            stack.append((i, [[i + 1, -1, -1]]))  # [first token, colon, last token]
        elif tok.text in "([":
            stack.append((i, []))
        elif tok.text in ")]}":
            if not stack:
                return
            opened, pairs = stack.pop()
            if tok.text == "}" and tokens[opened].text == "{":
                pairs[-1][2] = i - 1
                maps.append((opened, i, pairs))
        elif stack and tokens[stack[-1][0]].text == "{":
            pairs = stack[-1][1]
            if tok.text == ":" and pairs[-1][1] < 0:
                pairs[-1][1] = i
            elif tok.text == ",":
                pairs[-1][2] = i - 1
                pairs.append([i + 1, -1, -1])
    for _opened, _closed, pairs in maps:
        pairs = [p for p in pairs if p[2] >= p[0]]  # drop the empty tail of a trailing comma
        if len(pairs) < 2 or any(p[1] != p[0] + 1 or tokens[p[0]].kind != "str" for p in pairs):
            continue
        keys = [tokens[p[0]].text for p in pairs]
        order = sorted(range(len(pairs)), key=lambda k: keys[k])
        if order == list(range(len(pairs))):
            continue
        ranges = [(tokens[p[0]].start, tokens[p[2]].end) for p in pairs]
        result.maps.append((ranges, order))
        if sum(_may_fail(tokens[p[1] + 1 : p[2] + 1]) for p in pairs) > 1:
            # Goose evaluates the values in source order; sorted, a different one of two
            # failing values may be the error reported (README: known differences).
            result.error_order_may_differ = True


_CONSTANT_WORDS = frozenset("true false none True False None".split())


def _may_fail(value: list[Token]) -> bool:
    """Whether a map value's tokens can raise: anything but literals and plain names (a
    subscript of a literal can: ``1[0:]``)."""
    for i, tok in enumerate(value):
        before = value[i - 1] if i else None  # "[" after a value subscripts it
        if tok.text == "[" and before and (before.kind != "op" or before.text in ("]", ")", "}")):
            return True
        if tok.kind in ("str", "num") or (tok.kind == "op" and tok.text in "[]{},:"):
            continue
        if tok.kind == "ident" and (
            tok.text in _CONSTANT_WORDS
            or i + 1 == len(value)
            or value[i + 1].text not in (".", "[", "(", "|")
        ):
            continue
        return True
    return False


def _apply_edits(text: str, result: Scan) -> str:
    src = text.encode("utf-8", "surrogatepass")
    spans = list(result.edits)
    for ranges, order in result.maps:
        for slot, k in zip(ranges, order, strict=True):
            spans.append((slot[0], slot[1], src[ranges[k][0] : ranges[k][1]]))
    if not spans:
        return text
    # Nested maps: an inner map's pairs move with the outer pair that holds them, so apply
    # only edits that do not overlap an earlier (outer) one; inner ones are applied on the
    # moved text by scanning again.
    spans.sort(key=lambda s: (s[0], -s[1]))
    out, at, outer_end = [], 0, -1
    nested = False
    for start, end, new in spans:
        if start < outer_end:
            nested = True
            continue
        out.append(src[at:start])
        out.append(new)
        at, outer_end = end, end
    out.append(src[at:])
    rewritten = b"".join(out).decode("utf-8", "surrogatepass")
    if nested:
        again = scan(rewritten)
        if (again.edits or again.maps) and rewritten != text:
            return _apply_edits(rewritten, again)
    return rewritten


# --- values: Python data as the engine's own values --------------------------------------------


# Containers a literal nests before its inner value is set apart: minijinja's parser stops
# at its recursion limit (a list in 74 lists, fewer with maps), while Goose hands over a value
# of any depth serde reads (up to 128) as it is.
LITERAL_DEPTH = 32


def literal(value: Any, hoisted: list[str] | None = None, room: int = LITERAL_DEPTH) -> str:
    """``value`` as a minijinja literal that evaluates to what Goose's serde conversion
    makes of the same JSON (maps with sorted keys). A container nested deeper than ``room``
    is set apart: its own ``{% set %}`` goes to ``hoisted`` (innermost first, to come before
    the literal) and the literal names it. Without ``hoisted`` nothing is set apart."""
    if hoisted is not None and room == 0 and isinstance(value, dict | list | tuple):
        name = f"{_SLOT}deep{len(hoisted)}"
        inner = literal(value, hoisted, LITERAL_DEPTH)
        hoisted.append(f"{{% set {name} = {inner} %}}")
        return name
    room -= 1
    if value is None:
        return "none"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value) if value >= 0 else f"({value})"
    if isinstance(value, float):
        if math.isnan(value):
            return "(1e999 - 1e999)"
        if math.isinf(value):
            return "1e999" if value > 0 else "(-1e999)"
        return repr(value) if value >= 0 or repr(value) == "-0.0" else f"({value!r})"
    if isinstance(value, str):
        text = value
        if not text.isascii():  # a lone surrogate becomes U+FFFD, as the binding makes it
            text = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
        if "\\" in text:
            text = text.replace("\\", "\\\\")
        if '"' in text:
            text = text.replace('"', '\\"')
        return '"' + text + '"'
    if hasattr(value, "model_dump"):
        # A Rust struct serializes its fields in declaration order (FileEntry in Goose).
        fields = value.model_dump()
        return (
            "{"
            + ", ".join(f"{literal(k)}: {literal(v, hoisted, room)}" for k, v in fields.items())
            + "}"
        )
    if isinstance(value, dict):
        pairs = sorted((str(k), v) for k, v in value.items())
        return "{" + ", ".join(f"{literal(k)}: {literal(v, hoisted, room)}" for k, v in pairs) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(literal(item, hoisted, room) for item in value) + "]"
    return literal(str(value))


# --- the environment -----------------------------------------------------------------------------


class _OutputCapReached(Exception):
    pass


_ERROR_SUFFIX = re.compile(r" \(in [^\n]*:(\d+)\)$")


def _goose_reason(exc: Exception) -> tuple[str, int | None]:
    """Goose's ``Display`` of the error, without the "(in template:N)" the caller prints
    as ``path:N:``. An error inside the wrapper's include is the included template's."""
    text = str(exc).rstrip("\n")
    line: int | None = getattr(exc, "line", None)
    if getattr(exc, "name", None) == WRAPPER_NAME and "\ncaused by: " in text:
        text = text.split("\ncaused by: ")[1]
        line = None
    text = text.split("\ncaused by: ")[0].split("\n-------")[0]
    match = _ERROR_SUFFIX.search(text)
    if match:
        line = int(match.group(1))
        text = text[: match.start()]
    return text, line


def code_fence(code: str) -> str:
    """Fence ``code`` with more backticks than its longest run (at least three), so code that
    itself holds a fence cannot end the block. Trailing newlines are dropped, as Goose does."""
    code = str(code)
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    fence = "`" * max(longest + 1, 3)
    return f"{fence}\n{code.rstrip(chr(10))}\n{fence}"


# The counter of a loop's template text (see count_loop_text): a global no template can name.
_TEXT_COUNTER = f"_goose_tui_text_{os.urandom(8).hex()}"
# Runs of a loop's text this short are not counted: at one instruction each, the fuel bounds
# what they print to the output cap (OUTPUT_CAP // FUEL characters a run).
_UNCOUNTED_TEXT = OUTPUT_CAP // FUEL


def count_loop_text(source: str) -> tuple[str, int]:
    """``source`` with each longer run of template text inside a for loop counted as output,
    and the longest run left uncounted, in bytes. The finalizer sees only values: a loop's
    own text (a paragraph in a ``{% for %}``) would print past the output cap unseen, and
    lowering the instruction budget for it instead would cut a finite summary of many items
    short. Each run gets ``{{ counter(chars) }}``, which prints nothing, before its first
    character that is not whitespace: after the whitespace a tag's ``-``, ``trim_blocks`` or
    ``lstrip_blocks`` may remove, so the output is the same. A run of whitespace only, and a
    raw block's text, are left to the budget."""
    found = scan(source)
    if not found.loop_data:
        return source, found.max_raw_in_loop
    src = source.encode("utf-8", "surrogatepass")
    out: list[bytes] = []
    at, uncounted = 0, found.max_raw_in_loop
    for start, end in found.loop_data:
        run = src[start:end]
        first = len(run) - len(run.lstrip(b" \t\n\r\x0c"))
        if first == len(run) or len(run) <= _UNCOUNTED_TEXT:
            uncounted = max(uncounted, len(run))
            continue
        chars = len(run.decode("utf-8", "surrogatepass"))
        out += [src[at : start + first], b"{{ %s(%d) }}" % (_TEXT_COUNTER.encode(), chars)]
        at = start + first
    out.append(src[at:])
    return b"".join(out).decode("utf-8", "surrogatepass"), uncounted


class Compiled:
    """One template compiled in its own environment configured as Goose's."""

    def __init__(self, text: str):
        self.text = text
        self.scan = scan(text)
        self.source = _apply_edits(text, self.scan)
        self.counted_source, uncounted = count_loop_text(self.source)
        # What a loop prints that no count sees is bounded by the fuel.
        self.fuel = max(100, min(FUEL, OUTPUT_CAP // max(uncounted, 1)))
        self._env: Any = None
        self._output = 0
        self.printed_verbatim = printed_verbatim(self.scan)
        # One render at a time per template (the app renders from worker threads): the
        # output count is per render. Waiting on it releases the GIL.
        self._lock = threading.Lock()
        self._env_or_error()

    def _make_env(self) -> Any:
        import minijinja

        env = minijinja.Environment(
            trim_blocks=True, lstrip_blocks=True, pycompat=False, debug=False
        )
        env.auto_escape_callback = lambda _name: None
        env.undefined_behavior = "lenient"
        env.keep_trailing_newline = False
        for name in _EXTRA_FILTERS:
            env.remove_filter(name)
        for name in _EXTRA_TESTS:
            env.remove_test(name)
        for name in list(env.globals):
            env.remove_global(name)
        env.add_filter("code_fence", self._code_fence)
        env.add_global(_TEXT_COUNTER, self._count_text)
        env.finalizer = self._count
        env.fuel = self.fuel
        return env

    def _code_fence(self, *args: Any, **kwargs: Any) -> str:
        import minijinja

        if not args:
            raise minijinja.TemplateError("missing argument")
        if kwargs or len(args) > 1:
            raise minijinja.TemplateError("too many arguments")
        return code_fence(str(args[0]))  # a string: see the `safe` edit in scan()

    def _count(self, value: Any) -> Any:
        self._output += len(value) if isinstance(value, str) else 16
        if self._output > OUTPUT_CAP:
            raise _OutputCapReached()
        return NotImplemented

    def _count_text(self, chars: int) -> str:
        self._output += chars
        if self._output > OUTPUT_CAP:
            raise _OutputCapReached()
        return ""

    def _env_or_error(self) -> Any:
        import minijinja

        if self._env is not None:
            return self._env
        env = self._make_env()
        goose = self.scan.goose_error
        try:
            env.add_template(TEMPLATE_NAME, self.source)
        except UnicodeEncodeError:
            raise EngineError(
                "the template holds a lone surrogate code point, which is not text Goose can "
                "read (a UTF-8 file cannot hold one)",
                None,
                kind="syntax",
            ) from None
        except minijinja.TemplateError as exc:
            message, line = _goose_reason(exc)
            span = getattr(exc, "range", None)
            if goose is None or (span is not None and self._original(span[0]) < goose[0]):
                raise EngineError(message, line, kind="syntax") from None
        if goose is not None:
            raise EngineError(goose[2], goose[1], kind="syntax")
        if self.counted_source != self.source:
            # Compiled as written first: a syntax error's place is the user's text's.
            env.add_template(TEMPLATE_NAME, self.counted_source)
        self._env = env
        return env

    def _original(self, offset: int) -> int:
        """An offset in the edited source as an offset in the user's text (the edits that
        insert text come before it; reordered map pairs keep the length)."""
        shift = 0
        for start, end, new in sorted(self.scan.edits):
            if offset < start + shift:
                break
            shift += len(new) - (end - start)
        return offset - shift

    def render(self, context: dict[str, Any]) -> str:
        return str(self.render_pieces(context))

    def render_pieces(self, context: dict[str, Any]) -> Pieces:
        """The render as pieces: a long value printed whole (``printed_verbatim``, the
        prompt's conversation) stays the strings it was given, not joined into the output."""
        import minijinja

        with self._lock:
            env = self._env_or_error()
            try:
                text = self._render(env, context)
            except BaseException as exc:  # pyo3's PanicException derives from BaseException
                if type(exc).__name__ != "PanicException":
                    raise
                self._env = None  # a panic poisons the environment
                # In the compiled binding, not in its stubs.
                info = minijinja._lowlevel.get_panic_info()  # type: ignore[attr-defined]
                raise _crash(info[0] if info else str(exc), None) from None
        return text.strip(RUST_WHITESPACE)  # Goose trims the render: Rust's str::trim()

    def _splice(self, rendered: str, verbatim: dict[str, tuple[str, ...]]) -> Pieces:
        """``rendered`` with each stand-in replaced by its value's pieces (not joined)."""
        split = re.split("(" + "|".join(map(re.escape, verbatim)) + ")", rendered)
        grows = {
            stand_in: sum(map(len, parts)) - len(stand_in) for stand_in, parts in verbatim.items()
        }
        out: list[str] = []
        for i, piece in enumerate(split):
            if i % 2:
                self._output += grows[piece]
                if self._output > OUTPUT_CAP:
                    raise _OutputCapReached()
                out += verbatim[piece]
            else:
                out.append(piece)
        return Pieces(out)

    def _render(self, env: Any, context: dict[str, Any]) -> Pieces:
        import minijinja

        # Every value is written into the wrapper as a literal and nothing is passed from
        # Python: the binding hands a Python context over as the dict itself, whose methods
        # then answer for the names it lacks ({{ items }} printed a bound method, {{ keys() }}
        # called it; in Goose both are "unknown"). A name that is not an identifier is
        # unreachable in Goose too.
        # A string is the one value the binding converts to the engine's own (a native
        # string): it is handed over as a global under a name no template can know, not
        # copied into the source, where the engine would lex and unescape it again (the
        # prompt's {{ messages }} is tens of megabytes). Not one with a lone surrogate: the
        # binding does not make that a native string (it slices and iterates differently), its
        # literal does. A long string the template only prints whole (printed_verbatim) goes in
        # as a short stand-in, replaced by the string in the output: the engine would copy the
        # whole conversation in and out to print it as it is. tests/compaction/test_engine.py
        # renders generated templates both ways.
        # A Pieces value is spliced in the same way: its pieces become pieces of the output.
        verbatim: dict[str, tuple[str, ...]] = {}  # stand-in -> the pieces of the value
        sets: list[str] = []
        handed: list[str] = []
        for k, v in sorted(context.items()):
            if not _settable(k):
                continue
            parts = v.parts if isinstance(v, Pieces) else (v,) if isinstance(v, str) else None
            if parts is not None and not any(map(_has_surrogate, parts)):
                if k in self.printed_verbatim and sum(map(len, parts)) >= VERBATIM_CHARS:
                    stand_in = f"{_SLOT}verbatim{len(verbatim)}_"
                    verbatim[stand_in] = parts
                    v = stand_in
                elif isinstance(v, Pieces):
                    v = str(v)
                slot = f"{_SLOT}{len(handed)}"
                env.add_global(slot, v)
                handed.append(slot)
                sets.append(f"{{% set {k} = {slot} %}}")
            else:
                shown = str(v) if isinstance(v, Pieces) else v
                hoisted: list[str] = []  # what a deep value sets apart, set before it
                value = literal(shown, hoisted)
                sets += hoisted
                sets.append(f"{{% set {k} = {value} %}}")
        self._output = 0
        try:
            rendered: str = env.render_str("".join(sets) + _INCLUDE, WRAPPER_NAME)
            return self._splice(rendered, verbatim) if verbatim else Pieces([rendered])
        except _OutputCapReached:
            raise EngineError(
                f"output budget exhausted: the render passed {OUTPUT_CAP:,} characters "
                "(goose-tui's sandbox stops a template that prints without end; Goose would "
                "keep going)",
                None,
                kind="budget",
            ) from None
        except minijinja.TemplateError as exc:
            message, line = _goose_reason(exc)
            if message.startswith("panic during rendering: "):
                self._env = None  # a panic poisons the environment
                detail = message.removeprefix("panic during rendering: ")
                raise _crash(re.sub(r" \([^()]*\.rs:\d+\)$", "", detail), line) from None
            if "fuel" in message and "out of" in message:
                raise EngineError(
                    f"time budget exhausted: the render ran {self.fuel:,} engine instructions "
                    "(goose-tui's sandbox stops a template that loops without end; Goose "
                    "would keep running)",
                    line,
                    kind="budget",
                ) from None
            raise EngineError(message, line, kind="render") from None
        finally:
            try:
                for slot in handed:
                    env.remove_global(slot)
            except BaseException as exc:  # the environment was poisoned by a panic
                if type(exc).__name__ != "PanicException":
                    raise
                self._env = None


def _crash(detail: str, line: int | None) -> EngineError:
    return EngineError(
        "Goose's template engine crashes on this template (minijinja panics: "
        f"{detail}); goose-tui reports it instead of crashing. A reverse slice of an "
        "empty list or string does this.",
        line,
        kind="crash",
    )


def _settable(name: str) -> bool:
    return bool(_ASCII_IDENT.match(name)) and name not in _RESERVED
