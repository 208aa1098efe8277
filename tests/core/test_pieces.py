"""``Pieces``, the prompt as the strings it is the join of: it behaves as its joined text
wherever the pipeline reads it (length, equality, trimming, slices, a model field)."""

from __future__ import annotations

import json
from itertools import accumulate

from hypothesis import given
from hypothesis import strategies as st

from goose_tui.compaction.engine import Compiled
from goose_tui.llm.base import ChatMessage
from goose_tui.pieces import Pieces, line_windows, parts_of, slices

# Characters where a cut matters: whitespace Rust trims, every UTF-8 length, a surrogate.
ALPHABET = st.sampled_from(list("ab \n\t\u3000\u2028é中🙂") + ["\ud800"])
TEXTS = st.text(ALPHABET, max_size=40)


@st.composite
def cut(draw: st.DrawFn, text: str | None = None) -> tuple[str, Pieces]:
    """A text and the same text cut anywhere, empty pieces included."""
    text = draw(TEXTS) if text is None else text
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=6)))
    bounds = [0, *cuts, len(text)]
    return text, Pieces(text[a:b] for a, b in zip(bounds, bounds[1:], strict=False))


@given(cut(), cut())
def test_pieces_are_their_joined_text(left: tuple[str, Pieces], right: tuple[str, Pieces]) -> None:
    (a, pa), (b, pb) = left, right
    assert str(pa) == a and len(pa) == len(a) and bool(pa) == bool(a)
    assert (pa == pb) == (a == b)
    assert (pa == b) == (a == b) and (b == pa) == (a == b)  # against a str, both ways round
    assert "".join(slices(pa, 3)) == a and all(0 < len(s) <= 3 for s in slices(pa, 3))
    assert "".join(parts_of(pa)) == a and parts_of(a) == (a,)


@given(cut(), st.sampled_from([" \n", "\t\n\u3000\u2028 ", "ab"]))
def test_strip_is_the_joined_texts_strip(text: tuple[str, Pieces], chars: str) -> None:
    plain, pieces = text
    assert str(pieces.strip(chars)) == plain.strip(chars)


def test_the_same_strings_compare_without_reading_them() -> None:
    class Unreadable(str):
        def __eq__(self, other: object) -> bool:
            raise AssertionError("compared character by character")

        __hash__ = str.__hash__

    shared = Unreadable("x" * 1_000)
    assert Pieces(["a", shared]) == Pieces(["b"[:0] + "a", shared])


def test_a_message_with_pieces_dumps_the_text_and_keeps_its_schema() -> None:
    message = ChatMessage(role="system", content=Pieces(["sys", "tem"]))
    assert isinstance(message.content, Pieces)
    assert message.model_dump() == {"role": "system", "content": "system"}
    assert json.loads(message.model_dump_json()) == {"role": "system", "content": "system"}
    assert ChatMessage.model_json_schema()["properties"]["content"]["type"] == "string"


def test_a_long_value_printed_whole_stays_the_given_strings() -> None:
    # The prompt's conversation is handed to the engine as pieces and comes back as the same
    # string objects around the template's text: nothing of it is copied.
    conversation = ["[user]: " + "word " * 20_000, "\n\n", "[assistant]: " + "reply " * 20_000]
    rendered = Compiled("head\n{{ messages }}\ntail  \n").render_pieces(
        {"messages": Pieces(conversation)}
    )
    assert str(rendered) == "head\n" + "".join(conversation) + "\ntail"
    assert all(any(part is piece for part in rendered.parts) for piece in conversation)


@given(cut(), st.text(ALPHABET, min_size=1, max_size=4), st.data())
def test_slice_rfind_and_line_windows_read_the_joined_text(
    text: tuple[str, Pieces], sub: str, data: st.DataObject
) -> None:
    plain, pieces = text
    start = data.draw(st.integers(0, len(plain)))
    end = data.draw(st.integers(start, len(plain)))
    assert pieces.slice(start, end) == plain[start:end]
    assert pieces.rfind(sub) == plain.rfind(sub)
    size = data.draw(st.integers(1, 12))
    windows = list(line_windows(pieces, size))
    assert "".join(w for _, w in windows) == plain
    starts = accumulate((len(w) for _, w in windows), initial=0)
    assert [at for at, _ in windows] == list(starts)[: len(windows)]
    assert all(w.endswith("\n") for _, w in windows[:-1])  # whole lines
