"""litellm called from a worker process, for the app and the CLI.

In the app's own process litellm's client would stall the screen: it encodes the request
body with one ``json.dumps`` of the whole prompt, holding the GIL on the event loop, and its
import (seconds) competes for the GIL with every frame. A thread cannot give the GIL back
inside one C call; another process can. So the app sends each litellm request to a worker
process (``python -m goose_tui.llm.litellm_worker``) that has imported litellm, and reads the
reply back as events. The CLI does the same for another reason: the import then runs on
another core while the session loads and the prompt is built, instead of taking turns with
them for the GIL. The worker runs the same ``LiteLLMSummarizer`` a Python caller runs in its
own process, so errors, timeouts, the reply cap and secret scrubbing are those of one
implementation.

One worker serves every call of the app, several at once (the probes tab asks four
questions at a time: four workers would import litellm, and hold its memory, four times). The
pipes
carry:
- to the worker: per request, one JSON line ``{"id": n, "config": ..., "roles": [...]}``,
  then each message's text as frames ``<n>\\n<n bytes of UTF-8>`` ended by ``0\\n``
  (encoded a slice at a time, so the app's thread never holds the GIL for the whole
  prompt; ``surrogatepass`` keeps a lone surrogate of a hostile session as it is); one
  request's frames at a time; ``{"cancel": n}`` to stop one;
- from the worker: ``{"ready": true}`` once litellm is imported, then per request
  ``{"id": n, "chunk": s}`` (pieces gathered for up to 50 ms), then ``{"id": n, "done":
  completion}`` or ``{"id": n, "error": "context_length" | "unknown_model" | "model", "message":
  s}``.

The worker is started when a litellm model is chosen (``prepare``). A worker that exits or
stops answering is killed, its calls fail with a ``ModelError`` saying why, and a fresh one
is started for the next call. It ends with its input, or as soon as the app is gone.
"""

from __future__ import annotations

import asyncio
import atexit
import gc
import itertools
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from typing import IO, Any

from goose_tui.llm.base import (
    ChatMessage,
    Completion,
    ContextLengthExceeded,
    ModelError,
    OnChunk,
    UnknownModel,
)
from goose_tui.llm.litellm_backend import LiteLLMSummarizer
from goose_tui.pieces import Text, read_frames, write_frames

# How the app starts a worker; a module attribute so a test can start it through a wrapper.
WORKER_COMMAND = [sys.executable, "-m", "goose_tui.llm.litellm_worker"]
SLICE_CHARS = 1 << 20  # a frame small enough that encoding it never holds the GIL for long
CHUNK_FLUSH_SECONDS = 0.05
# Beyond the request's own timeout (which the worker enforces): for a worker that hangs.
GRACE_SECONDS = 30.0
_STDERR_TAIL = 2_000
# The app's screen comes first (GooseTUI sets ``niceness`` to this): the import and the
# encoding of a big request body are whole seconds of CPU, which on a machine of two cores the
# app's frames waited behind. The CLI has no screen and waits for its worker: same priority.
WORKER_NICENESS = 10
niceness = 0
_NICENESS_ENV = "GOOSE_TUI_WORKER_NICENESS"
PARENT_POLL_SECONDS = 0.5

Event = dict[str, Any]
# An error event's kind, and what the call raises for it.
_ERRORS: dict[str, type[Exception]] = {
    "context_length": ContextLengthExceeded,
    "unknown_model": UnknownModel,
}


class Worker:
    """One worker process, the thread that reads its events, and the calls waiting on it."""

    def __init__(self) -> None:
        self._stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            WORKER_COMMAND,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env={**os.environ, _NICENESS_ENV: str(niceness)},
        )
        self.ready = threading.Event()
        self._lock = threading.Lock()
        self._sinks: dict[int, Callable[[Event], None]] = {}
        self._ids = itertools.count()
        self._exit: int | None = None  # the exit status, once the reader saw the end
        self._write = threading.Lock()  # one request's frames at a time
        threading.Thread(target=self._read, name="goose-tui-litellm-worker", daemon=True).start()

    def alive(self) -> bool:
        return self.process.poll() is None

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                continue  # not ours (the worker sends only JSON lines)
            if event.get("ready"):
                self.ready.set()
                continue
            with self._lock:
                sink = self._sinks.get(event.get("id", -1))
            if sink is not None:
                sink(event)
        code = self.process.wait()
        with self._lock:
            self._exit = code
            sinks = list(self._sinks.values())
        for sink in sinks:
            sink({"exit": code})

    def open(self, sink: Callable[[Event], None]) -> int:
        """A new call whose events go to ``sink``; its id."""
        with self._lock:
            call = next(self._ids)
            self._sinks[call] = sink
            ended = self._exit
        if ended is not None:
            sink({"exit": ended})
        return call

    def close_call(self, call: int) -> None:
        with self._lock:
            self._sinks.pop(call, None)

    def send(self, call: int, config: dict[str, Any], messages: list[ChatMessage]) -> None:
        """Write one request (blocking: run it in a thread)."""
        head = {"id": call, "config": config, "roles": [m.role for m in messages]}
        self._send(head, [m.content for m in messages])

    def cancel(self, call: int) -> None:
        """Stop one call (blocking: run it in a thread; after its request is written)."""
        self._send({"cancel": call})

    def _send(self, head: dict[str, Any], texts: Sequence[Text] = ()) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        with self._write:
            stdin.write(json.dumps(head).encode() + b"\n")
            for text in texts:
                write_frames(stdin, text, SLICE_CHARS)
            stdin.flush()

    def stderr_tail(self) -> str:
        self._stderr.seek(0, os.SEEK_END)
        size = self._stderr.tell()
        self._stderr.seek(max(size - _STDERR_TAIL, 0))
        return self._stderr.read().decode("utf-8", "replace").strip()

    def close(self) -> None:
        """End the worker (its HTTP requests, if any, die with it)."""
        # Killed before its input is closed: a thread may be blocked writing a request to a
        # full pipe, and closing the pipe would wait for that write.
        if self.alive():
            self.process.kill()
        if self.process.stdin is not None:
            try:
                self.process.stdin.close()
            except (OSError, ValueError):
                pass


