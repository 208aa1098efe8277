"""docs/pipeline.md §8: token estimates (tiktoken o200k_base, offline), context windows,
the threshold.

Goose's estimate, read from its token_counter.rs: each message is counted on its own with
``count_chat_tokens("", [message], [])``, i.e. 4 per message, the text items, tool requests as
``id:name:arguments`` (arguments as compact JSON), tool-response text items joined by ``\\n``,
and the 3-token reply primer, so the primer is paid once per message when the history is
summed. Everything else (images, thinking, ...) counts nothing.

The o200k_base file ships inside litellm (tiktoken's cache name for its download URL). We
find it without importing litellm, which takes seconds, and build the Encoding ourselves, so
no code path can reach for the network.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import re
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field, computed_field

from goose_tui.pieces import Text, slices
from goose_tui.session.content import tool_response_texts
from goose_tui.session.models import Message, Session, content_type
from goose_tui.session.serde import compact_json

if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor

    import tiktoken

DEFAULT_THRESHOLD = 0.8
DEFAULT_CONTEXT_LIMIT = 128_000
TOKENS_PER_MESSAGE = 4
REPLY_PRIMER = 3
THRESHOLD_ENV = "GOOSE_AUTO_COMPACT_THRESHOLD"

LimitSource = Literal["session", "model-map", "cli", "assumed"]
# Where a summarizer's own window came from (``RequestFit``).
WindowSource = Literal["session", "model-map", "offline"]
UsedSource = Literal["reported", "estimated"]
_LIMIT_SOURCE_TEXT: dict[str, str] = {
    "session": "from the session",
    "model-map": "from litellm's model map",
    "cli": "from --context-limit",
    "offline": "from --offline-context-limit",
    "assumed": "assumed",
}


def limit_source_text(source: str) -> str:
    """Where a context limit came from, as the screens and commands say it."""
    return _LIMIT_SOURCE_TEXT.get(source, f"from {source}")


# Where a threshold came from, by the precedence of ``--threshold``'s help.
ThresholdSource = Literal["cli", "env", "settings", "default"]
THRESHOLD_SOURCE_TEXT: dict[ThresholdSource, str] = {
    "cli": "--threshold",
    "env": f"${THRESHOLD_ENV}",
    "settings": "the settings file",
    "default": "default",
}


# tiktoken's o200k_base definition (tiktoken_ext.openai_public), restated so that building it
# never touches tiktoken's download path; a test checks it against tiktoken's own.
O200K_FILE = "litellm_core_utils/tokenizers/fb374d419588a4632f3f557e76b4b70aebbca790"
O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
O200K_SPECIAL_TOKENS = {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}
O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",  # noqa: E501
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",  # noqa: E501
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
MODEL_MAP_FILE = "model_prices_and_context_window_backup.json"


class TokenizerUnavailable(RuntimeError):
    """The o200k_base file is not where litellm ships it (or is corrupt)."""


def litellm_package_dir() -> Path | None:
    """litellm's directory, found without executing its (slow) ``__init__``."""
    try:
        spec = importlib.util.find_spec("litellm")
    except (ImportError, ValueError):
        return None
    locations = list(spec.submodule_search_locations or []) if spec else []
    return Path(locations[0]) if locations else None


def o200k_path() -> Path:
    package = litellm_package_dir()
    if package is None or not (package / O200K_FILE).is_file():
        raise TokenizerUnavailable(
            "the o200k_base tokenizer file ships with litellm, which was not found; "
            "install goose-tui's dependencies (no download is attempted)"
        )
    return package / O200K_FILE


_encoder_lock = threading.Lock()
_encoder: tiktoken.Encoding | None = None


def _load_encoder() -> tiktoken.Encoding:
    import tiktoken

    encoding = tiktoken.Encoding(
        name="o200k_base",
        pat_str=O200K_PATTERN,
        mergeable_ranks=o200k_ranks(),
        special_tokens=O200K_SPECIAL_TOKENS,
    )
    # The Encoding keeps the map only to pickle itself (its Rust core has its own copy), and
    # nothing pickles this one: letting it go gives its memory back.
    encoding._mergeable_ranks = {}
    return encoding


# Bytes of the o200k_base file read per step: each step is one stretch of C code that holds
# the GIL, short enough not to delay the app's frames while the encoder is built in a thread.
RANKS_STEP_BYTES = 1 << 19


