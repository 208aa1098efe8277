"""A summarizer backed by litellm: any model string it knows, or any OpenAI-compatible server.

litellm takes seconds to import, so it is imported inside ``complete`` only. Errors become
the pipeline's two exceptions, with messages that never carry an API key.
"""

from __future__ import annotations

import asyncio
import os
import re
import threading
from collections.abc import Mapping
from typing import Any

from goose_tui.gc_pause import paused_gc
from goose_tui.llm.base import (
    DEFAULT_TIMEOUT,
    MAX_REPLY_CHARS,
    ChatMessage,
    Completion,
    ContextLengthExceeded,
    ModelError,
    OnChunk,
    TokenUsage,
    UnknownModel,
    reply_too_long,
)
from goose_tui.redact import remember_key
from goose_tui.redact import scrub_secrets as scrub_secrets  # the backend's public name too

# Local OpenAI-compatible servers usually ignore the key, but the openai client insists on one.
DUMMY_KEY = "sk-goose-tui-local"

_CONTEXT_HINTS = (
    "context_length_exceeded",
    "maximum context length",
    "context window",
    "context length",
    "too many tokens",
    "prompt is too long",
    # Bedrock: "Input is too long for requested model."
    "input is too long",
    # Anthropic's 413 request_too_large, and proxies in front of any provider.
    "request too large",
    "request_too_large",
)
# Statuses a context overflow comes with: 400 from most providers, 413 when the request is
# too large to accept at all, 500 from Ollama before it had a proper error ("context length
# exceeded"), 422 from some OpenAI-compatible servers.
_CONTEXT_STATUSES = frozenset({400, 413, 422, 500})
# The provider's client refusing to send a request without a key (no HTTP status applies).
_MISSING_KEY = re.compile(
    r"missing credentials|missing \w+ api key|no key is set|api_key client option must be set",
    re.IGNORECASE,
)
# litellm's error for a model string whose provider it does not know.
_NO_PROVIDER = "LLM Provider NOT provided"
_MAX_MESSAGE = 600


# litellm's import (seconds) runs in a background thread as soon as a litellm model is
# chosen, so neither the CLI's loading of the session nor the app's event loop waits for it
# in one piece. A plain ``import litellm`` on the loop while that thread imports would block
# on the module's import lock: ``load_litellm`` awaits the thread instead.
_prepare_lock = threading.Lock()
_prepare_thread: threading.Thread | None = None
_prepared = threading.Event()


def prepare_litellm() -> None:
    """Start importing litellm in a background thread (once); returns at once."""
    global _prepare_thread
    with _prepare_lock:
        if _prepare_thread is not None:
            return
        _prepare_thread = threading.Thread(
            target=_import_in_background, name="goose-tui-litellm-import", daemon=True
        )
        _prepare_thread.start()


def _import_in_background() -> None:
    try:
        configure_litellm()
    except BaseException:  # noqa: BLE001 - the caller's own import reports it in its context
        pass
    finally:
        _prepared.set()


def litellm_ready() -> bool:
    """Whether the background import has finished (a call will not wait for it)."""
    return _prepared.is_set()


async def load_litellm() -> Any:
    """litellm, configured, imported without blocking the running event loop."""
    if not _prepared.is_set():
        prepare_litellm()
        # Polled rather than waited for in an executor thread: a cancelled compaction (or
        # Ctrl-C in the CLI) must not wait for the import to finish.
        while not _prepared.wait(0):
            await asyncio.sleep(0.02)
    return configure_litellm()


def configure_litellm() -> Any:
    # Before the import: the model cost map is otherwise fetched over the network.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_LOG", "ERROR")
    # Each collection during the import walks all litellm has built so far, a good share of
    # the import's time. Nothing it builds needs collecting meanwhile.
    with paused_gc():
        import litellm

    litellm.telemetry = False
    litellm.suppress_debug_info = True
    # Still read by litellm, though its package no longer re-exports the name.
    litellm.set_verbose = False
    litellm.drop_params = True
    # litellm counts the prompt's tokens itself, for its cost estimate: it builds its own
    # tokenizer on the first call (seconds) and re-encodes the whole prompt (seconds on a big
    # session). The pipeline estimates what the provider does not report (docs/pipeline.md §7) and
    # reads only the reported usage from litellm (tests/llm/test_litellm.py).
    litellm.disable_token_counter = True
    return litellm


