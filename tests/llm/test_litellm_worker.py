"""Issue 12: the app calls litellm from a worker process (goose_tui/llm/litellm_worker.py),
because litellm's client held the app's GIL for long C calls (the request body's json.dumps:
0.6 s on the event loop for the 53 MB session; docs/performance.md, run 7). Real workers,
the real litellm client, against the loopback server."""

from __future__ import annotations

import asyncio
import io
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from goose_tui.llm import litellm_worker
from goose_tui.llm.base import ChatMessage, ContextLengthExceeded, ModelError, TokenUsage
from goose_tui.llm.litellm_worker import WorkerLiteLLMSummarizer
from goose_tui.llm.spec import ModelSpec
from goose_tui.pieces import Pieces
from tests.conftest import LITELLM_GROUP, own_litellm_worker
from tests.loopback import LoopbackServer, Reply

# On one xdist worker with the other tests that call litellm in this process or through its
# shared worker (tests/conftest.py, LITELLM_GROUP): litellm's import, 3-8 s of CPU, is paid
# once, not once per worker.
pytestmark = pytest.mark.xdist_group(LITELLM_GROUP)

SECRET = "sk-secret-worker-9d2c4e1a7b3f60"
MODEL = "openai/gpt-4o-mini"


@pytest.fixture(autouse=True)
def _secret_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)  # the worker inherits the environment


@pytest.fixture
def own_workers() -> Iterator[None]:
    """A worker of this test's own (one that starts its own kind of worker)."""
    with own_litellm_worker():
        yield


def summarizer(server: LoopbackServer, **kwargs: object) -> WorkerLiteLLMSummarizer:
    spec = ModelSpec.parse(MODEL, api_base=f"{server.url}/v1", in_worker_process=True)
    made = spec.summarizer(**kwargs)  # type: ignore[arg-type]
    assert isinstance(made, WorkerLiteLLMSummarizer)
    return made


def worker_pid() -> int:
    worker = litellm_worker._worker
    assert worker is not None
    return worker.process.pid


def test_frames_carry_any_text_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    # Small slices, so texts cross several frames; a lone surrogate (a hostile session's
    # "\ud800" escape) and characters of every UTF-8 length travel unchanged.
    monkeypatch.setattr(litellm_worker, "SLICE_CHARS", 3)
    texts = ["", "a", "ascii only text", "é中🙂" * 5, "lone \ud800 and \udfff pair \ud83d\ude42"]
    # The prompt comes as its pieces (goose_tui.pieces), empty ones and a cut pair too.
    pieces = Pieces(["[user]: ", "", "é中🙂" * 3, "x", "pair \ud83d", "\ude42 end", ""])
    texts.append(str(pieces))
    messages = [ChatMessage(role="user", content=t) for t in [*texts[:-1], pieces]]
    pipe = io.BytesIO()
    worker = object.__new__(litellm_worker.Worker)
    worker.process = type("P", (), {"stdin": pipe})()  # type: ignore[assignment]
    worker._write = threading.Lock()
    worker.send(7, {"model": MODEL}, messages)
    worker.cancel(7)
    pipe.seek(0)
    request = litellm_worker._read_message(pipe)
    assert isinstance(request, tuple)
    call, config, received = request
    assert (call, config) == (7, {"model": MODEL})
    assert [m.content for m in received] == texts
    assert litellm_worker._read_message(pipe) == 7  # the cancel
    assert litellm_worker._read_message(pipe) is None  # end of input: the worker stops


async def test_a_streamed_reply_comes_back_from_the_worker() -> None:
    reply = "<analysis>x</analysis> and then a streamed answer, wörld 🙂"
    prompt = [
        # Several frames, from pieces as the pipeline's prompt comes (goose_tui.pieces).
        ChatMessage(role="system", content=Pieces(["sys é 中 🙂 " * 100_000, "", "é 中 " * 9])),
        ChatMessage(role="user", content="go"),
    ]
    chunks: list[str] = []
    with LoopbackServer([Reply.sse(reply, chunk_size=5)]) as server:
        completion = await summarizer(server).complete(prompt, on_chunk=chunks.append)
    assert completion.text == reply and "".join(chunks) == reply
    assert completion.usage == TokenUsage(input_tokens=11, output_tokens=7, total_tokens=18)
    sent = server.requests[0].body["messages"]
    assert sent == [m.model_dump() for m in prompt]
    assert server.requests[0].body["stream"] is True