def o200k_ranks() -> dict[bytes, int]:
    """The file's token -> rank map. The file is "base64-token rank" lines and its ranks are
    its line numbers, 0 to 199,997 (the hash pins the file; a test compares the map with
    tiktoken's own parse): split, decode with map (C loops) and number the tokens with a
    range instead of parsing the ranks, some lines at a time. The encoder is on the first
    screen's path."""
    import binascii
    import hashlib

    path = o200k_path()
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != O200K_SHA256:
        raise TokenizerUnavailable(f"{path} is not the o200k_base file (hash mismatch)")
    ranks: dict[bytes, int] = {}
    start = 0
    while start < len(data):
        end = data.find(b"\n", start + RANKS_STEP_BYTES) + 1 or len(data)
        tokens = data[start:end].split()[0::2]
        first = len(ranks)
        ranks.update(
            zip(map(binascii.a2b_base64, tokens), range(first, first + len(tokens)), strict=True)
        )
        start = end
    return ranks


def encoder() -> tiktoken.Encoding:
    """The o200k_base encoding, loaded once on first use."""
    global _encoder
    if _encoder is None:
        with _encoder_lock:  # the app counts from worker threads: load it once
            if _encoder is None:
                _encoder = _load_encoder()
    return _encoder


# Long texts are encoded in chunks so the token list of a whole prompt (tens of millions of
# tokens) never exists as one Python list. A chunk ends just before a space that
# follows a non-whitespace character: o200k_base's pre-tokenizer always starts a piece
# there (no piece ends in a space after a non-space: words, numbers and punctuation stop at
# it, and whitespace pieces hold no non-space), and no special token contains a space, so
# the pieces, hence the counts, are those of the whole text. A test compares the two.
CHUNK_CHARS = 1 << 18

# Where a text has no such space (base64, hex, a minified file), a chunk may end where one
# ASCII class of O200K_PATTERN's pieces meets another, which no piece spans: after a letter
# before an ASCII character that is not a letter, an apostrophe (a contraction, ``'s``) or
# ``|`` (inside ``<|endoftext|>``); after a digit before an ASCII non-digit; before a digit
# after an ASCII punctuation character (not after whitespace, whose last piece depends on
# what follows it). Letter pieces hold letters and marks (after one optional character that
# is not a letter or digit), digit pieces only digits, the others neither.
_RUN_CUT = re.compile(
    r"(?<=[A-Za-z])[\x00-\x26\x28-\x40\x5b-\x60\x7b\x7d-\x7f]"
    r"|(?<=[0-9])[\x00-\x2f\x3a-\x7f]"
    r"|(?<=[\x21-\x2f\x3a-\x7e])[0-9]"
)
# A run with neither (50 MB of one letter, or of punctuation) is a single pre-tokenizer
# piece, whose byte-pair merge holds several times its size and takes time that grows faster
# than its length (tiktoken-rs, which Goose uses, merges in quadratic time): past this many
# characters it is cut where it stands, and the count is an estimate (docs/fidelity.md).
LONGEST_RUN_CHARS = CHUNK_CHARS
_RUN_TAIL = 4096  # the end of a piece is searched first for a cut inside a run


def _encode_count(text: str) -> int:
    # Goose uses encode_with_special_tokens: "<|endoftext|>" in a text counts as one token.
    return len(encoder().encode(text, allowed_special="all"))


def _last_safe_cut(text: str) -> int | None:
    """The last safe chunk boundary in ``text`` after its first character, or None."""
    cut = text.rfind(" ")
    while cut > 0 and text[cut - 1].isspace():
        cut = text.rfind(" ", 0, cut)
    if cut > 0:
        return cut
    for start in dict.fromkeys((max(1, len(text) - _RUN_TAIL), 1)):
        cuts = [match.start() for match in _RUN_CUT.finditer(text, start)]
        if cuts:
            return cuts[-1]
    return None


def _chunks(text: Text, chunk: int) -> Iterator[str]:
    """``text`` (a str, or the pieces of one) in strings of about ``chunk`` characters or
    more, cut only at safe boundaries (or inside a run longer than ``LONGEST_RUN_CHARS``)."""
    return _chunks_of(slices(text, chunk), chunk)


def _chunks_of(pieces: Iterable[str], chunk: int) -> Iterator[str]:
    """The text that ``pieces`` (none longer than ``chunk``) make, as ``_chunks``."""
    pending: list[str] = []  # the text not handed out yet, in order
    size = 0
    longest = max(chunk, LONGEST_RUN_CHARS)
    for piece in pieces:
        pending.append(piece)
        size += len(piece)
        if size < chunk:
            continue
        cut = _last_safe_cut(piece)  # searched in the newest piece only: linear
        if cut is None:
            if size < longest:
                continue
            cut = len(piece)
        pending[-1] = piece[:cut]
        yield "".join(pending)
        pending, size = [piece[cut:]], len(piece) - cut
    if size:
        yield "".join(pending)


