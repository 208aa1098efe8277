"""Work the pipeline must not do: format a result it returns, copy the prompt, or wait for
its count before the request goes out."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from goose_tui.compaction.summarize import summarize as summarize_messages
from tests.conftest import ROOT
from tests.core.test_tokens_memory import _in_own_interpreter

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
