"""Performance defects of issue 12 that have a behavioural test: work the pipeline must not do."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from goose_tui import tokens
from goose_tui.compaction.summarize import SUMMARIZE_REQUEST
from goose_tui.compaction.summarize import summarize as summarize_messages
from goose_tui.pieces import Pieces
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
def test_count_of_pieces_equals_the_count_of_their_join(seed: int) -> None:
    # The prompt is counted from its pieces (goose_tui.pieces), cut anywhere: inside a word,
    # a run of spaces, a special token, between a character and its combining mark.
    import random

    rng = random.Random(seed)
    head = _generated_text(seed, 3_000)
    for tail in (SUMMARIZE_REQUEST, " tail", "s tail", "\n\nx", "<|endoftext|>", ""):
        text = head + tail
        cuts = sorted(rng.sample(range(len(text) + 1), 60))
        parts = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
        for chunk in (1, 5, 300):
            assert tokens.count_tokens(Pieces(parts), chunk=chunk) == tokens._encode_count(text)
    assert tokens.count_tokens(Pieces(["   ", "x"]), chunk=1) == tokens._encode_count("   x")


# tracemalloc counts every thread of its process. In a test worker, other tests' threads
# (a background import of litellm that an app test started, a server's thread) allocate
# during the window: a fresh-clone CI run measured 7.2 MB against a bound of 5.7 MB so,
# where the count alone peaks at 4.3 MB. Each peak is measured in an interpreter of its
# own, which runs only the code measured.
_PEAKS = """
import json, sys, tracemalloc
from goose_tui import tokens
from goose_tui.compaction.summarize import SUMMARIZE_REQUEST
from goose_tui.pieces import Pieces
from tests.test_perf_core import _generated_text

def peak_of(count):
    tracemalloc.start()
    try:
        counted = count()
        return counted, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()

tokens.encoder()
found = {}
if sys.argv[1] == "long-text":
    text = _generated_text(99, 40_000) * 15
    found["expected"], found["whole_peak"] = peak_of(lambda: tokens._encode_count(text))
    # Small chunks, so that the text is many more chunks than are in flight at once (two per
    # core): at the default size it is 9, all of them in flight on 5 cores or more.
    found["counted"], found["peak"] = peak_of(lambda: tokens.count_tokens(text, 1 << 14))
else:
    head = (_generated_text(7, 40_000) + " \\U0001f600") * 10
    chunk = 1 << 14
    _, found["alone"] = peak_of(lambda: tokens.count_tokens(head, chunk))
    found["counted"], found["peak"] = peak_of(
        lambda: tokens.count_tokens(Pieces([head, SUMMARIZE_REQUEST]), chunk)
    )
    found["expected"] = tokens._encode_count(head + SUMMARIZE_REQUEST)
    found["head_size"] = sys.getsizeof(head)