async def test_model_errors_come_back_as_the_pipelines_errors_and_the_worker_stays() -> None:
    prompt = [ChatMessage(role="user", content="hi")]
    script = [Reply.context_length_exceeded(), Reply.server_error(), Reply.ok("fine")]
    with LoopbackServer(script) as server:
        model = summarizer(server)
        with pytest.raises(ContextLengthExceeded, match="context length exceeded"):
            await model.complete(prompt)
        pid = worker_pid()
        with pytest.raises(ModelError, match="500") as error:
            await model.complete(prompt)
        assert SECRET not in str(error.value)
        assert (await model.complete(prompt)).text == "fine"
    assert worker_pid() == pid  # the same worker served all three


async def test_a_cancelled_call_stops_in_the_worker_which_serves_the_next_call() -> None:
    prompt = [ChatMessage(role="user", content="hi")]
    with LoopbackServer([Reply.stream_then_hang("first words "), Reply.ok("again")]) as server:
        model = summarizer(server)
        chunks: list[str] = []
        call = asyncio.ensure_future(model.complete(prompt, on_chunk=chunks.append))
        for _ in range(600):
            if chunks:
                break
            await asyncio.sleep(0.05)
        assert "".join(chunks) == "first words "
        pid = worker_pid()
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        assert (await model.complete(prompt)).text == "again"
    assert worker_pid() == pid  # no second import of litellm


async def test_concurrent_calls_share_one_worker() -> None:
    # The probes tab asks four questions at a time: one worker (one import of litellm,
    # ~300 MB) serves them all, each reply to its own call.
    def answer(body: dict[str, object]) -> Reply:
        messages = body["messages"]
        assert isinstance(messages, list)
        return Reply.sse(f"answer to {messages[0]['content']}", chunk_size=3)

    with LoopbackServer(responder=answer) as server:
        model = summarizer(server)
        questions = [f"question {n}" for n in range(4)]
        replies = await asyncio.gather(
            *(model.complete([ChatMessage(role="user", content=q)]) for q in questions)
        )
        assert [r.text for r in replies] == [f"answer to {q}" for q in questions]
        assert len(server.requests) == 4