_pool_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None


def _encoding_pool() -> ThreadPoolExecutor:
    """Threads that encode chunks side by side (tiktoken releases the GIL while encoding)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            from concurrent.futures import ThreadPoolExecutor

            _pool = ThreadPoolExecutor(
                max_workers=max(1, os.cpu_count() or 1), thread_name_prefix="goose-tui-tokens"
            )
        return _pool


# While the app runs, its counts are made in a process of their own: goose_tui/token_worker.py
# sets this to a function that returns the texts' counts from there, or None to count here.
counts_elsewhere: Callable[[Sequence[Text]], list[int] | None] | None = None


# A text counted with a ``stop`` goes a part of this many characters or so at a time: a
# summary template can write tens of MB, and counting them in one go would keep the app from
# quitting until the count was done.
STOPPABLE_PART_CHARS = 1 << 22


class CountStopped(Exception):
    """A count given up between two parts because its ``stop`` said so."""


def count_tokens(
    text: Text, chunk: int = CHUNK_CHARS, *, stop: Callable[[], bool] | None = None
) -> int:
    """Tokens of ``text`` (a str, or the pieces of one: the prompt), special tokens allowed,
    encoded ``chunk`` characters or so at a time at boundaries where the tokenizer splits
    anyway; a long text's chunks are encoded on every core, a few at a time (so only a few
    chunks' token lists exist at once). ``stop``: asked between parts of a long text; when it
    says so, ``CountStopped`` is raised."""
    if stop is not None and len(text) > STOPPABLE_PART_CHARS:
        total = 0
        for part in _chunks(text, STOPPABLE_PART_CHARS):
            if stop():
                raise CountStopped
            total += count_tokens(part, chunk)
        return total
    if counts_elsewhere is not None and text and (counted := counts_elsewhere([text])):
        return counted[0]
    if len(text) <= chunk * 2:
        return _encode_count(str(text)) if text else 0
    return _count_chunks(_chunks(text, chunk))


def count_streamed(parts: Iterable[str], chunk: int = CHUNK_CHARS) -> int:
    """``count_tokens`` of the text ``parts`` make, read as they come (the token worker's
    frames): no more of it is held than the chunks being encoded."""

    def sliced() -> Iterator[str]:
        for part in parts:
            for start in range(0, len(part), chunk):
                yield part[start : start + chunk]

    return _count_chunks(_chunks_of(sliced(), chunk))


def _count_chunks(chunks: Iterator[str]) -> int:
    """The chunks encoded on every core, a few at a time (so only a few chunks' token lists
    exist at once)."""
    encoder()  # built once, before threads ask for it
    pool = _encoding_pool()
    window = 2 * (pool._max_workers or 1)
    pending: deque[Future[int]] = deque()
    total = 0
    for piece in chunks:
        if len(pending) >= window:
            total += pending.popleft().result()
        pending.append(pool.submit(_encode_count, piece))
    return total + sum(f.result() for f in pending)


def item_token_texts(item: Any) -> list[str]:
    """The strings Goose counts for one content item (none for images, thinking, ...)."""
    kind = content_type(item)
    if kind == "text":
        text = item.get("text")
        return [text] if isinstance(text, str) else []
    if kind == "toolRequest":
        return _tool_request_text(item)
    if kind == "toolResponse":
        response = tool_response_texts(item)
        return ["\n".join(response)] if response else []
    return []


def _token_texts(message: Message) -> list[str]:
    """The strings Goose counts for one message, in order."""
    return [text for item in message.content for text in item_token_texts(item)]


def _tool_request_text(item: dict[str, Any]) -> list[str]:
    call = item.get("toolCall")
    if not isinstance(call, dict) or call.get("status") != "success":
        return []  # Goose would panic on a failed call; counting nothing is the honest reading
    value = call.get("value")
    if not isinstance(value, dict):
        return []
    try:
        arguments = compact_json(value.get("arguments"))
    except (TypeError, ValueError):
        arguments = str(value.get("arguments"))
    return [f"{item.get('id', '')}:{value.get('name', '')}:{arguments}"]


def _count_texts(texts: Sequence[str], stop: Callable[[], bool] | None = None) -> int:
    return TOKENS_PER_MESSAGE + sum(count_tokens(text, stop=stop) for text in texts)


def message_tokens(message: Message) -> int:
    """Goose's estimate for one message: +4 per message, tool requests as id:name:arguments,
    tool-response text joined by newlines."""
    return _count_texts(_token_texts(message))


class TokenCounter:
    """Per-message counts cached by message identity and content, so an edit recounts only
    the message that changed."""

    def __init__(self) -> None:
        self._cache: dict[tuple[object, int], int] = {}
        self._lock = threading.Lock()
        self.recounted = 0  # messages actually tokenized, for tests and the benchmark

    @staticmethod
    def _keyed(message: Message) -> tuple[tuple[object, int], list[str]]:
        """The message's cache key (its identity and content) and the texts Goose counts."""
        texts = _token_texts(message)
        return (message.id if message.id is not None else id(message), hash(tuple(texts))), texts

    def count(self, message: Message, *, stop: Callable[[], bool] | None = None) -> int:
        """``stop``: as ``count_tokens``'s (nothing is cached of a stopped count)."""
        key, texts = self._keyed(message)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        tokens = _count_texts(texts, stop)
        with self._lock:
            self._cache[key] = tokens
            self.recounted += 1
        return tokens

    def count_all(self, messages: Sequence[Message]) -> list[int]:
        """``count`` of each message, those not cached counted together: in one request to
        the token worker while the app counts there."""
        keyed = [self._keyed(message) for message in messages]
        missing = {key: texts for key, texts in keyed if key not in self._cache}
        flat = [text for texts in missing.values() for text in texts if text]
        elsewhere = counts_elsewhere
        counted = elsewhere(flat) if elsewhere is not None and flat else None
        if counted is None:
            return [self.count(message) for message in messages]
        it = iter(counted)
        with self._lock:
            for key, texts in missing.items():
                self._cache[key] = TOKENS_PER_MESSAGE + sum(next(it) for text in texts if text)
                self.recounted += 1
        return [self._cache[key] for key, _ in keyed]

    def total(
        self,
        messages: Sequence[Message],
        counts: Sequence[int] | None = None,
        *,
        stop: Callable[[], bool] | None = None,
    ) -> int:
        """Sum over agent-visible messages, +3 reply primer on each (Goose sums one
        count_chat_tokens per message, and each one adds the primer). ``counts``: each
        message's count, when the caller has just made them (not looked up again: a lookup
        builds the message's texts and hashes them). ``stop``: as
        ``count_tokens``'s."""
        return sum(
            (self.count(message, stop=stop) if counts is None else counts[number]) + REPLY_PRIMER
            for number, message in enumerate(messages)
            if message.metadata.agent_visible
        )

    def clear(self) -> None:
        with self._lock:
            self._cache.clear()