print(json.dumps(found))
"""


def _in_own_interpreter(script: str, *args: str) -> dict[str, int]:
    out = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=180,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    found: dict[str, int] = json.loads(out.stdout)
    return found


def test_counting_a_long_text_never_holds_its_whole_token_list() -> None:
    # 2.2M characters, ~0.6M tokens: as one Python list of ints that is ~33 MB.
    found = _in_own_interpreter(_PEAKS, "long-text")
    peak, whole_peak = found["peak"], found["whole_peak"]
    assert found["counted"] == found["expected"]
    assert whole_peak > 25_000_000  # what the whole text's token list costs
    # A few chunks' token lists at a time (one per core in flight), never the whole list.
    assert peak < whole_peak / 2, f"peak {peak / 1e6:.1f} MB, whole list {whole_peak / 1e6:.1f} MB"


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
    assert len(text) < 1_000 and str(result) == text
    assert text.startswith("CompactionResult(model=") and "chars>" in text
    # The request too: Textual describes a worker by the repr of its arguments.
    assert len(repr(result.request)) < 100 and len(str(result.request)) < 100


async def test_the_request_goes_out_and_streams_while_the_prompt_is_counted(monkeypatch) -> None:
    # Counting a big prompt takes seconds: neither the request nor its reply's chunks wait
    # for it (the app shows them as they come), and the attempt is reported first.
    import threading
    import time

    from goose_tui.compaction import summarize as pipeline
    from goose_tui.compaction.templates import load_templates
    from goose_tui.llm.base import Completion, TokenUsage
    from goose_tui.session.models import Message

    counted = threading.Event()
    real_count = pipeline.request_tokens

    def slow_count(request):  # stands in for seconds of tiktoken on a 47 MB prompt
        time.sleep(0.3)
        value = real_count(request)
        events.append("counted")
        counted.set()
        return value

    monkeypatch.setattr(pipeline, "request_tokens", slow_count)
    events: list[str] = []

    class Streaming:
        name = "streaming"

        async def complete(self, messages, on_chunk=None):
            events.append("request " + ("after" if counted.is_set() else "before") + " count")
            for part in ("<analysis>a</analysis>", '{"user_intent": ["x"]}'):
                on_chunk(part + (" after count" if counted.is_set() else " before count"))
            return Completion(text='{"user_intent": ["x"]}', usage=TokenUsage())

    messages = [Message(role="user", content=[{"type": "text", "text": "hello there"}])]
    result = await summarize_messages(
        messages,
        Streaming(),
        load_templates(None),
        on_attempt=lambda a: events.append(f"attempt {a.outcome} {a.tokens_sent}"),
        on_chunk=lambda c: events.append("chunk " + c.rpartition(" count")[0].split()[-1]),
        estimate_tokens=True,
    )
    tokens = real_count(result.request)
    assert events == [
        "attempt running None",
        "request before count",
        "chunk before",
        "chunk before",
        "counted",
        f"attempt running {tokens}",
        f"attempt ok {tokens}",
    ]
    assert result.attempts[0].tokens_sent == tokens


def test_what_a_load_builds_is_kept_out_of_full_collections_until_the_next_load() -> None:
    # With a 53 MB session loaded, each full collection walked its ~million objects: pauses
    # of 200-250 ms of the app's event loop, six in one compaction (app_big_session.py).
    import gc
    import weakref

    from goose_tui.gc_pause import kept_out_of_collections

    class Node:
        def __init__(self) -> None:
            self.me = self  # a cycle: only the collector frees it

    freed: list[bool] = []
    try:
        with kept_out_of_collections():
            loaded = [Node() for _ in range(3)]
        probe = loaded[0]
        assert not any(obj is probe for obj in gc.get_objects())  # not walked
        watch = weakref.ref(probe, lambda _: freed.append(True))
        del loaded, probe
        gc.collect()
        assert watch() is not None and not freed  # garbage, but out of the collector's reach
        with kept_out_of_collections():  # the next load frees it first
            assert freed == [True]
    finally:
        gc.unfreeze()


def test_a_load_with_nothing_kept_out_runs_no_full_collection(monkeypatch) -> None:
    # The app's first load had a 37 ms full collection of Textual's and pydantic's objects on
    # its first-screen path, with nothing of an earlier session to free.
    import gc

    from goose_tui import gc_pause

    calls: list[tuple[object, ...]] = []
    real_collect = gc.collect
    monkeypatch.setattr(gc_pause.gc, "collect", lambda *a: calls.append(a) or real_collect(*a))
    gc.unfreeze()
    try:
        with gc_pause.kept_out_of_collections():
            pass
        assert calls == []  # nothing was kept out: the collector frees as usual
        with gc_pause.kept_out_of_collections():
            pass
        assert len(calls) == 1  # what the first load kept out is collected once
    finally:
        gc.unfreeze()


def test_no_collection_walks_what_a_load_built_before_it_is_kept_out() -> None:
    # The collector came back (a loader's own pause ending) before the load's objects were
    # kept out, and its first collection walked all of them: 140-280 ms of the app's loop at
    # the end of each load of the 53 MB session (app_big_session.py --why).
    import gc

    from goose_tui.gc_pause import kept_out_of_collections, paused_gc

    collections: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    gc.unfreeze()
    gc.collect()
    gc.callbacks.append(seen)
    try:
        with kept_out_of_collections():
            with paused_gc():  # as the JSONL loader pauses it
                loaded = [[n] for n in range(300_000)]  # containers the collector tracks
            more = [[n] for n in range(3_000)]  # what a loader builds after its own pause
        assert collections == []
        assert not any(obj is loaded[0] or obj is more[0] for obj in gc.get_objects())
    finally:
        gc.callbacks.remove(seen)
        gc.unfreeze()


PROMPT_PEAK = """
import json, sys, tracemalloc
from goose_tui.compaction.summarize import build_request
from goose_tui.compaction.templates import load_templates
from goose_tui.session.models import Message

