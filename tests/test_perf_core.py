"""Performance defects of issue 12 that have a behavioural test: work the pipeline must not do."""

from __future__ import annotations

import json
import subprocess
import sys
import tracemalloc

import pytest

from goose_tui import tokens
from goose_tui.compaction.summarize import SUMMARIZE_REQUEST
from goose_tui.compaction.summarize import summarize as summarize_messages
from tests.conftest import ROOT

# A child process, so the main thread has Python's default SIGINT handler (what a terminal
# run has; pytest-xdist workers and background shells may not), which is the case in which
# asyncio.Runner (Python 3.11) formats repr(task), and with it repr(result).
_REPR_PROBE = """
import json, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)
from goose_tui.cli import run_compaction

calls = []

class Result:
    def __repr__(self):
        calls.append(1)
        return "Result()"

async def compaction():
    return Result()

result = run_compaction(compaction())
print(json.dumps({"type": type(result).__name__, "repr_calls": len(calls)}))
"""


def test_run_compaction_returns_the_result_without_formatting_it() -> None:
    # The CompactionResult of a 20k-message session has an 81M-character repr: building it
    # (twice) was half of a terminal `compact` run.
    out = subprocess.run(
        [sys.executable, "-c", _REPR_PROBE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert json.loads(out.stdout) == {"type": "Result", "repr_calls": 0}


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
    text = _generated_text(seed, 6_000)
    whole = tokens._encode_count(text)
    for chunk in (1, 7, 64, 1_000):
        assert tokens.count_tokens(text, chunk=chunk) == whole


@pytest.mark.parametrize("seed", range(6))
def test_joined_count_equals_the_count_of_the_concatenation(seed: int) -> None:
    head = _generated_text(seed, 3_000)
    for tail in (SUMMARIZE_REQUEST, " tail", "s tail", "\n\nx", "<|endoftext|>", ""):
        for chunk in (5, 300):
            assert tokens.count_tokens_joined(head, tail, chunk=chunk) == tokens._encode_count(
                head + tail
            )
    assert tokens.count_tokens_joined("   ", "x", chunk=1) == tokens._encode_count("   x")


def test_counting_a_long_text_never_holds_its_whole_token_list() -> None:
    # 2.2M characters, ~0.6M tokens: as one Python list of ints that is ~33 MB.
    text = _generated_text(99, 40_000) * 15
    expected = tokens._encode_count(text)
    tracemalloc.start()
    try:
        counted = tokens.count_tokens(text)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert counted == expected
    assert peak < 12_000_000, f"peak {peak / 1e6:.1f} MB while counting"


def test_a_compaction_result_repr_stays_short_on_a_big_prompt() -> None:
    # What asyncio.run() formats (twice) when a user's own script compacts a big session.
    import asyncio

    from goose_tui.compaction.templates import load_templates
    from goose_tui.llm.replay import ReplaySummarizer
    from goose_tui.session.models import Message

    big = "word " * 400_000
    messages = [Message(role="user", content=[{"type": "text", "text": big}])]
    reply = ROOT / "tests" / "tui" / "data" / "reply.md"
    result = asyncio.run(
        summarize_messages(messages, ReplaySummarizer(str(reply)), load_templates(None))
    )
    assert len(result.request.system_prompt) > len(big)
    text = repr(result)
    assert len(text) < 1_000
    assert text.startswith("CompactionResult(model=") and "chars>" in text
