"""litellm called from a worker process, for the app.

In the app's own process litellm's client froze the screen: it encodes the request body with
one ``json.dumps`` of the whole prompt (0.6 s holding the GIL for a 47-million-character
prompt, on the event loop), and its import (seconds) competes for the GIL with every frame.
A thread cannot give the GIL back inside one C call; another process can. So the app sends
each litellm request to a worker process (``python -m goose_tui.llm.litellm_worker``) that
has imported litellm, and reads the reply back as events. The worker runs the same
``LiteLLMSummarizer`` the CLI runs in its own process, so errors, timeouts, the reply cap
and secret scrubbing are those of one implementation.

The pipes carry:
- to the worker, per request: one JSON line ``{"config": ..., "roles": [...]}``, then each
  message's text as frames ``<n>\\n<n bytes of UTF-8>`` ended by ``0\\n`` (encoded a slice at
  a time, so the app's thread never holds the GIL for the whole prompt; ``surrogatepass``
  keeps a lone surrogate of a hostile session as it is);
- from the worker: JSON lines ``{"ready": true}`` once litellm is imported, ``{"chunk": s}``
  (pieces gathered for up to 50 ms), then ``{"done": completion}`` or
  ``{"error": "context_length" | "model", "message": s}``.

Workers are shared by every call of the process: one is started when a litellm model is
chosen (``prepare``), a call takes an idle one (or starts one), and gives it back when the
exchange ended in a reply or an error the worker reported. A cancelled or broken exchange
kills its worker (the HTTP request dies with it) and starts a fresh one for the next call.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from typing import IO, Any

from goose_tui.llm.base import ChatMessage, Completion, ContextLengthExceeded, ModelError, OnChunk

# How the app starts a worker; a module attribute so a test can start it through a wrapper.
WORKER_COMMAND = [sys.executable, "-m", "goose_tui.llm.litellm_worker"]
SLICE_CHARS = 1 << 20  # ~1-4 MB of UTF-8 per frame; encoding one takes a few ms
CHUNK_FLUSH_SECONDS = 0.05
# Beyond the request's own timeout (which the worker enforces): for a worker that hangs.
GRACE_SECONDS = 30.0
_STDERR_TAIL = 2_000
WORKER_NICENESS = 10
PARENT_POLL_SECONDS = 0.5

Event = dict[str, Any]


class Worker:
    """One worker process, and the thread that reads its events."""

    def __init__(self) -> None:
        self._stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            WORKER_COMMAND, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr
        )
        self.ready = threading.Event()
        self._lock = threading.Lock()
        self._sink: Callable[[Event], None] | None = None
        self._early: list[Event] = []  # events that came while no call listened
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
            else:
                self._deliver(event)
        self._deliver({"exit": self.process.wait()})

    def _deliver(self, event: Event) -> None:
        with self._lock:  # sinks only schedule: calling them under the lock keeps the order
            if self._sink is None:
                self._early.append(event)
            else:
                self._sink(event)

    def listen(self, sink: Callable[[Event], None] | None) -> None:
        """Send the worker's events to ``sink`` (None: keep them for the next listener)."""
        with self._lock:
            self._sink = sink
            if sink is not None:
                for event in self._early:
                    sink(event)
                self._early = []

    def send(self, config: dict[str, Any], messages: list[ChatMessage]) -> None:
        """Write one request (blocking: run it in a thread)."""
        stdin = self.process.stdin
        assert stdin is not None
        head = {"config": config, "roles": [m.role for m in messages]}
        stdin.write(json.dumps(head).encode() + b"\n")
        for message in messages:
            _write_frames(stdin, message.content)
        stdin.flush()

    def stderr_tail(self) -> str:
        self._stderr.seek(0, os.SEEK_END)
        size = self._stderr.tell()
        self._stderr.seek(max(size - _STDERR_TAIL, 0))
        return self._stderr.read().decode("utf-8", "replace").strip()

    def close(self) -> None:
        """End the worker (its HTTP request, if any, dies with it)."""
        # Killed before its input is closed: a thread may be blocked writing a request to a
        # full pipe, and closing the pipe would wait for that write.
        if self.alive():
            self.process.kill()
        if self.process.stdin is not None:
            try:
                self.process.stdin.close()
            except (OSError, ValueError):
                pass


def _write_frames(stream: IO[bytes], text: str) -> None:
    for start in range(0, len(text), SLICE_CHARS):
        data = text[start : start + SLICE_CHARS].encode("utf-8", "surrogatepass")
        stream.write(b"%d\n" % len(data))
        stream.write(data)
    stream.write(b"0\n")


# -- the pool of workers ---------------------------------------------------------------------

_pool_lock = threading.Lock()
_idle: list[Worker] = []
_busy: set[Worker] = set()


def prepare() -> None:
    """Start a worker (litellm imports in it) unless an idle one is there; returns at once."""
    with _pool_lock:
        _idle[:] = [w for w in _idle if w.alive()]
        if not _idle:
            _idle.append(Worker())


def ready() -> bool:
    """Whether a worker has imported litellm (a call will not wait for the import)."""
    with _pool_lock:
        return any(w.ready.is_set() and w.alive() for w in (*_idle, *_busy))


def _take() -> Worker:
    with _pool_lock:
        live = [w for w in _idle if w.alive()]
        live.sort(key=lambda w: not w.ready.is_set())  # an imported one first
        worker = live.pop(0) if live else Worker()
        _idle[:] = live
        _busy.add(worker)
        return worker