class LiteLLMSummarizer:
    def __init__(
        self,
        model: str,
        api_base: str | None = None,
        api_key: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        stream: bool = True,
    ):
        # Goose streams its compaction request; ``stream=False`` is for servers that cannot.
        self.stream = stream
        self.model = model
        self.name = model
        self.api_base = api_base
        self.api_key = api_key
        remember_key(api_key)
        self.timeout = timeout
        self.prepare()  # a summarizer made is a call coming: start the import now

    def prepare(self) -> None:
        prepare_litellm()

    def _key(self) -> str | None:
        if self.api_key:
            return self.api_key
        if (
            self.api_base
            and self.model.startswith("openai/")
            and not os.environ.get("OPENAI_API_KEY")
        ):
            return DUMMY_KEY
        return None  # litellm reads the provider's key from the environment

    async def complete(
        self, messages: list[ChatMessage], on_chunk: OnChunk | None = None
    ) -> Completion:
        litellm = await load_litellm()
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": [m.model_dump() for m in messages],
            "timeout": self.timeout,
            "num_retries": 0,
            "max_retries": 0,
        }
        if self.stream:
            kwargs.update(stream=True, stream_options={"include_usage": True})
        if self.api_base:
            kwargs["api_base"] = self.api_base
        key = self._key()
        if key:
            kwargs["api_key"] = key
        try:
            # The whole exchange, stream included, is bounded: a server that stalls
            # mid-stream must end in an error, not a frozen app.
            async with asyncio.timeout(self.timeout):
                response = await litellm.acompletion(**kwargs)
                if not self.stream:
                    return _whole_completion(response, on_chunk)
                return await _streamed_completion(response, on_chunk)
        except (asyncio.CancelledError, ModelError):
            raise
        except _NoStream as exc:
            raise ModelError(
                f"{self.model}: the server answered with {exc}, not an OpenAI-compatible "
                "stream (a web page or a proxy's error page answers so): check --api-base"
            ) from None
        except Exception as exc:  # noqa: BLE001 - every failure becomes one of our two errors
            raise self._translate(exc) from None

    def _translate(self, exc: BaseException) -> Exception:
        litellm = configure_litellm()
        raw = provider_message(scrub_secrets(str(exc), (self.api_key or "",)))
        status = getattr(exc, "status_code", None)
        if (
            isinstance(exc, litellm.ContextWindowExceededError)
            or status == 413
            or (status in _CONTEXT_STATUSES and any(h in raw.lower() for h in _CONTEXT_HINTS))
        ):
            return ContextLengthExceeded(f"{self.model}: context length exceeded: {_short(raw)}")
        if _MISSING_KEY.search(raw):
            return ModelError(f"{self.model}: no API key: {_key_hint(self.model, self.api_base)}")
        if _NO_PROVIDER in raw:
            # litellm's own refusal, before any request: no HTTP status applies.
            return UnknownModel(
                f"{self.model}: litellm knows no provider by that name: write the model as "
                "provider/model (openai/gpt-4o, anthropic/claude-sonnet-4-5, ollama/llama3.2; "
                "the list: https://docs.litellm.ai/docs/providers), or use --api-base for an "
                "OpenAI-compatible server with openai/<model>"
            )
        what = _describe(exc, status, self.timeout, self.api_base)
        return ModelError(
            f"{self.model}: {what}: {_short(raw)}" if raw else f"{self.model}: {what}"
        )


class _NoStream(Exception):
    """No text came, and the answer was no stream at all (its content type, a web page's):
    litellm makes up a finish event all the same, so the reply looked merely empty."""


async def _streamed_completion(stream: Any, on_chunk: OnChunk | None) -> Completion:
    parts: list[str] = []
    received = 0
    model_name: str | None = None
    async for chunk in stream:
        model_name = getattr(chunk, "model", None) or model_name
        piece = _delta_text(chunk)
        if piece:
            received += len(piece)
            if received > MAX_REPLY_CHARS:
                raise reply_too_long()
            parts.append(piece)
            if on_chunk is not None:
                on_chunk(piece)
    if not parts:
        hidden = getattr(stream, "_hidden_params", None) or {}
        headers = hidden.get("additional_headers") or {}
        kind = str(headers.get("llm_provider-content-type") or "")
        if kind and "event-stream" not in kind and "json" not in kind:
            raise _NoStream(kind.split(";")[0].strip())
    return Completion(text="".join(parts), usage=_reported_usage(stream), model=model_name)


def _whole_completion(response: Any, on_chunk: OnChunk | None) -> Completion:
    choices = getattr(response, "choices", None) or []
    message = getattr(choices[0], "message", None) if choices else None
    text = getattr(message, "content", None) or ""
    if len(text) > MAX_REPLY_CHARS:
        raise reply_too_long()
    if text and on_chunk is not None:
        on_chunk(text)
    usage = getattr(response, "usage", None)
    return Completion(
        text=text,
        usage=goose_usage(vars(usage) if usage is not None else {}, streamed=False),
        model=getattr(response, "model", None),
    )


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def _key_hint(model: str, api_base: str | None) -> str:
    provider = model.split("/", 1)[0] if "/" in model else "the provider"
    if provider == "the provider":
        return "set the provider's API key in the environment"
    env = f"{provider.upper().replace('-', '_')}_API_KEY"
    if api_base:  # named already: this provider's client wants a key for it all the same
        return f"set {env} in the environment (this provider's client needs one for any server)"
    return f"set {env} in the environment (or --api-base for a local server)"


def _tried_url(chain: list[BaseException], api_base: str | None) -> str:
    """The URL the failed connection went to: the innermost error's request (litellm's own
    wrapper carries a placeholder request), else the configured base."""
    for link in reversed(chain):
        request = getattr(link, "request", None)
        try:
            url = getattr(request, "url", None)
        except RuntimeError:  # httpx raises when an error carries no request
            url = None
        if url:
            return str(url)
    return api_base or "the provider's default URL"


