"""Counting tokens in chunks: the same count as the whole text, and never the whole text's
token list or a copy of the prompt in memory."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from goose_tui import tokens
from goose_tui.compaction.summarize import SUMMARIZE_REQUEST
from goose_tui.pieces import Pieces
from tests.conftest import ROOT

# Pieces that stress the pre-tokenizer's boundaries: runs of spaces and other whitespace
# before words, contractions, numbers, punctuation with slashes and newlines, marks, CJK,
# emoji, Latin-1, and the special tokens counted as one token each.
_PIECES = [
    " ",
    "  ",
    "   ",
    "\t",
    "\n",
    "\r\n",
    " \n",
    "\n\n",
    "\u00a0",
    "\u3000",
    "\u2028",
    "\x1c",
    "word",
    "Word",
    "WORD",
    "wOrD",
    "it's",
    "they'RE",
    "don't",
    "'s",
    "1",
    "12",
    "1234567",
    "½",
    "²",
    ".",
    "...",
    "!?",
    "/",
    "./",
    ".\n/",
    "\n/",
    '{"a": 1}',
    "()",
    "_",
    "__init__",
    "é",
    "e\u0301",
    "naïve",
    "Ünïcödé",
    "中文",
    "日本語のテキスト",
    "🙂",
    "👍🏽",
    "\U0001f642\u200d",
    "<|endoftext|>",
    "<|endofprompt|>",
    "<|endoftext",
    "|>",
    "x<|endoftext|>y",
]


def _generated_text(seed: int, pieces: int) -> str:
    import random

    rng = random.Random(seed)
    return "".join(rng.choice(_PIECES) for _ in range(pieces))


@pytest.mark.parametrize("seed", range(12))
def test_chunked_count_equals_the_whole_text_count(seed: int) -> None:
    text = _generated_text(seed, 3_000)
    whole = tokens._encode_count(text)
    for chunk in (1, 7, 64, 1_000):
        assert tokens.count_tokens(text, chunk=chunk) == whole


@pytest.mark.parametrize("seed", range(6))
def test_count_of_pieces_equals_the_count_of_their_join(seed: int) -> None:
    # The prompt is counted from its pieces (goose_tui.pieces), cut anywhere: inside a word,
    # a run of spaces, a special token, between a character and its combining mark.
    import random

    rng = random.Random(seed)
    head = _generated_text(seed, 1_500)
    for tail in (SUMMARIZE_REQUEST, " tail", "s tail", "\n\nx", "<|endoftext|>", ""):
        text = head + tail
        cuts = sorted(rng.sample(range(len(text) + 1), 60))
        parts = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
        whole = tokens._encode_count(text)
        for chunk in (1, 5, 300):
            assert tokens.count_tokens(Pieces(parts), chunk=chunk) == whole
    assert tokens.count_tokens(Pieces(["   ", "x"]), chunk=1) == tokens._encode_count("   x")


# tracemalloc counts every thread of its process. In a test worker, other tests' threads
# (a background import of litellm that an app test started, a server's thread) allocate
# during the window: a fresh-clone CI run measured 7.2 MB against a bound of 5.7 MB so,
# where the count alone peaks at 4.3 MB. The peaks are measured in an interpreter of their
# own, which runs only the code measured, one measurement after the other. Its first count
# is made with every socket refused and no tokenizer cache: the encoder loads offline.
_PEAKS = """
import os, socket

def refuse(*args, **kwargs):
    raise OSError("network used")

socket.socket.connect = refuse
socket.create_connection = refuse
os.environ.pop("TIKTOKEN_CACHE_DIR", None)

import json, sys, tracemalloc
from goose_tui import tokens
from goose_tui.compaction.summarize import SUMMARIZE_REQUEST
from goose_tui.pieces import Pieces
from tests.core.test_tokens_memory import _generated_text

def peak_of(count):
    tracemalloc.start()
    try:
        counted = count()
        return counted, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()