def _in_thread(loop: asyncio.AbstractEventLoop, work: Callable[[], None]) -> asyncio.Future[None]:
    """``work`` in a daemon thread of its own, not the loop's executor: a write to a worker
    that stopped reading never returns, and must not hold one of the app's shared threads."""
    done: asyncio.Future[None] = loop.create_future()

    def settle(error: BaseException | None) -> None:
        if done.done():
            return
        if error is None:
            done.set_result(None)
        else:
            done.set_exception(error)

    def run() -> None:
        error: BaseException | None = None
        try:
            work()
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting call
            error = exc
        try:
            loop.call_soon_threadsafe(settle, error)
        except RuntimeError:
            pass  # the loop is closed: nobody waits for it any more

    threading.Thread(target=run, name="goose-tui-litellm-send", daemon=True).start()
    return done


# -- the one worker ----------------------------------------------------------------------------

_pool_lock = threading.Lock()
_worker: Worker | None = None


def prepare() -> None:
    """Start the worker (litellm imports in it) unless it runs; returns at once."""
    _current()


def _current() -> Worker:
    global _worker
    with _pool_lock:
        if _worker is None or not _worker.alive():
            _worker = Worker()
        return _worker


def ready() -> bool:
    """Whether the worker has imported litellm (a call will not wait for the import)."""
    with _pool_lock:
        worker = _worker
    return worker is not None and worker.ready.is_set() and worker.alive()


def _retire(worker: Worker) -> None:
    """Kill a worker that broke and start another for the next call."""
    global _worker
    with _pool_lock:
        if _worker is worker:
            _worker = None
    worker.close()
    prepare()  # the next call should not wait for litellm's import again


@atexit.register
def _close_all() -> None:
    global _worker
    with _pool_lock:
        worker, _worker = _worker, None
    if worker is not None:
        worker.close()


class WorkerLiteLLMSummarizer(LiteLLMSummarizer):
    """``LiteLLMSummarizer`` with the same arguments, run in the worker process."""

    def prepare(self) -> None:
        prepare()

    @property
    def config(self) -> dict[str, Any]:
        """The arguments the worker builds its ``LiteLLMSummarizer`` with."""
        names = ("model", "api_base", "api_key", "timeout", "stream")
        return {name: getattr(self, name) for name in names}

    async def complete(
        self, messages: list[ChatMessage], on_chunk: OnChunk | None = None
    ) -> Completion:
        loop = asyncio.get_running_loop()
        events: asyncio.Queue[Event] = asyncio.Queue()

        def sink(event: Event) -> None:
            try:
                loop.call_soon_threadsafe(events.put_nowait, event)
            except RuntimeError:
                pass  # the loop is closed: nobody waits for this call any more

        worker = _current()
        call = worker.open(sink)
        written = threading.Event()

        def send() -> None:
            try:
                worker.send(call, self.config, messages)
            finally:
                written.set()

        sending = _in_thread(loop, send)
        broken = False
        try:
            async with asyncio.timeout(self.timeout + GRACE_SECONDS):
                try:
                    await sending
                except OSError:
                    pass  # the worker is gone: its exit event says why
                while True:
                    event = await events.get()
                    if "chunk" in event:
                        if on_chunk is not None:
                            on_chunk(event["chunk"])
                    elif "done" in event:
                        return Completion.model_validate(event["done"])
                    elif "error" in event:
                        raise _ERRORS.get(event["error"], ModelError)(event["message"])
                    else:
                        broken = True
                        raise ModelError(self._exit_message(worker, event.get("exit")))
        except TimeoutError:
            broken = True
            raise ModelError(
                f"{self.model}: the worker process gave no answer within "
                f"{self.timeout + GRACE_SECONDS:.0f} s"
            ) from None
        except asyncio.CancelledError:
            # The worker stops this request once all of it is written (a request cut off
            # mid-frames would leave the pipe out of step); the call returns at once.
            def cancel() -> None:
                written.wait()
                try:
                    worker.cancel(call)
                except (OSError, ValueError):
                    pass  # the worker is gone, and its requests with it

            threading.Thread(target=cancel, name="goose-tui-litellm-cancel", daemon=True).start()
            raise
        finally:
            worker.close_call(call)
            if broken:
                _retire(worker)

    def _exit_message(self, worker: Worker, code: object) -> str:
        from goose_tui.redact import scrub_secrets

        tail = scrub_secrets(worker.stderr_tail(), (self.api_key or "",))
        last = tail.splitlines()[-1] if tail else "no message"
        return f"{self.model}: the worker process calling the model exited ({code}): {last}"


