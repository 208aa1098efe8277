"""A scripted OpenAI-compatible server on 127.0.0.1 for tests (stdlib only).

Start it as a context manager; it binds port 0, serves from a daemon thread and records
every request. Each POST to ``.../chat/completions`` takes the next scripted ``Reply``;
when the script runs out the last reply repeats. Example::

    with LoopbackServer([Reply.ok("hi"), Reply.context_length_exceeded()]) as srv:
        ...  # call f"{srv.url}/v1"
        assert len(srv.requests) == 2
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

ReplyKind = Literal[
    "auto", "json", "sse", "error", "hang", "malformed_sse", "sse_then_hang", "html"
]
DEFAULT_USAGE = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}


@dataclass
class Reply:
    """One scripted response. Build it with the class methods below."""

    kind: ReplyKind
    text: str = ""
    usage: dict[str, int] | None = None
    status: int = 200
    error: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    chunk_size: int = 8

    @classmethod
    def ok(cls, text: str, usage: dict[str, int] | None = DEFAULT_USAGE) -> Reply:
        """Streamed when the request asks for a stream, one JSON body otherwise."""
        return cls("auto", text=text, usage=usage)

    @classmethod
    def json_body(cls, text: str, usage: dict[str, int] | None = DEFAULT_USAGE) -> Reply:
        return cls("json", text=text, usage=usage)

    @classmethod
    def sse(
        cls, text: str, usage: dict[str, int] | None = DEFAULT_USAGE, chunk_size: int = 8
    ) -> Reply:
        return cls("sse", text=text, usage=usage, chunk_size=chunk_size)

    @classmethod
    def http_error(
        cls,
        status: int,
        message: str,
        *,
        code: str | None = None,
        err_type: str = "invalid_request_error",
        headers: dict[str, str] | None = None,
    ) -> Reply:
        body = {"message": message, "type": err_type, "code": code}
        return cls("error", status=status, error=body, headers=headers or {})

    @classmethod
    def html_page(cls, text: str) -> Reply:
        """A web page with status 200, as a proxy or a wrong --api-base answers."""
        return cls("html", text=text)

    @classmethod
    def context_length_exceeded(cls) -> Reply:
        return cls.http_error(
            400,
            "This model's maximum context length is 8192 tokens. However, your messages "
            "resulted in 9000 tokens. Please reduce the length of the messages.",
            code="context_length_exceeded",
        )

    @classmethod
    def unauthorized(cls) -> Reply:
        return cls.http_error(
            401, "Incorrect API key provided.", code="invalid_api_key", err_type="auth_error"
        )

    @classmethod
    def rate_limited(cls, retry_after: int = 7) -> Reply:
        return cls.http_error(
            429,
            "Rate limit reached for requests.",
            code="rate_limit_exceeded",
            err_type="requests",
            headers={"Retry-After": str(retry_after)},
        )

    @classmethod
    def server_error(cls) -> Reply:
        return cls.http_error(500, "The server had an error.", err_type="server_error")

    @classmethod
    def hang(cls) -> Reply:
        """Never answers (until the server shuts down): for timeouts."""
        return cls("hang")

    @classmethod
    def malformed_stream(cls, text: str = "partial ") -> Reply:
        """One good chunk, then a data line that is not JSON."""
        return cls("malformed_sse", text=text)

    @classmethod
    def stream_then_hang(cls, text: str = "first words ") -> Reply:
        """Streams ``text`` then stalls: for cancelling mid-stream."""
        return cls("sse_then_hang", text=text)


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]  # names lower-cased
    body: Any


class LoopbackServer:
    def __init__(
        self,
        replies: list[Reply] | None = None,
        responder: Callable[[Any], Reply] | None = None,
        request_responder: Callable[[RecordedRequest], Reply] | None = None,
    ):
        """``responder``, when given, picks each reply from the request body instead of the
        script: for tests whose requests arrive concurrently or depend on their content;
        ``request_responder`` from the whole request, headers included (a server that
        echoes them)."""
        self.responder = responder
        self.request_responder = request_responder
        self.replies: list[Reply] = list(replies or [Reply.ok("ok")])
        self.requests: list[RecordedRequest] = []
        self._next = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,), daemon=True)

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def script(self, *replies: Reply) -> None:
        """Replace the script and restart it from the first reply."""
        with self._lock:
            self.replies, self._next = list(replies), 0

    def bodies(self) -> list[Any]:
        return [r.body for r in self.requests]

    def _take(self, request: RecordedRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
            if self.responder is not None:
                return self.responder(request.body)
            if self.request_responder is not None:
                return self.request_responder(request)
            reply = self.replies[min(self._next, len(self.replies) - 1)]
            self._next += 1
            return reply

    def __enter__(self) -> LoopbackServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()  # releases hanging handlers
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)


def closed_port() -> int:
    """A loopback port nothing listens on: bound, then released."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _chunk(model: str, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-loopback",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _make_handler(server: LoopbackServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:  # keep test output clean
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", 0))
            raw = self.rfile.read(length)
            try:
                body: Any = json.loads(raw)
            except ValueError:
                body = raw.decode("utf-8", "replace")
            reply = server._take(
                RecordedRequest(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            )
            model = body.get("model", "loopback") if isinstance(body, dict) else "loopback"
            stream = isinstance(body, dict) and bool(body.get("stream"))
            kind = reply.kind
            if kind == "auto":
                kind = "sse" if stream else "json"
            try:
                getattr(self, f"_send_{kind}")(reply, model)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout, cancel): expected in those tests

        def _send_bytes(self, status: int, ctype: str, data: bytes, headers: dict) -> None:
            self.send_response(status)
            self.send_header("content-type", ctype)
            self.send_header("content-length", str(len(data)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        def _send_json(self, reply: Reply, model: str) -> None:
            payload: dict[str, Any] = {
                "id": "chatcmpl-loopback",
                "object": "chat.completion",
                "created": 1,
                "model": model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": reply.text},
                        "finish_reason": "stop",
                    }
                ],
            }
            if reply.usage is not None:
                payload["usage"] = reply.usage
            self._send_bytes(200, "application/json", json.dumps(payload).encode(), {})

        def _send_html(self, reply: Reply, model: str) -> None:
            self._send_bytes(200, "text/html; charset=utf-8", reply.text.encode(), {})

        def _send_error(self, reply: Reply, model: str) -> None:
            data = json.dumps({"error": reply.error}).encode()
            self._send_bytes(reply.status, "application/json", data, reply.headers)

        def _start_stream(self) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("connection", "close")
            self.end_headers()
            self.close_connection = True

        def _event(self, data: dict[str, Any] | str) -> None:
            text = data if isinstance(data, str) else json.dumps(data)
            self.wfile.write(f"data: {text}\n\n".encode())
            self.wfile.flush()

        def _send_sse(self, reply: Reply, model: str) -> None:
            self._start_stream()
            size = max(reply.chunk_size, 1)
            pieces = [reply.text[i : i + size] for i in range(0, len(reply.text), size)] or [""]
            for i, piece in enumerate(pieces):
                delta = {"role": "assistant", "content": piece} if i == 0 else {"content": piece}
                self._event(_chunk(model, delta))
            last = _chunk(model, {}, "stop")
            if reply.usage is not None:
                last["usage"] = reply.usage
            self._event(last)
            self._event("[DONE]")

        def _send_malformed_sse(self, reply: Reply, model: str) -> None:
            self._start_stream()
            self._event(_chunk(model, {"role": "assistant", "content": reply.text}))
            self._event('{"id": "chatcmpl-loopback", "choices": [{"delta": {"content": "bro')
            self._event("[DONE]")

        def _send_sse_then_hang(self, reply: Reply, model: str) -> None:
            self._start_stream()
            self._event(_chunk(model, {"role": "assistant", "content": reply.text}))
            server._stop.wait(30)

        def _send_hang(self, reply: Reply, model: str) -> None:
            server._stop.wait(30)

    return Handler