def long_text():
    found = {}
    text = _generated_text(99, 40_000) * 8
    found["expected"], found["whole_peak"] = peak_of(lambda: tokens._encode_count(text))
    # Small chunks, so that the text is many more chunks than are in flight at once (two per
    # core): at the default size it is 9, all of them in flight on 5 cores or more.
    found["counted"], found["peak"] = peak_of(lambda: tokens.count_tokens(text, 1 << 14))
    return found

def prompt_and_request():
    found = {}
    head = (_generated_text(7, 40_000) + " \\U0001f600") * 5
    chunk = 1 << 14
    _, found["alone"] = peak_of(lambda: tokens.count_tokens(head, chunk))
    found["counted"], found["peak"] = peak_of(
        lambda: tokens.count_tokens(Pieces([head, SUMMARIZE_REQUEST]), chunk)
    )
    found["expected"] = tokens._encode_count(head + SUMMARIZE_REQUEST)
    found["head_size"] = sys.getsizeof(head)
    return found

offline = {"count": tokens.count_tokens("offline tokens, please")}
offline["litellm imported"] = "litellm" in sys.modules
print(json.dumps({
    "offline": offline, "long-text": long_text(), "prompt-and-request": prompt_and_request()
}))
"""


def _in_own_interpreter(script: str, *args: str) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=180,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    found: dict[str, Any] = json.loads(out.stdout)
    return found


@pytest.fixture(scope="module")
def peaks() -> dict[str, dict[str, int]]:
    """What ``_PEAKS`` found, by case."""
    return _in_own_interpreter(_PEAKS)


def test_the_tokenizer_loads_with_the_network_cut_off(peaks: dict[str, dict[str, int]]) -> None:
    # A fresh process, so the encoder really is loaded there, with every socket refused.
    assert peaks["offline"] == {
        "count": len(tokens.encoder().encode("offline tokens, please", allowed_special="all")),
        "litellm imported": False,
    }


def test_counting_a_long_text_never_holds_its_whole_token_list(
    peaks: dict[str, dict[str, int]],
) -> None:
    # 1.2M characters, ~0.5M tokens: as one Python list of ints that is ~18 MB.
    found = peaks["long-text"]
    peak, whole_peak = found["peak"], found["whole_peak"]
    assert found["counted"] == found["expected"]
    assert whole_peak > 15_000_000  # what the whole text's token list costs
    # A few chunks' token lists at a time (one per core in flight), never the whole list.
    assert peak < whole_peak / 2, f"peak {peak / 1e6:.1f} MB, whole list {whole_peak / 1e6:.1f} MB"


def test_counting_the_prompt_and_the_request_never_copies_the_prompt(
    peaks: dict[str, dict[str, int]],
) -> None:
    # The request is counted as the prompt's pieces and the request's text: a chunk at a
    # time, never a copy of the whole prompt (188 MB for the 53 MB session's).
    # Small chunks (1 << 14): the chunks' token lists in flight at once depend on the
    # threads' timing, and at the default size one list more (~2 MB) passed the margin on a
    # loaded machine. A copy of the prompt is 2.9 MB whatever the chunk size.
    found = peaks["prompt-and-request"]
    peak, alone = found["peak"], found["alone"]
    assert found["counted"] == found["expected"]
    assert peak < alone + found["head_size"] / 4, f"{peak / 1e6:.1f} MB, {alone / 1e6:.1f} MB"


def test_the_encoder_holds_no_python_copy_of_its_rank_map() -> None:
    # tiktoken's Encoding kept the 200,000-entry map it was built from (25 MB of Python
    # objects; its Rust core has its own copy) only to pickle itself.
    encoding = tokens.encoder()
    maps = {name: len(v) for name, v in vars(encoding).items() if isinstance(v, dict | list)}
    assert all(size < 1_000 for size in maps.values()), maps
    assert encoding.decode(encoding.encode("héllo 🙂")) == "héllo 🙂"
