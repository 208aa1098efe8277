"""Fake API keys for the tests that prove keys never leave the process except in the request
to the model, and the server replies that echo them back in their error text, as some
providers do."""

from __future__ import annotations

import pytest

from tests.loopback import Reply

OPENAI_KEY = "sk-test-OPENAIFAKE-7f3e9a1c5b2d4e6f8a0b"
ANTHROPIC_KEY = "sk-ant-test-ANTHROPICFAKE-1a2b3c4d5e6f"
KEYS = (OPENAI_KEY, ANTHROPIC_KEY)
# Pieces long enough to identify a key, in case something printed it cut or wrapped.
FRAGMENTS = ("OPENAIFAKE-7f3e9a1c", "ANTHROPICFAKE-1a2b")
MODEL = "openai/gpt-4o-mini"

REPLY = '<analysis>done</analysis>\n```json\n{"user_intent": ["ship the fix"]}\n```'
REPLIES = {
    "401": Reply.http_error(
        401, f"Incorrect API key provided: {OPENAI_KEY}.", code="invalid_api_key"
    ),
    "500": Reply.http_error(
        500, f"upstream failed for keys {OPENAI_KEY} and {ANTHROPIC_KEY}", err_type="server_error"
    ),
    "ok": Reply.ok(REPLY),
}


def assert_no_key(*texts: str) -> None:
    for text in texts:
        for secret in KEYS + FRAGMENTS:
            assert secret not in text


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both provider keys set to the fake ones, for the test."""
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