async def test_a_worker_that_dies_is_a_model_error_naming_why(
    own_workers: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    crash = "import sys; print('litellm could not start: no module', file=sys.stderr); sys.exit(3)"
    monkeypatch.setattr(litellm_worker, "WORKER_COMMAND", [sys.executable, "-c", crash])
    with LoopbackServer([Reply.ok("never")]) as server:
        model = summarizer(server)
        with pytest.raises(ModelError) as error:
            await model.complete([ChatMessage(role="user", content="hi")])
        assert not server.requests
    message = str(error.value)
    assert message.startswith(f"{MODEL}: the worker process calling the model exited (3)")
    assert message.endswith("litellm could not start: no module")
    assert not litellm_worker.ready()


def test_a_spec_keeps_its_worker_when_another_model_is_typed() -> None:
    spec = ModelSpec.parse(MODEL, api_base="http://127.0.0.1:9/v1", in_worker_process=True)
    assert spec.with_text("openai/other").in_worker_process
    assert ModelSpec.parse(MODEL).in_worker_process is False
    assert ModelSpec.parse("offline", in_worker_process=True).client_ready()


@pytest.mark.parametrize("app", [True, False])
def test_the_apps_worker_runs_below_its_priority_and_the_clis_at_its_own(
    own_workers: None, monkeypatch: pytest.MonkeyPatch, app: bool
) -> None:
    # The app's frames come first on a machine of two cores (the import and a big body's
    # encoding are seconds of CPU); the CLI has no frames and waits for its worker, which a
    # lower priority would only slow on a busy machine.
    import os
    import time

    monkeypatch.setattr(litellm_worker, "niceness", 0)  # as the CLI leaves it
    if app:
        from goose_tui.tui.app import GooseTUI

        GooseTUI(model="offline")  # the app sets its workers' priority
    litellm_worker.prepare()
    pid = worker_pid()
    # The worker sets its priority first thing, then starts its first thread (the one that
    # watches for its parent): once that thread runs, the priority is final. No litellm
    # import is waited for.
    deadline = time.monotonic() + 30
    while len(os.listdir(f"/proc/{pid}/task")) < 2:
        assert time.monotonic() < deadline, "the worker never started its first thread"
        time.sleep(0.01)
    lowered = litellm_worker.WORKER_NICENESS if app else 0
    mine = os.getpriority(os.PRIO_PROCESS, 0)
    assert os.getpriority(os.PRIO_PROCESS, pid) == min(mine + lowered, 19)


async def test_cancelling_while_the_request_is_still_being_written_returns_at_once(
    own_workers: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A worker that never reads: the prompt (far more than a pipe holds) blocks its writer
    # thread. Cancelling must not wait for that write; the next call, finding the worker
    # answering nothing, fails after its timeout, and a fresh worker is started.
    monkeypatch.setattr(
        litellm_worker, "WORKER_COMMAND", [sys.executable, "-c", "import time; time.sleep(120)"]
    )
    monkeypatch.setattr(litellm_worker, "GRACE_SECONDS", 0.5)
    with LoopbackServer([Reply.ok("never")]) as server:
        model = summarizer(server, timeout=0.5)
        prompt = [ChatMessage(role="system", content="x" * 4_000_000)]
        call = asyncio.ensure_future(model.complete(prompt))
        await asyncio.sleep(0.5)
        stuck = litellm_worker._worker
        assert stuck is not None
        cancelled_at = time.monotonic()
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        # Not a speed figure: a wait for the write would last the worker's 120 s sleep.
        assert time.monotonic() - cancelled_at < 60
        with pytest.raises(ModelError, match="no answer within 1 s"):
            await model.complete([ChatMessage(role="user", content="hi")])
        assert stuck.process.wait(timeout=10) is not None
        assert litellm_worker._worker is not stuck


# The worker the app starts, run through a wrapper that looks at its collector: whether a
# collection ran while litellm's module executed, whether the collector is back on, and whether
# a collection after the import still walks litellm's objects. It writes what it saw to a file
# (its stdout is the protocol's) and then serves as the real worker.
WORKER_LOOKING_AT_ITS_COLLECTOR = r"""
import gc, sys
runs = []
def importing():  # litellm's module is in sys.modules, still being executed
    spec = getattr(sys.modules.get('litellm'), '__spec__', None)
    return getattr(spec, '_initializing', False)
gc.callbacks.append(lambda phase, info: phase == 'start' and runs.append(importing()))
from goose_tui.llm import litellm_worker
load_client = litellm_worker.load_client

def load_and_look():
    load_client()
    gc.collect()  # one the probe must see
    litellm = sys.modules['litellm']
    walked = any(o is vars(litellm) for o in gc.get_objects())
    with open(sys.argv[1], 'w') as seen:
        seen.write(f'{sum(runs)} {len(runs) > 0} {gc.isenabled()} {walked}')

litellm_worker.load_client = load_and_look
litellm_worker.main()
"""

APP = r"""
import asyncio, sys
from goose_tui.llm import litellm_worker
from goose_tui.llm.base import ChatMessage
from goose_tui.llm.spec import ModelSpec

async def main():
    litellm_worker.WORKER_COMMAND = [sys.executable, "-c", sys.argv[2], sys.argv[3]]
    spec = ModelSpec.parse("openai/gpt-4o-mini", api_base=sys.argv[1], in_worker_process=True)
    prompt = [ChatMessage(role="user", content="hi")]
    call = asyncio.ensure_future(spec.summarizer().complete(prompt))
    print(litellm_worker._worker.process.pid, flush=True)
    await call

asyncio.run(main())
"""


def test_a_worker_imports_litellm_without_collections_and_ends_soon_after_its_app_is_killed(
    tmp_path: Path,
) -> None:
    # One real app process and its real worker, for two facts of the worker (each a fresh
    # interpreter that imports litellm). `kill -9` of the app while a request is in flight
    # must not leave the worker running for the request's whole timeout, still talking to
    # the model. And the worker imports litellm with the collector paused (each collection
    # during the import walks everything built so far), then keeps what the import built out
    # of later collections (the first call's collections walked it all), the collector back on.
    import os
    import signal
    import subprocess

    from tests.conftest import ROOT

    seen = tmp_path / "collector.txt"
    with LoopbackServer([Reply.hang()]) as server:
        app = subprocess.Popen(
            [
                sys.executable,
                "-c",
                APP,
                f"{server.url}/v1",
                WORKER_LOOKING_AT_ITS_COLLECTOR,
                str(seen),
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert app.stdout is not None
        pid = int(app.stdout.readline())
        for _ in range(600):  # the request reached the server: the worker is mid-request
            if server.requests:
                break
            time.sleep(0.05)
        assert server.requests
        app.send_signal(signal.SIGKILL)
        app.wait(timeout=10)
        deadline = time.monotonic() + 30  # a bound for a hang, not a speed figure
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            # Reaped by init once it exits; until then a zombie still answers signal 0.
            if _state(pid) == "Z":
                break
            time.sleep(0.1)
        else:
            raise AssertionError("the worker outlived its app by 30 s")
    # No collection while litellm's module ran; some ran since; the collector is on; and a
    # collection after the import no longer walks litellm's module.
    assert seen.read_text().split() == ["0", "True", "True", "False"]


def _state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return "gone"
