"""API keys kept out of what goose-tui prints and what it writes.

Printed text (errors, a worker's stderr) loses every key the process knows and anything shaped
like a key (``scrub_secrets``). Written text (summaries, saved sessions, reports, caches: all
of ``files.atomic_write_text``) loses the keys the process knows only, each replaced by
``KEY_REMOVED`` so the file says so (``remove_known_keys``): a key-shaped string in a user's
own conversation is their data, while a key this process holds can only have come back from
a server that echoed the request."""

from __future__ import annotations

import os
import re
import threading

# Things that look like credentials: provider key prefixes and bearer tokens, in any case.
_KEYLIKE = re.compile(
    r"((?i:sk)[-_][A-Za-z0-9_\-]{6,}|AIza[0-9A-Za-z_\-]{20,}"
    r"|(?i:bearer)\s+[A-Za-z0-9._\-]{8,}|(?i:api[_-]?key)[\"']?\s*[:=]\s*[\"']?[^\s\"',}]{6,})"
)
_KEY_ENV_SUFFIXES = ("_API_KEY", "_KEY", "_TOKEN", "_SECRET")
# A key echoed without its prefix ("sk-", "sk-proj-") is still the key when this much is left.
_MIN_KEY_BODY = 12
# A value this short in a key-named variable is not removed from written text, where it could
# be an ordinary word of the conversation.
_MIN_WRITTEN_KEY = 16
KEY_REMOVED = "[API key removed by goose-tui]"

_given_lock = threading.Lock()
_given: set[str] = set()  # keys passed to a summarizer (not from the environment)


def remember_key(key: str | None) -> None:
    """A key this process was given (a summarizer's ``api_key``): kept out of every output."""
    if key:
        with _given_lock:
            _given.add(key)


def _key_variants(secret: str) -> set[str]:
    """The key, and the key without each of its leading ``word-``/``word_`` prefixes."""
    variants = {secret}
    for separator in re.finditer(r"[-_]", secret[:24]):
        body = secret[separator.end() :]
        if len(body) >= _MIN_KEY_BODY:
            variants.add(body)
    return variants


def known_keys(extra: tuple[str, ...] = (), shortest: int = 6) -> list[str]:
    """The keys this process knows: ``extra``, the ones given to a summarizer and every
    key-named environment variable (the ones litellm reads end so) of ``shortest`` characters
    or more."""
    with _given_lock:
        given = list(_given)
    return [s for s in (*extra, *given) if s] + [
        value
        for name, value in os.environ.items()
        if name.upper().endswith(_KEY_ENV_SUFFIXES) and len(value) >= shortest
    ]


def _known_pattern(secrets: list[str]) -> re.Pattern[str] | None:
    variants = {variant for secret in secrets for variant in _key_variants(secret)}
    if not variants:
        return None
    ordered = sorted(variants, key=len, reverse=True)
    return re.compile("|".join(re.escape(v) for v in ordered), re.IGNORECASE)


def scrub_secrets(text: str, extra: tuple[str, ...] = ()) -> str:
    """Remove the configured key, any key-valued environment variable and key-looking strings,
    in any letter case and with or without the key's prefix."""
    pattern = _known_pattern(known_keys(extra))
    if pattern is not None:
        text = pattern.sub("***", text)
    return _KEYLIKE.sub("***", text)


def remove_known_keys(text: str) -> tuple[str, int]:
    """``text`` without the keys this process knows (any case, with or without their prefix),
    each replaced by ``KEY_REMOVED``; and how many were removed."""
    pattern = _known_pattern(known_keys(shortest=_MIN_WRITTEN_KEY))
    if pattern is None:
        return text, 0
    return pattern.subn(KEY_REMOVED, text)
