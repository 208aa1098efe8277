"""docs/pipeline.md §6: find the summary JSON in a model reply, linear in the reply's length.

Why it is linear (a naive search tries every marker after every cut, and scans each to its
matching brace):
- A candidate after cut j must contain every later ``</analysis>``. A marker past the next
  terminator can never pass that check, so each cut looks only at the markers before the
  next terminator: every marker is looked at once, not once per cut.
- A candidate that contains later terminators and parses has them inside JSON strings. In
  valid JSON strings run between consecutive unescaped quotes, so the number of unescaped
  quotes between the object's start and each later terminator must be odd. Once two
  terminators are an odd number of quotes apart, no object before them can hold both:
  the search stops there, having looked only at the reply's tail, and tries the object at
  the start of the text last.
- A usable object has a key that is one of the summary's fields, so its text holds that
  field's name, or a ``\\u`` escape that could spell it. `````json`` candidates that start
  after the last such text can only fail: they are counted (the fallback reason says how
  many candidates failed) and not parsed. A reply made of many small non-summary blocks
  then costs a few C scans instead of one parse per block.
- "The object that starts at s" is the brace-matched span, and it must parse. When the JSON
  parser succeeds from s it stops exactly at that matching ``}``; when it fails, that span
  (if it closes at all) does not parse either. So the parser's own scan replaces the brace
  scan. It runs on a window after s that grows only while a failure could be an artefact
  of the window's end, so an attempt costs about as much as the JSON it reads.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import BaseModel

from goose_tui.compaction.structured import (
    FIELD_ORDER,
    RUST_WHITESPACE,
    StructuredSummary,
    decode_at,
    line_col,
)

CandidateKind = Literal["json_fence", "tail_start", "text_start"]

TERMINATOR = "</analysis>"
OPENING = "<analysis>"
SUMMARY_FIELDS = frozenset(FIELD_ORDER)
MARKER = "```json"

# "The object that starts" a text: Rust whitespace (what Goose's trim_start skips), then `{`.
_OBJECT_START = re.compile(f"[{re.escape(RUST_WHITESPACE)}]*(\\{{)")
# Cheap necessary shape of a JSON object's first bytes; most noise fails here.
_OBJECT_HEAD = re.compile(r'\{[ \t\n\r]*[}"]')
# A ```json marker whose candidate does not start with an object (_try gives up at once,
# no failure counted). Near a segment's end the lookahead is cut short; see _fence_failures.
_BARE_MARKER = re.compile(f"{re.escape(MARKER)}(?![{re.escape(RUST_WHITESPACE)}]*\\{{)")
# What a summary key's text must contain: a field name, or an escape that could spell one.
_KEY_TEXTS = (*FIELD_ORDER, "\\u")
_FIRST_WINDOW = 512
_TAIL_MARGIN = 16  # an error this close to a window's end may be caused by the cut


class Candidate(BaseModel):
    """Where the chosen JSON object was found: ``start``/``end`` are offsets into the reply
    (end exclusive); ``cut`` is the offset just after the ``</analysis>`` it follows (0 for
    the start of text); ``cut_number`` counts that ``</analysis>`` from 1 (0: none)."""

    kind: CandidateKind
    start: int
    end: int
    cut: int
    cut_number: int = 0

    def describe(self) -> str:
        after = f" after the {_ordinal(self.cut_number)} {TERMINATOR}" if self.cut_number else ""
        if self.kind == "json_fence":
            return f"```json block{after}" if after else "```json block"
        if self.kind == "tail_start" and after:
            return f"object at the start of the text{after}"
        return "object at the start of the reply"


class Extraction(BaseModel):
    reply: str
    analysis: str | None = None
    structured: StructuredSummary | None = None  # normalized, usable; None on fallback
    candidate: Candidate | None = None
    fallback_reason: str | None = None  # set exactly when structured is None

    @property
    def fallback(self) -> bool:
        return self.structured is None


def extract_summary(reply: str) -> Extraction:
    """Run docs/pipeline.md §6 on a reply: the first usable candidate, or the raw text with
    the reason.

    ``analysis`` is the inside of the last ``<analysis>…</analysis>`` before the chosen
    object; on fallback, the last such block in the reply (None when there is none)."""
    search = _Search(reply)
    found = search.run()
    if found is not None:
        candidate, summary = found
        return Extraction(
            reply=reply,
            analysis=analysis_before(reply, candidate.start),
            structured=summary,
            candidate=candidate,
        )
    return Extraction(
        reply=reply,
        analysis=analysis_before(reply, len(reply)),
        fallback_reason=search.fallback_reason(),
    )


def analysis_before(reply: str, pos: int) -> str | None:
    """The text inside the last complete analysis block that ends at or before ``pos``.

    Without an opening ``<analysis>`` (models sometimes drop it) the block starts after the
    previous terminator, or at the start of the reply."""
    close = reply.rfind(TERMINATOR, 0, pos)
    if close == -1:
        return None
    previous = reply.rfind(TERMINATOR, 0, close)
    floor = previous + len(TERMINATOR) if previous != -1 else 0
    opening = reply.rfind(OPENING, floor, close)
    begin = opening + len(OPENING) if opening != -1 else floor
    return reply[begin:close].strip()


Why = Literal["parse", "count", "unusable"]
_Found = tuple[Candidate, StructuredSummary]


class _Failure(BaseModel):
    kind: CandidateKind
    start: int
    why: Why
    extras: list[str] = []


class _Search:
    """One search over one reply; terminators are found from the end, only as far back as
    the search goes."""

    def __init__(self, reply: str):
        self.reply = reply
        self.last_terminator_end = 0  # an object after an earlier cut must reach this far
        # The object at the start of the text can be tried twice (tail start, text start).
        self.last_parse: tuple[int, tuple[Any, int] | None] | None = None
        self.first_failure: _Failure | None = None
        self.failures = 0
        self.stopped_at: int | None = None  # the terminator no earlier object can contain
        # An object starting after this offset holds no summary key: it cannot be usable.
        self.key_floor = max(reply.rfind(text) for text in _KEY_TEXTS)

    def run(self) -> _Found | None:
        reply = self.reply
        tag = reply.rfind(TERMINATOR)
        if tag == -1:  # no cut: the start of the text is the only one
            return self._segment(0, len(reply), None) or self._try("text_start", 0, 0)
        self.last_terminator_end = tag + len(TERMINATOR)
        later: int | None = None  # start of the next terminator after this cut
        while True:
            limit = later if later is not None else len(reply)
            found = self._segment(tag + len(TERMINATOR), limit, later)
            if found:
                return found
            previous = reply.rfind(TERMINATOR, 0, tag)
            if previous == -1:
                break
            if later is not None and _unescaped_quotes(reply, tag, later) % 2:
                self.stopped_at = tag
                break
            later, tag = tag, previous
        return self._try("text_start", 0, 0)

    def _segment(self, cut: int, limit: int, later: int | None) -> _Found | None:
        """The candidates of one cut, in order: markers last first, then the tail's start.
        Only markers before ``limit`` (the next terminator) can pass the count check."""
        reply = self.reply
        if later is not None and reply.find('"', cut, limit) == -1:
            return None  # no quote before the next terminator: it cannot be inside a string
        # Markers at or after ``hopeless`` put their object's start past the last key text:
        # each such candidate fails. The first one tried is tried in full (it may be the
        # failure the fallback reason describes); the others are only counted.
        hopeless = max(cut, self.key_floor - len(MARKER) + 1)
        if hopeless < limit:
            rest = limit
            while self.first_failure is None:
                index = reply.rfind(MARKER, hopeless, rest)
                if index == -1:
                    break
                found = self._try("json_fence", index + len(MARKER), cut, later)
                if found:  # cannot happen (no key text after it); never lose one, though
                    return found
                rest = index
            self.failures += self._fence_failures(hopeless, rest)
        # `````json`` cannot overlap itself, so scanning back finds the markers a forward
        # scan would, last first.
        index = reply.rfind(MARKER, cut, min(limit, hopeless + len(MARKER) - 1))
        while index != -1:
            found = self._try("json_fence", index + len(MARKER), cut, later)
            if found:
                return found
            index = reply.rfind(MARKER, cut, index)
        return self._try("tail_start", cut, cut, later)

    def _fence_failures(self, start: int, end: int) -> int:
        """How many markers lying in [start, end) are followed by an object start, i.e. how
        many failures trying each of them would count (C scans, no loop per marker)."""
        reply = self.reply
        markers = reply.count(MARKER, start, end)
        if not markers:
            return 0
        bare = len(_BARE_MARKER.findall(reply, start, end))
        # The lookahead cannot see past ``end``: only the last marker's can be cut short.
        last = reply.rfind(MARKER, start, end)
        seen_bare = _BARE_MARKER.match(reply, last, end) is not None
        really_bare = _OBJECT_START.match(reply, last + len(MARKER)) is None
        return markers - bare + seen_bare - really_bare

    def _try(
        self, kind: CandidateKind, at: int, cut: int, later: int | None = None
    ) -> _Found | None:
        match = _OBJECT_START.match(self.reply, at)
        if match is None:
            return None
        start = match.start(1)
        if later is not None and _unescaped_quotes(self.reply, start, later) % 2 == 0:
            # The next terminator would sit outside every string of this object: either it
            # is outside the object (count check) or the object does not parse.
            self._fail(kind, start, "count")
            return None
        parsed = self._parse(start)
        if parsed is None:
            self._fail(kind, start, "parse")
            return None
        value, end = parsed
        # Every later terminator must be inside the object (quoted by the summary itself).
        if later is not None and self.last_terminator_end > end:
            self._fail(kind, start, "count")
            return None
        if isinstance(value, dict) and SUMMARY_FIELDS.isdisjoint(value):
            # Extras never make a summary usable; no need to build one to learn that.
            self._fail(kind, start, "unusable", [str(k) for k in value])
            return None
        summary = StructuredSummary.parse(value)
        normalized = summary.normalized() if summary is not None else None
        if normalized is None or not normalized.has_content():
            extras = list(normalized.extras) if normalized else []
            self._fail(kind, start, "unusable", extras)
            return None
        # Counted only now: the search itself never needs to read the whole reply.
        number = self.reply.count(TERMINATOR, 0, cut) if cut else 0
        candidate = Candidate(kind=kind, start=start, end=end, cut=cut, cut_number=number)
        return candidate, normalized

    def _fail(
        self, kind: CandidateKind, start: int, why: Why, extras: list[str] | None = None
    ) -> None:
        self.failures += 1
        if self.first_failure is None:
            self.first_failure = _Failure(kind=kind, start=start, why=why, extras=extras or [])

    def _parse(self, start: int) -> tuple[Any, int] | None:
        if self.last_parse is None or self.last_parse[0] != start:
            self.last_parse = (start, self._parse_uncached(start))
        return self.last_parse[1]

    def _parse_uncached(self, start: int) -> tuple[Any, int] | None:
        reply = self.reply
        if _OBJECT_HEAD.match(reply, start) is None:
            return None
        size = _FIRST_WINDOW
        while True:
            window = reply[start : start + size]
            whole = start + size >= len(reply)
            try:
                value, end = decode_at(window, 0, strict=True)
            except json.JSONDecodeError as err:
                cut_by_window = err.pos >= len(window) - _TAIL_MARGIN or err.msg.startswith(
                    "Unterminated string"
                )
                if whole or not cut_by_window:
                    # Escaping changes only control characters: it can mend this failure
                    # only when one sits at or before the error (or is the character after
                    # a backslash there); otherwise the second try fails the same way.
                    if _RAW_CONTROL.search(reply, start, start + err.pos + 2):
                        return parse_escaped(reply, start)
                    return None
            except ValueError:  # rejected after parsing (depth, surrogates, number range)
                if whole:
                    return None
            else:
                return value, start + end
            size *= 4

    def fallback_reason(self) -> str:
        failure = self.first_failure
        if failure is None:
            reason = (
                f"no JSON object found: no {MARKER} block and no object at the start of the "
                f"reply or right after a {TERMINATOR}"
            )
        else:
            line, col = line_col(self.reply, failure.start)
            where = f"the JSON object at offset {failure.start} (line {line}, column {col})"
            if failure.why == "parse":
                reason = f"{where} {self._parse_error(failure.start)}"
            elif failure.why == "count":
                reason = f"{where} is followed by a {TERMINATOR} outside it"
            else:
                reason = f"{where} parsed, but no field of the summary is filled"
                if failure.extras:
                    reason += f" (only unknown keys: {', '.join(failure.extras[:5])})"
            others = self.failures - 1
            if others:
                reason += f"; {others} other candidate{'s' if others > 1 else ''} also failed"
        if self.stopped_at is not None:
            reason += (
                f"; no object before the {_ordinal(self._ordinal_of(self.stopped_at))} "
                f"{TERMINATOR} can contain it and the later ones"
            )
        return reason

    def _ordinal_of(self, tag: int) -> int:
        return self.reply.count(TERMINATOR, 0, tag) + 1

    def _parse_error(self, start: int) -> str:
        """Why the object at ``start`` was rejected, in words (one full parse, for the user)."""
        try:
            decode_at(self.reply, start, strict=True)
        except json.JSONDecodeError as err:
            if err.msg.startswith(_CONTROL_CHARACTER_ERROR):
                return (
                    f"does not parse: a raw control character at line {err.lineno}, column "
                    f"{err.colno}, and with every raw control character escaped (as Goose "
                    "retries) it does not parse either"
                )
            if err.pos >= len(self.reply) or err.msg.startswith("Unterminated string"):
                return "never closes (truncated reply?)"
            return f"does not parse: {err.msg} at line {err.lineno}, column {err.colno}"
        except ValueError as err:
            return f"does not parse: {err}"
        return "does not parse"


# How Python's strict parser names a raw control character inside a string.
_CONTROL_CHARACTER_ERROR = "Invalid control character"
_RAW_CONTROL = re.compile("[\x00-\x1f]")
_CONTROL_ESCAPES = {"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def escape_control_characters(text: str) -> str:
    """Every raw control character (U+0000-U+001F) as its JSON escape, wherever it is:
    inside strings and between tokens alike, as Goose's reader does before its second try."""
    return _RAW_CONTROL.sub(
        lambda m: _CONTROL_ESCAPES.get(m.group(), f"\\u{ord(m.group()):04x}"), text
    )


