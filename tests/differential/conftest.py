"""Harness for the differential suite: a scripted OpenAI-compatible server on loopback and a
runner for the goose-sdk reference. Nothing here imports ``goose`` at module level, so the
suite collects (and skips with a reason) where the wheel is not installed.

The server is our own rather than tests/loopback.py: its tests share one server, and the
few that start their own would wait out that one's half-second poll at each shutdown."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from goose_tui.session.models import Message
from tests.differential.corpus import SHORT, Case

CONTEXT_ERROR = {
    "error": {
        "message": "This model's maximum context length is 8192 tokens.",
        "type": "invalid_request_error",
        "param": "messages",
        "code": "context_length_exceeded",
    }
}


@dataclass
class Script:
    """What the server answers to every POST: the reply text, whether usage is reported, or
    a 400 context_length_exceeded."""

    reply: str = ""
    usage: dict[str, int] | None = None
    context_error: bool = False
    chunks: int = 3  # the streamed reply is split into this many deltas


@dataclass
class ScriptedServer:
    script: Script
    requests: list[dict[str, Any]] = field(default_factory=list)
    port: int = 0
    # Goose's client for this server, made once: making one costs more than a compaction.
    provider: Any = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def _split(text: str, parts: int) -> list[str]:
    # Splits by code point, so a multi-byte character is never cut inside its UTF-8 bytes.
    size = max(1, -(-len(text) // parts))
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _handler(state: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body go out as two writes; on a kept-alive connection Nagle's
        # algorithm holds the body back until the client's delayed ACK.
        disable_nagle_algorithm = True

        def log_message(self, *args: Any) -> None:  # keep test output quiet
            pass

        def _send(self, status: int, content_type: str, body: bytes) -> None:
            self.send_response(status)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", 0))
            body = json.loads(self.rfile.read(length) or b"{}")
            state.requests.append(body)
            script = state.script
            model = body.get("model", "gpt-4o")
            if script.context_error:
                self._send(400, "application/json", json.dumps(CONTEXT_ERROR).encode())
                return
            if body.get("stream"):
                self._send(200, "text/event-stream", self._stream_body(script, model))
                return
            payload: dict[str, Any] = {
                "id": "chatcmpl-diff",
                "object": "chat.completion",
                "created": 1,
                "model": model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": script.reply},
                        "finish_reason": "stop",
                    }
                ],
            }
            if script.usage is not None:
                payload["usage"] = script.usage
            self._send(200, "application/json", json.dumps(payload).encode())

        @staticmethod
        def _stream_body(script: Script, model: str) -> bytes:
            def chunk(delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
                return {
                    "id": "chatcmpl-diff",
                    "object": "chat.completion.chunk",
                    "created": 1,
                    "model": model,
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                }

            events = [
                chunk({"role": "assistant", "content": part}, None)
                for part in _split(script.reply, script.chunks)
            ]
            last = chunk({}, "stop")
            if script.usage is not None:
                last["usage"] = script.usage
            events.append(last)
            text = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
            return text.encode()

    return Handler


@contextmanager
def serve(script: Script | None = None) -> Iterator[ScriptedServer]:
    """A scripted server on 127.0.0.1, port chosen by the OS, for the ``with`` block."""
    state = ScriptedServer(script or Script())
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    httpd.daemon_threads = True
    state.port = httpd.server_port
    # A short poll interval keeps shutdown (one per test) from costing half a second.
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


@pytest.fixture(scope="session")
def _one_server() -> Iterator[ScriptedServer]:
    """One loopback server, and Goose's client for it, for all of a worker's tests: making
    the client costs more CPU than most tests here."""
    with serve() as state:
        yield state


@pytest.fixture
def server(_one_server: ScriptedServer) -> ScriptedServer:
    """The loopback server with its script and its requests fresh for this test; set
    ``server.script`` before calling the client."""
    _one_server.script = Script()
    _one_server.requests = []
    return _one_server


def goose_messages(case: Case) -> list[Any]:
    import goose

    roles = {
        "user": goose.MessageRole.USER,
        "assistant": goose.MessageRole.ASSISTANT,
        "tool": goose.MessageRole.TOOL,
    }
    return [goose.CompactionMessage(role=roles[r], text=t) for r, t in case.conversation]


def run_reference(server: ScriptedServer, case: Case, templates: Any = None) -> Any:
    """Goose's own compaction of the case against the scripted server: CompactionSummary.
    ``templates`` None means the wheel's built-in pair."""
    import goose

    if server.provider is None:
        server.provider = goose.openai_provider("sk-test", server.base_url)
    return asyncio.run(server.provider.compact("gpt-4o", goose_messages(case), templates))


def write_prompts(directory: Path, compaction: str, summary: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "compaction.md").write_bytes(compaction.encode())
    (directory / "compaction_summary.md").write_bytes(summary.encode())
    return directory


def summary_both_ways(
    server: ScriptedServer, folder: Path, reply: str, summary: str
) -> tuple[str, str]:
    """``reply`` rendered with Goose's compaction template and the summary template
    ``summary``: by the wheel, then by goose-tui (its templates written to ``folder``)."""
    import goose

    from goose_tui.compaction.summarize import finish
    from goose_tui.compaction.templates import load_templates

    compaction = goose.default_compaction_templates().compaction
    server.script = Script(reply=reply)
    theirs = run_reference(
        server,
        Case("summary", SHORT, reply),
        goose.CompactionTemplates(compaction=compaction, summary=summary),
    ).text
    return theirs, finish(reply, load_templates(write_prompts(folder, compaction, summary)))[1]


@pytest.fixture(scope="session")
def goose_prompts_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Goose's own two templates, written where ``--prompts-dir`` / ``load_templates`` read
    overrides."""
    import goose

    defaults = goose.default_compaction_templates()
    directory = tmp_path_factory.mktemp("goose-prompts")
    # Bytes, not text mode: the comparison is byte for byte.
    (directory / "compaction.md").write_bytes(defaults.compaction.encode())
    (directory / "compaction_summary.md").write_bytes(defaults.summary.encode())
    return directory


def our_messages(case: Case) -> list[Message]:
    """The corpus conversation as our Messages. TOOL turns become user text messages: that is
    what they are to the wheel (it formats them ``[user]: {text}`` and never removes them)."""
    return [
        Message(
            role="assistant" if role == "assistant" else "user",
            created=1_700_000_000 + i,
            content=[{"type": "text", "text": text}],
        )
        for i, (role, text) in enumerate(case.conversation)
    ]