def _give_back(worker: Worker, healthy: bool) -> None:
    with _pool_lock:
        _busy.discard(worker)
        if healthy and worker.alive():
            _idle.append(worker)
            return
    worker.close()
    prepare()  # the next call should not wait for litellm's import again


@atexit.register
def _close_all() -> None:
    with _pool_lock:
        workers = [*_idle, *_busy]
        _idle.clear()
        _busy.clear()
    for worker in workers:
        worker.close()


class WorkerLiteLLMSummarizer:
    """``LiteLLMSummarizer`` with the same arguments, run in a worker process."""

    def __init__(
        self,
        model: str,
        api_base: str | None = None,
        api_key: str | None = None,
        timeout: float | None = None,
        stream: bool = True,
    ):
        from goose_tui.llm.litellm_backend import DEFAULT_TIMEOUT

        self.model = self.name = model
        self.api_key = api_key
        self.timeout = timeout or DEFAULT_TIMEOUT
        # LiteLLMSummarizer's arguments, as the worker builds it.
        self.config = {
            "model": model,
            "api_base": api_base,
            "api_key": api_key,
            "timeout": self.timeout,
            "stream": stream,
        }
        prepare()

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

        worker = _take()
        worker.listen(sink)
        healthy = False
        try:
            async with asyncio.timeout(self.timeout + GRACE_SECONDS):
                try:
                    await asyncio.to_thread(worker.send, self.config, messages)
                except OSError:
                    pass  # the worker is gone: its exit event says why
                while True:
                    event = await events.get()
                    if "chunk" in event:
                        if on_chunk is not None:
                            on_chunk(event["chunk"])
                    elif "done" in event:
                        healthy = True
                        return Completion.model_validate(event["done"])
                    elif "error" in event:
                        healthy = True
                        kind = event["error"]
                        error = ContextLengthExceeded if kind == "context_length" else ModelError
                        raise error(event["message"])
                    else:
                        raise ModelError(self._exit_message(worker, event.get("exit")))
        except TimeoutError:
            raise ModelError(
                f"{self.model}: the worker process gave no answer within "
                f"{self.timeout + GRACE_SECONDS:.0f} s"
            ) from None
        finally:
            worker.listen(None)
            _give_back(worker, healthy)

    def _exit_message(self, worker: Worker, code: object) -> str:
        from goose_tui.llm.litellm_backend import scrub_secrets

        tail = scrub_secrets(worker.stderr_tail(), (self.api_key or "",))
        last = tail.splitlines()[-1] if tail else "no message"
        return f"{self.model}: the worker process calling the model exited ({code}): {last}"


# -- the worker's side -------------------------------------------------------------------------


def _read_request(stdin: IO[bytes]) -> tuple[dict[str, Any], list[ChatMessage]] | None:
    head = stdin.readline()
    if not head:
        return None
    request = json.loads(head)
    messages = []
    for role in request["roles"]:
        parts = []
        while size := int(stdin.readline()):
            parts.append(stdin.read(size))
        content = b"".join(parts).decode("utf-8", "surrogatepass")
        messages.append(ChatMessage(role=role, content=content))
    return request["config"], messages


class _Events:
    def __init__(self, stream: IO[bytes]):
        self._stream = stream

    def send(self, event: Event) -> None:
        # ensure_ascii: a lone surrogate travels as an escape and comes back as itself.
        self._stream.write(json.dumps(event).encode() + b"\n")
        self._stream.flush()


async def _serve(config: dict[str, Any], messages: list[ChatMessage], events: _Events) -> None:
    from goose_tui.llm.litellm_backend import LiteLLMSummarizer, scrub_secrets

    pending: list[str] = []

    def flush() -> None:
        if pending:
            events.send({"chunk": "".join(pending)})
            pending.clear()

    async def flush_often() -> None:
        while True:
            await asyncio.sleep(CHUNK_FLUSH_SECONDS)
            flush()

    flusher = asyncio.ensure_future(flush_often())
    try:
        completion = await LiteLLMSummarizer(**config).complete(messages, pending.append)
        event: Event = {"done": completion.model_dump(mode="json")}
    except ContextLengthExceeded as exc:
        event = {"error": "context_length", "message": str(exc)}
    except ModelError as exc:
        event = {"error": "model", "message": str(exc)}
    except Exception as exc:  # noqa: BLE001 - reported to the app, which keeps running
        message = scrub_secrets(f"{type(exc).__name__}: {exc}", (config.get("api_key") or "",))
        event = {"error": "model", "message": f"{config['model']}: {message}"}
    finally:
        flusher.cancel()
        flush()
    events.send(event)


def _exit_with_the_app() -> None:
    """End this worker as soon as the app that started it is gone (killed, crashed): its
    input's end is read only between requests, and a request to a billed model must not go
    on for its whole timeout after the app."""
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(PARENT_POLL_SECONDS)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, name="goose-tui-worker-parent", daemon=True).start()


def main() -> None:
    # The app's screen comes first: the import and the encoding of a big request body take
    # whole seconds of CPU, which on a machine of two cores the app's frames waited behind.
    os.nice(WORKER_NICENESS)
    _exit_with_the_app()
    # The protocol gets the real stdout; anything else printed goes to stderr.
    events = _Events(os.fdopen(os.dup(1), "wb"))
    os.dup2(2, 1)
    from goose_tui.llm.litellm_backend import configure_litellm

    configure_litellm()
    events.send({"ready": True})
    loop = asyncio.new_event_loop()  # one loop for every request: litellm keeps its clients
    stdin = sys.stdin.buffer
    while (request := _read_request(stdin)) is not None:
        loop.run_until_complete(_serve(*request, events))


if __name__ == "__main__":
    main()
