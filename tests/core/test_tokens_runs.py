"""Long texts without spaces (a base64 tool-call argument, hex, minified JSON) are counted in
bounded chunks, cut where o200k_base's pre-tokenizer always starts a piece, so the count is
the whole text's; a run no such cut reaches (one letter, or punctuation, repeated) is cut
where it stands past ``LONGEST_RUN_CHARS``, an estimate (docs/fidelity.md)."""

from __future__ import annotations

import base64
import json
import random

import pytest

from goose_tui import tokens
from goose_tui.session.models import Message

# Pieces of texts with no space: every ASCII class, what a cut must never split (a special
# token, a contraction, a digit run), and what the ASCII rules must not be fooled by
# (digits and letters outside ASCII, marks, whitespace other than a space).
_RUN_PIECES = [
    *"abcxyzABCXYZ0123456789+/=_-.,:;!?'\"|<>{}[]()\\#$%&*@^`~",
    "'s",
    "'T",
    "'re",
    "n't",
    "12345",
    "<|endoftext|>",
    "<|endofprompt|>",
    "<|endoftext",
    "|>",
    "\t",
    "\n",
    "\r\n",
    "\x1c",
    "\x0b",
    "\u00a0",
    "٣",
    "²",
    "½",
    "e\u0301",
    "é",
    "中文",
    "🙂",
    "Ω",
    "ǅ",
]


def _run_text(seed: int, pieces: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(_RUN_PIECES) for _ in range(pieces))


@pytest.mark.parametrize("seed", range(10))
def test_a_text_without_spaces_counts_as_its_whole_in_chunks(seed: int) -> None:
    text = _run_text(seed, 5_000)
    assert " " not in text
    whole = tokens._encode_count(text)
    for chunk in (2, 3, 7, 64, 1_000):
        assert tokens.count_tokens(text, chunk=chunk) == whole, chunk


@pytest.mark.parametrize("seed", range(4))
def test_every_cut_inside_a_run_leaves_the_count_unchanged(seed: int) -> None:
    text = _run_text(100 + seed, 1_500)
    whole = tokens._encode_count(text)
    cuts = [match.start() for match in tokens._RUN_CUT.finditer(text, 1)]
    assert len(cuts) > 300
    for cut in cuts[::3]:
        assert tokens._encode_count(text[:cut]) + tokens._encode_count(text[cut:]) == whole, (
            repr(text[max(0, cut - 8) : cut]),
            repr(text[cut : cut + 8]),
        )


def _base64_call(size: int) -> tuple[Message, str]:
    data = base64.b64encode(random.Random(5).randbytes(size * 3 // 4)).decode()
    request = {
        "type": "toolRequest",
        "id": "call_1",
        "toolCall": {
            "status": "success",
            "value": {"name": "developer__text_editor", "arguments": {"file_text": data}},
        },
    }
    message = Message.model_validate({"role": "assistant", "created": 1, "content": [request]})
    (text,) = tokens.item_token_texts(message.content[0])
    return message, text


def test_a_long_base64_argument_is_counted_exactly_in_bounded_chunks() -> None:
    message, text = _base64_call(1_600_000)
    chunks = list(tokens._chunks(text, tokens.CHUNK_CHARS))
    assert "".join(chunks) == text
    assert len(chunks) > 5 and max(map(len, chunks)) <= 2 * tokens.CHUNK_CHARS
    expected = tokens._encode_count(text)
    assert tokens.count_tokens(text) == expected
    assert tokens.message_tokens(message) == tokens.TOKENS_PER_MESSAGE + expected


def test_a_run_no_cut_reaches_is_cut_where_it_stands_and_estimated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tokens, "LONGEST_RUN_CHARS", 2_000)
    for text in ("a" * 30_000, "+/" * 15_000, "Z" * 30_000):
        chunks = list(tokens._chunks(text, 500))
        assert "".join(chunks) == text and max(map(len, chunks)) <= 2_500
        exact, estimate = tokens._encode_count(text), tokens.count_tokens(text, chunk=500)
        assert abs(estimate - exact) <= exact / 100, (text[:4], estimate, exact)


def test_json_arguments_with_a_long_value_count_as_their_whole() -> None:
    # Minified JSON: keys, numbers and escapes between long values, no space anywhere.
    rng = random.Random(3)
    value = {f"k{n}": rng.randbytes(300).hex() + "\\n" + str(n) for n in range(400)}
    text = "call_9:tool:" + json.dumps(value, separators=(",", ":"))
    assert tokens.count_tokens(text, chunk=1_000) == tokens._encode_count(text)