profile = sys.argv[1]
# Many messages of session text, one emoji: the prompt is 4 bytes a character.
messages = [
    Message(role="user" if i % 2 else "assistant", content=[{"type": "text", "text": t}])
    for i, t in enumerate([f"message {n} " + "words and more words " * 200 for n in range(400)])
]
messages[0].content[0]["text"] += " \\U0001f600"
templates = load_templates(None)
build_request(messages[:2], templates, profile=profile)  # compiled, imported
tracemalloc.start()
request = build_request(messages, templates, profile=profile)
peak = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
texts = {id(m.content[0]["text"]) for m in messages}
print(json.dumps({
    "peak": peak,
    "prompt": sys.getsizeof(request.system_prompt),  # joined here, once measured
    "own_parts": sum(id(part) in texts for part in request.prompt.parts),
    "messages": len(messages),
}))
"""


@pytest.mark.parametrize("profile", ["goose-sdk-wheel", "goose-pr-11845"])
def test_the_prompt_is_the_conversations_own_strings(profile: str) -> None:
    """The prompt is the pieces of its text (goose_tui.pieces): the session's own strings,
    never joined. Joining the conversation and then the prompt around it held two copies
    at once (188 MB more at the peak for the 53 MB session, and the GIL for each join);
    one join still made one copy, and held the GIL ~0.1 s.

    Measured in an interpreter of its own (_PEAKS): in a test worker another test's threads
    allocated 0.1-0.4 MB during the window (two fresh-clone runs failed so)."""
    from goose_tui.compaction.profiles import PROFILES

    assert profile in PROFILES
    found = _in_own_interpreter(PROMPT_PEAK, profile)
    peak, prompt = found["peak"], found["prompt"]
    assert prompt > 6_000_000
    if profile == "goose-pr-11845":
        # That version writes each message as JSON: one new (1-byte) string per message
        # (0.26x the prompt here). A copy of the prompt would be 1x.
        assert peak < prompt * 0.3, f"peak {peak / 1e6:.1f} MB, prompt {prompt / 1e6:.1f} MB"
        return
    assert peak < prompt * 0.02, f"peak {peak / 1e6:.1f} MB for a {prompt / 1e6:.1f} MB prompt"
    assert found["own_parts"] == found["messages"]


def test_counting_the_prompt_and_the_request_never_copies_the_prompt() -> None:
    # The request is counted as the prompt's pieces and the request's text: a chunk at a
    # time, never a copy of the whole prompt (188 MB for the 53 MB session's).
    # Small chunks (1 << 14): the chunks' token lists in flight at once depend on the
    # threads' timing, and at the default size one list more (~2 MB) passed the margin on a
    # loaded machine (a fresh-clone run: 15.2 MB against 11.6 MB). A copy of the prompt is
    # 5.8 MB whatever the chunk size.
    found = _in_own_interpreter(_PEAKS, "prompt-and-request")
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


def test_the_collector_stays_paused_until_the_last_of_two_overlapping_pauses_ends() -> None:
    # litellm's import pauses the collector in one thread (0.55 s of a 2.5 s import went to
    # collections walking what it builds) while the CLI's main thread loads the session,
    # which pauses it too. The first pause to end must not bring it back under the other.
    import gc
    import threading

    from goose_tui import gc_pause
    from goose_tui.gc_pause import paused_gc

    # Another test of this worker may have left litellm importing in a thread, under a pause
    # of its own (a run where this test came right after one found the collector off).
    deadline = time.monotonic() + 120
    while gc_pause._pauses and time.monotonic() < deadline:
        time.sleep(0.01)
    assert gc.isenabled()
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen: list[bool] = []

    def first() -> None:
        with paused_gc():
            first_in.set()
            second_in.wait(5)
        first_out.set()

    thread = threading.Thread(target=first)
    thread.start()
    first_in.wait(5)
    with paused_gc():
        second_in.set()
        first_out.wait(5)
        seen.append(gc.isenabled())  # the first pause has ended, this one has not
    thread.join(5)
    assert seen == [False]
    assert gc.isenabled()


def test_the_litellm_worker_imports_litellm_without_collections_and_keeps_it_out_of_them() -> None:
    # In a fresh interpreter, as the worker process imports it (the CLI's --model runs and
    # the app's litellm calls go through it): no collection runs while litellm's module
    # executes (882 did, each walking everything built so far: 0.45-0.55 s of 2.5 s), and
    # what the import built is then out of the collector's walks (the first call's 66
    # collections walked it all: 0.45 s of 0.65 s). The collector is back afterwards.
    script = (
        "import gc, sys\n"
        "runs = []\n"
        "def importing():  # litellm's module is in sys.modules, still being executed\n"
        "    spec = getattr(sys.modules.get('litellm'), '__spec__', None)\n"
        "    return getattr(spec, '_initializing', False)\n"
        "gc.callbacks.append(lambda phase, info: phase == 'start' and runs.append(importing()))\n"
        "from goose_tui.llm.litellm_worker import load_client\n"
        "load_client()\n"
        "gc.collect()  # one the probe must see\n"
        "litellm = sys.modules['litellm']\n"
        "walked = any(o is vars(litellm) for o in gc.get_objects())\n"
        "print(sum(runs), len(runs) > 0, gc.isenabled(), walked)\n"
    )
    assert printed_by(script) == ["0", "True", "True", "False"]


def printed_by(script: str) -> list[str]:
    """The words ``script`` prints, run in a fresh interpreter."""
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    return out.stdout.split()