def parse_escaped(reply: str, start: int) -> tuple[Any, int] | None:
    """Goose's second try at the object that starts at ``start``, after a strict parse
    failed: take the brace-matched span, escape every raw control character in it and parse
    the result strictly (``safely_parse_json``, crates/goose-providers json.rs; the goose-sdk
    wheel agrees, tests/differential/test_reply_reading.py). A pretty-printed object with a
    raw newline inside a string fails this too: its line breaks between tokens become
    ``\\n`` as well. (value, end of the span) or None."""
    end = brace_span_end(reply, start)
    if end is None:
        return None
    escaped = escape_control_characters(reply[start:end])
    try:
        value, stop = decode_at(escaped, 0, strict=True)
    except ValueError:
        return None
    return (value, end) if stop == len(escaped) else None


_OUTSIDE_STRING = re.compile(r'["{}]')
_INSIDE_STRING = re.compile(r'["\\]')


def brace_span_end(text: str, start: int) -> int | None:
    """Just past the ``}`` that closes the ``{`` at ``start``, counting braces outside
    strings and honouring backslash escapes (Goose's ``leading_object``); None when it never
    closes."""
    depth = 0
    pos = start
    while True:
        match = _OUTSIDE_STRING.search(text, pos)
        if match is None:
            return None
        pos = match.end()
        token = match.group()
        if token == "{":
            depth += 1
        elif token == "}":
            depth -= 1
            if depth == 0:
                return pos
        else:
            while True:
                match = _INSIDE_STRING.search(text, pos)
                if match is None:
                    return None
                if match.group() == '"':
                    pos = match.end()
                    break
                pos = match.end() + 1  # the escaped character, whatever it is


# A quote that ends or starts a JSON string: not preceded by an odd run of backslashes.
_UNESCAPED_QUOTE = re.compile(r'(?<!\\)(?:\\\\)*"')


def _unescaped_quotes(text: str, start: int, end: int) -> int:
    if text.find("\\", start, end) == -1:  # the common case, without the regex
        return text.count('"', start, end)
    return len(_UNESCAPED_QUOTE.findall(text, start, end))


def _ordinal(number: int) -> str:
    if 10 <= number % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"