def not_smaller(history_tokens: int, summary_tokens: int) -> bool:
    """A summary is worth having only when it is smaller than the history it replaces
    (``batch`` and the app flag one that is not)."""
    return summary_tokens >= history_tokens


class ContextUsage(BaseModel):
    used: int
    used_source: UsedSource
    limit: int
    limit_source: LimitSource
    threshold: float
    model: str | None  # the session's: its window decides when Goose compacts

    @property
    def fraction(self) -> float:
        return self.used / self.limit if self.limit else 0.0

    @property
    def auto_compact_enabled(self) -> bool:
        return 0 < self.threshold < 1

    @property
    def compaction_due(self) -> bool:
        return self.auto_compact_enabled and self.fraction > self.threshold


def resolve_threshold(cli_value: float | None = None) -> float:
    """--threshold, else GOOSE_AUTO_COMPACT_THRESHOLD, else 0.8."""
    if cli_value is not None:
        return float(cli_value)
    raw = os.environ.get(THRESHOLD_ENV)
    if raw is None:
        return DEFAULT_THRESHOLD
    try:
        value = float(raw)
    except ValueError:
        return DEFAULT_THRESHOLD  # Goose ignores a value it cannot parse
    return value if math.isfinite(value) else DEFAULT_THRESHOLD


@lru_cache(maxsize=1)
def _model_map_text() -> str | None:
    package = litellm_package_dir()
    if package is None:
        return None
    try:
        return (package / MODEL_MAP_FILE).read_text(encoding="utf-8")
    except (OSError, ValueError):
        return None


