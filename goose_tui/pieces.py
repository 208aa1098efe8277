"""A long text held as the strings it is the join of: the compaction prompt.

The prompt of a big session is tens of millions of characters, nearly all of them the
session's own message texts. Joined into one ``str`` it is a second copy of them, at 4 bytes
a character as soon as one emoji is in it, and the join is one C call that holds the GIL
long enough to stall the app's screen. As ``Pieces`` it is the session's strings plus the template's
few between them: shown from its pieces (the input pane), counted from them (tokens.py),
written from them (the CLI, the litellm worker's frames). Only what needs one ``str`` (a
model called in this process, the clipboard, a JSON report) joins it, with ``str()``.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from itertools import accumulate
from typing import IO, Any

SLICE_CHARS = 1 << 20  # a piece longer than this is handed out a slice at a time


class Pieces:
    """An immutable text made of ``parts``. ``str(pieces)`` is the text; ``len`` and ``==``
    (against a ``str`` or other ``Pieces``) need no join."""

    __slots__ = ("parts", "_length", "_starts")

    def __init__(self, parts: Iterable[str]) -> None:
        self.parts: tuple[str, ...] = tuple(parts)
        self._length = sum(map(len, self.parts))
        self._starts: list[int] | None = None  # where each part starts, once sliced

    def __len__(self) -> int:
        return self._length

    def __bool__(self) -> bool:
        return self._length > 0

    def __str__(self) -> str:
        # One part: that string itself (join returns it without a copy).
        return "".join(self.parts)

    def __repr__(self) -> str:
        # Short: a repr is made where nobody reads it (a worker's description).
        return f"Pieces(<{len(self.parts):,} parts, {self._length:,} chars>)"

    def __eq__(self, other: object) -> bool:
        if other is self:
            return True
        if not isinstance(other, str | Pieces):
            return NotImplemented
        if len(other) != self._length:
            return False
        if isinstance(other, Pieces) and list(map(len, other.parts)) == list(map(len, self.parts)):
            # Built from the same session: mostly the same strings (``is``: no compare).
            return all(a is b or a == b for a, b in zip(self.parts, other.parts, strict=True))
        mine, theirs = slices(self), slices(other)
        a = b = ""
        at_a = at_b = 0
        while True:
            if at_a == len(a):
                a, at_a = next(mine, ""), 0
            if at_b == len(b):
                b, at_b = next(theirs, ""), 0
            n = min(len(a) - at_a, len(b) - at_b)
            if n == 0:  # the end of both (the lengths are equal)
                return True
            if not a.startswith(b[at_b : at_b + n], at_a):
                return False
            at_a, at_b = at_a + n, at_b + n

    __hash__ = None  # type: ignore[assignment]  # equal to a str, so not hashable like one

    def slice(self, start: int, end: int) -> str:
        """``str(self)[start:end]`` (0 <= start, end <= len) without joining the rest."""
        if self._starts is None:
            self._starts = list(accumulate(map(len, self.parts), initial=0))
        return join_slice(self.parts, self._starts, start, end)

    def rfind(self, sub: str) -> int:
        """``str(self).rfind(sub)`` (``sub`` non-empty), a slice of the text at a time."""
        found, offset, carry = -1, 0, ""
        for piece in slices(self):
            window = carry + piece
            at = window.rfind(sub)
            if at != -1:
                found = offset - len(carry) + at
            offset += len(piece)
            carry = window[len(window) - len(sub) + 1 :] if len(sub) > 1 else ""
        return found

    def strip(self, chars: str) -> Pieces:
        """``str(self).strip(chars)`` as pieces: only the end parts are touched."""
        parts = list(self.parts)
        first = next((i for i, p in enumerate(parts) if p.lstrip(chars)), len(parts))
        del parts[:first]
        last = next((i for i in range(len(parts) - 1, -1, -1) if parts[i].rstrip(chars)), -1)
        del parts[last + 1 :]
        if parts:
            parts[0] = parts[0].lstrip(chars)
            parts[-1] = parts[-1].rstrip(chars)
        return Pieces(parts)

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        # In a model field (ChatMessage.content): kept as it is, dumped as the str it is.
        from pydantic_core import core_schema

        return core_schema.is_instance_schema(
            cls,
            serialization=core_schema.plain_serializer_function_ser_schema(
                str, return_schema=core_schema.str_schema()
            ),
        )


Text = str | Pieces


def parts_of(text: Text) -> tuple[str, ...]:
    return text.parts if isinstance(text, Pieces) else (text,)


def join_slice(parts: Sequence[str], starts: Sequence[int], start: int, end: int) -> str:
    """From ``start`` to ``end`` of the text ``parts`` join to (``starts``: where each part
    begins): a slice of one part, or joined from the few parts it spans."""
    if start >= end:
        return ""
    first = bisect_right(starts, start) - 1
    offset, part = starts[first], parts[first]
    if end <= offset + len(part):
        return part[start - offset : end - offset]
    out = [part[start - offset :]]
    index = first + 1
    while index < len(parts) and starts[index] < end:
        out.append(parts[index][: end - starts[index]])
        index += 1
    return "".join(out)


def slices(text: Text, size: int = SLICE_CHARS) -> Iterator[str]:
    """The text in order, no string longer than ``size`` (long parts are sliced)."""
    for part in parts_of(text):
        if len(part) <= size:
            if part:
                yield part
            continue
        for start in range(0, len(part), size):
            yield part[start : start + size]


def line_windows(text: Text, size: int = SLICE_CHARS) -> Iterator[tuple[int, str]]:
    """The text as strings of whole lines (each ends with its newline, but the last), about
    ``size`` characters or more, with where each starts: a line-anchored pattern finds in
    them what it finds in the whole text."""
    pending: list[str] = []
    offset = length = 0
    for piece in slices(text, size):
        cut = piece.rfind("\n") + 1 if length + len(piece) >= size else 0
        if cut == 0:
            pending.append(piece)
            length += len(piece)
            continue
        window = "".join([*pending, piece[:cut]])
        yield offset, window
        offset += len(window)
        pending, length = [piece[cut:]], len(piece) - cut
    if length:
        yield offset, "".join(pending)


def write_frames(stream: IO[bytes], text: Text, size: int = SLICE_CHARS) -> None:
    """``text`` to a worker process's pipe as frames ``<n>\\n<n bytes of UTF-8>`` ended by
    ``0\\n``, a slice of at most ``size`` characters at a time: never encoded whole (a slice
    is a few ms of the GIL), the prompt's pieces never joined, a lone surrogate of a hostile
    session kept (``surrogatepass``). The litellm and token workers read them back."""
    for piece in slices(text, size):
        data = piece.encode("utf-8", "surrogatepass")
        stream.write(b"%d\n" % len(data))
        stream.write(data)
    stream.write(b"0\n")


def read_frames(stream: IO[bytes]) -> Iterator[str]:
    """The text ``write_frames`` wrote, a frame at a time. A frame is a slice of whole
    characters, decoded on its own, so the UTF-8 of the whole text never exists beside it."""
    while size := int(stream.readline()):
        yield stream.read(size).decode("utf-8", "surrogatepass")