def _describe(exc: BaseException, status: Any, timeout: float, api_base: str | None) -> str:
    """What went wrong, in words: litellm reports a refused connection or a broken stream
    as HTTP 500, so the cause chain decides before the status does."""
    chain = _chain(exc)
    names = {type(e).__name__ for e in chain}
    if any(isinstance(e, TimeoutError) for e in chain) or any("Timeout" in n for n in names):
        return (
            f"the model did not answer within {timeout:g} s (--timeout SECONDS or the "
            "settings file's timeout gives it longer)"
        )
    if any(isinstance(e, ConnectionError) for e in chain) or names & _CONNECT_ERRORS:
        return f"could not connect to the server at {_tried_url(chain, api_base)}"
    if "MidStreamFallbackError" in names or any(isinstance(e, ValueError) for e in chain[1:]):
        return "the reply stream broke off or was malformed"
    label = _STATUS_LABELS.get(status) if isinstance(status, int) else None
    head = f"HTTP {status}" if isinstance(status, int) else type(exc).__name__
    if label:
        head += f" {label}"
    retry = _retry_after(exc)
    if retry:
        head += f"; retry after {retry} s"
    return head


_CONNECT_ERRORS = {"ConnectError", "ClientConnectorError", "APIConnectionError"}
_STATUS_LABELS = {
    400: "bad request",
    401: "authentication failed (check the API key in the environment)",
    403: "permission denied",
    404: "model or endpoint not found",
    429: "rate limited",
    500: "the provider had an internal error",
    502: "bad gateway",
    503: "the provider is unavailable",
}
# litellm stacks class names in front of the provider's text: "litellm.X: X: OpenAIException - ".
_PREFIX = re.compile(r"^\s*(?:litellm\.)?[A-Za-z]*(?:Error|Exception)(?::|\s-)\s*")


# A Python object's repr in an error ("ssl:<ssl.SSLContext object at 0x7f…>", aiohttp's
# refused connection): nothing a user can act on.
_OBJECT_REPR = re.compile(r"\s*(?:\w+:)?<[\w.]+ object at 0x[0-9a-fA-F]+>")


def provider_message(text: str) -> str:
    """The provider's own words, without litellm's class-name prefixes and repeats and
    without object reprs."""
    text = _OBJECT_REPR.sub("", text.split(" Original exception:", 1)[0])
    while True:
        stripped = _PREFIX.sub("", text, count=1)
        if stripped == text:
            return text.strip()
        text = stripped


def _retry_after(exc: BaseException) -> str | None:
    for link in _chain(exc):
        headers = getattr(getattr(link, "response", None), "headers", None)
        if headers is None:
            continue
        try:
            value = headers.get("retry-after")
        except Exception:  # noqa: BLE001 - odd header containers are not worth a crash
            continue
        if value:
            return str(value)
    return None


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX_MESSAGE else text[: _MAX_MESSAGE - 1] + "…"


def _delta_text(chunk: Any) -> str:
    choices = getattr(chunk, "choices", None) or []
    if not choices:
        return ""
    delta = getattr(choices[0], "delta", None)
    return getattr(delta, "content", None) or ""


def _reported_usage(stream: Any) -> TokenUsage:
    """Usage as the provider sent it. litellm fills in its own count when the provider sends
    none, so read the raw chunks it keeps; the pipeline estimates what is missing (docs/pipeline.md
    §7)."""
    for chunk in reversed(getattr(stream, "chunks", None) or []):
        usage = chunk.get("usage") if isinstance(chunk, dict) else getattr(chunk, "usage", None)
        if usage is None:
            continue
        return goose_usage(usage if isinstance(usage, dict) else vars(usage), streamed=True)
    return TokenUsage()


def goose_usage(values: Mapping[str, Any], *, streamed: bool) -> TokenUsage:
    """A reply's usage read as Goose reads an OpenAI-format one (tests/differential/
    test_usage.py against the goose-sdk wheel): each count that is an integer; a streamed
    usage without its completion count dropped whole; a missing total made from the counts
    there are (in + out, or the one of them). litellm writes 0 for a count the server left
    out, and no request has 0 prompt tokens nor a reply 0 completion tokens, so a 0 reads as
    left out (a server that sends zeros for all three, which Goose keeps, is the one
    difference: its usage is then estimated, docs/pipeline.md §7)."""

    def count(key: str) -> int | None:
        value = values.get(key)
        return value if type(value) is int and value != 0 else None

    prompt, completion, total = (
        count("prompt_tokens"),
        count("completion_tokens"),
        count("total_tokens"),
    )
    if streamed and completion is None:
        return TokenUsage()
    if total is None and (prompt is not None or completion is not None):
        total = (prompt or 0) + (completion or 0)  # Usage::new: in + out, or the one there is
    return TokenUsage(input_tokens=prompt, output_tokens=completion, total_tokens=total)