@lru_cache(maxsize=1)
def model_map() -> dict[str, Any]:
    """litellm's bundled model map (context windows and prices), read as plain JSON (parsed
    once) without importing litellm; {} when litellm or the file is not there."""
    try:
        data = json.loads(_model_map_text() or "{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


_MISSING = object()


@lru_cache(maxsize=1)
def _plainly_keyed_map() -> str | None:
    """The map's text when it is litellm's ``json.dump(indent=4)`` with no escape in a
    top-level key, else None. In such a text a top-level key is exactly the text that
    starts a line with four spaces and a quote (strings hold no raw newline; nested keys are
    indented further), spelled as ``json.dumps`` spells the name, so a name is found, or
    known to be absent, by a search of the text instead of parsing all of it."""
    text = _model_map_text()
    if not text or not text.startswith('{\n    "') or _ESCAPED_KEY.search(text):
        return None
    return text


_ESCAPED_KEY = re.compile(r'\n    "[^"\n]*\\')


def _model_map_entry(name: str) -> Any:
    """The map's entry for ``name`` (None when absent), without parsing the whole map (which
    is on the app's first-screen path) when its text allows; _MISSING when it does not."""
    if model_map.cache_info().currsize:  # parsed already: a dict lookup
        return model_map().get(name)
    text = _plainly_keyed_map()
    if text is None:
        return _MISSING
    for spelling in {json.dumps(name), json.dumps(name, ensure_ascii=False)}:
        at = text.rfind(f"\n    {spelling}: ")  # the last wins, as in json.loads
        if at != -1:
            try:
                return json.JSONDecoder().raw_decode(text, at + len(spelling) + 7)[0]
            except ValueError:
                return _MISSING
    return None


def _limit_of(entry: Any) -> int | None:
    if not isinstance(entry, dict):
        return None
    for key in ("max_input_tokens", "max_tokens"):
        value = entry.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def model_map_names(model: str, provider: str | None = None) -> list[str]:
    """The names ``model`` is looked up by in litellm's map, in order."""
    names = [model]
    if provider and not model.startswith(f"{provider}/"):
        names.append(f"{provider}/{model}")
    rest = model
    while "/" in rest:
        rest = rest.split("/", 1)[1]
        names.append(rest)
    return names


def model_map_limit(model: str, provider: str | None = None) -> int | None:
    """The window of ``model`` in litellm's map: exact name, then with the session's provider
    in front, then with provider prefixes stripped one at a time."""
    for candidate in model_map_names(model, provider):
        entry = _model_map_entry(candidate)
        if entry is _MISSING:  # a text the quick read cannot trust: parse it
            entry = model_map().get(candidate)
        if (limit := _limit_of(entry)) is not None:
            return limit
    return None


def context_window(
    session: Session, model: str | None = None, context_limit: int | None = None
) -> tuple[int, LimitSource]:
    """--context-limit (an explicit choice), else the session's own model config (when the
    model is the session's), else litellm's map, else DEFAULT_CONTEXT_LIMIT, "assumed"."""
    if context_limit is not None and context_limit > 0:
        return context_limit, "cli"
    same_model = model is None or model == session.model_name
    own = session.model_config_.context_limit
    if same_model and own is not None and own > 0:
        return own, "session"
    name = model or session.model_name
    if name:
        limit = model_map_limit(name, session.provider_name)
        if limit is not None:
            return limit, "model-map"
    return DEFAULT_CONTEXT_LIMIT, "assumed"


def context_usage(
    session: Session,
    *,
    context_limit: int | None = None,
    threshold: float | None = None,
    counter: TokenCounter | None = None,
    estimated: int | None = None,
) -> ContextUsage:
    """The session against its own window, as Goose measures it: the model that would write
    a summary has no say in when Goose compacts (``RequestFit`` is its question).
    ``estimated``: the history's estimate, when the caller has summed it already."""
    limit, limit_source = context_window(session, context_limit=context_limit)
    reported = session.usage.total_tokens
    if reported is not None:
        used, used_source = reported, "reported"
    else:
        if estimated is None:
            estimated = (counter or TokenCounter()).total(session.messages)
        used, used_source = estimated, "estimated"
    return ContextUsage(
        used=used,
        used_source=used_source,
        limit=limit,
        limit_source=limit_source,
        threshold=resolve_threshold(threshold),
        model=session.model_name,
    )


class RequestFit(BaseModel):
    """Whether a compaction request fits the summarizer's own window: a request over it
    fails, or Goose's ladder removes tool responses until it fits."""

    model: str
    request_tokens: int = Field(description="the request, estimated (o200k_base)")
    window: int | None = Field(description="the model's window; null when none is known")
    window_source: WindowSource | None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def fits(self) -> bool | None:
        return None if self.window is None else self.request_tokens <= self.window

    def verdict(self) -> str:
        """As the status line says it, where the request's tokens are said already."""
        if self.window is None:
            return "fit unknown (its window is not in litellm's model map)"
        return f"{'fits' if self.fits else 'OVER'} its {self.window:,}-token window"

    def text(self) -> str:
        """As ``usage`` says it, after the model's name."""
        return f"request {self.request_tokens:,} tokens: {self.verdict()}"