# -- the worker's side -------------------------------------------------------------------------

Request = tuple[int, dict[str, Any], list[ChatMessage]]


def _read_message(stdin: IO[bytes]) -> Request | int | None:
    """The next request, or the id of a call to cancel; None at the end of the input."""
    head = stdin.readline()
    if not head:
        return None
    message = json.loads(head)
    if "cancel" in message:
        cancel: int = message["cancel"]
        return cancel
    messages = [ChatMessage(role=r, content="".join(read_frames(stdin))) for r in message["roles"]]
    return message["id"], message["config"], messages


class _Events:
    """The worker's output: JSON lines, written from its event loop's thread only."""

    def __init__(self, stream: IO[bytes]):
        self._stream = stream

    def send(self, event: Event) -> None:
        # ensure_ascii: a lone surrogate travels as an escape and comes back as itself.
        self._stream.write(json.dumps(event).encode() + b"\n")
        self._stream.flush()


async def _serve(
    call: int, config: dict[str, Any], messages: list[ChatMessage], events: _Events
) -> None:
    from goose_tui.redact import scrub_secrets

    pending: list[str] = []

    def flush() -> None:
        if pending:
            events.send({"id": call, "chunk": "".join(pending)})
            pending.clear()

    async def flush_often() -> None:
        while True:
            await asyncio.sleep(CHUNK_FLUSH_SECONDS)
            flush()

    flusher = asyncio.ensure_future(flush_often())
    try:
        completion = await LiteLLMSummarizer(**config).complete(messages, pending.append)
        event: Event = {"done": completion.model_dump(mode="json")}
    except (ContextLengthExceeded, ModelError) as exc:
        kind = next((k for k, error in _ERRORS.items() if isinstance(exc, error)), "model")
        event = {"error": kind, "message": str(exc)}
    except Exception as exc:  # noqa: BLE001 - reported to the app, which keeps running
        message = scrub_secrets(f"{type(exc).__name__}: {exc}", (config.get("api_key") or "",))
        event = {"error": "model", "message": f"{config['model']}: {message}"}
    finally:
        flusher.cancel()
        flush()
    events.send({"id": call} | event)


def _exit_with_the_app() -> None:
    """End this worker as soon as the app that started it is gone (killed, crashed): a
    request to a billed model must not go on for its whole timeout after the app."""
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(PARENT_POLL_SECONDS)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, name="goose-tui-worker-parent", daemon=True).start()


def load_client() -> None:
    """litellm imported and configured, and what it built kept out of the collector's walks
    for the worker's life (``gc.freeze``): otherwise each collection during the first call
    walks all of litellm's objects, most of that call's time. The worker is litellm's alone, so
    nothing else is kept out with it."""
    from goose_tui.llm.litellm_backend import configure_litellm

    configure_litellm()
    gc.freeze()


def main() -> None:
    os.nice(int(os.environ.get(_NICENESS_ENV) or 0))
    _exit_with_the_app()
    # The protocol gets the real stdout; anything else printed goes to stderr.
    events = _Events(os.fdopen(os.dup(1), "wb"))
    os.dup2(2, 1)
    load_client()
    events.send({"ready": True})
    loop = asyncio.new_event_loop()  # one loop for every request: litellm keeps its clients
    calls: dict[int, asyncio.Task[None]] = {}

    def start(request: Request) -> None:
        call = request[0]
        task = loop.create_task(_serve(*request, events))
        calls[call] = task
        task.add_done_callback(lambda _: calls.pop(call, None))

    def cancel(call: int) -> None:
        task = calls.get(call)
        if task is not None:
            task.cancel()

    def read_input() -> None:  # a thread: the loop serves calls while the next one arrives
        stdin = sys.stdin.buffer
        while (message := _read_message(stdin)) is not None:
            if isinstance(message, int):
                loop.call_soon_threadsafe(cancel, message)
            else:
                loop.call_soon_threadsafe(start, message)
        # The app closed the pipe: it is done, and so are its calls. At once: a normal
        # shutdown (litellm's modules, the loop) is slow at the worker's low priority.
        os._exit(0)

    threading.Thread(target=read_input, name="goose-tui-worker-input", daemon=True).start()
    loop.run_forever()


if __name__ == "__main__":
    main()
