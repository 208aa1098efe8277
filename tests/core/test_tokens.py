"""docs/pipeline.md §8: the offline tokenizer, Goose's per-message estimate, the counter cache, the
context window, the threshold and when compaction is due."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from goose_tui import tokens
from goose_tui.session.models import Message, ModelConfig, Session, Usage
from goose_tui.tokens import (
    DEFAULT_CONTEXT_LIMIT,
    DEFAULT_THRESHOLD,
    ContextUsage,
    TokenCounter,
    context_usage,
    context_window,
    count_tokens,
    message_tokens,
    resolve_threshold,
)


def raw(text: str) -> int:
    """The reference count: tiktoken's own o200k_base, encoding special tokens as Goose does."""
    return len(tokens.encoder().encode(text, allowed_special="all"))


def text_message(text: str, role: str = "user", **kwargs: Any) -> Message:
    return Message(role=role, content=[{"type": "text", "text": text}], **kwargs)


def tool_request(call_id: str, name: str, arguments: Any) -> dict[str, Any]:
    return {
        "type": "toolRequest",
        "id": call_id,
        "toolCall": {"status": "success", "value": {"name": name, "arguments": arguments}},
    }


def tool_response(call_id: str, *texts: str, image: bool = False) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": t} for t in texts]
    if image:
        content.insert(0, {"type": "image", "data": "AAAA", "mimeType": "image/png"})
    return {
        "type": "toolResponse",
        "id": call_id,
        "toolResult": {"status": "success", "value": {"content": content, "isError": False}},
    }


# --- the tokenizer --------------------------------------------------------------------------


def test_encoder_is_o200k_base_as_tiktoken_defines_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import tiktoken_ext.openai_public as public

    # Ask tiktoken's own definition for its pattern and special tokens, without its download.
    monkeypatch.setattr(public, "load_tiktoken_bpe", lambda *args, **kwargs: {})
    definition = public.o200k_base()
    encoding = tokens.encoder()
    assert encoding.name == "o200k_base"
    assert encoding._pat_str == definition["pat_str"]
    assert encoding._special_tokens == definition["special_tokens"]
    assert encoding.n_vocab == 200019
    # Known o200k_base ids (its first merges and a common word).
    assert encoding.encode("hello world") == [24912, 2375]


@pytest.fixture(scope="module")
def tiktokens_ranks() -> dict[bytes, int]:
    """tiktoken's own reader's map of the o200k_base file, which parses every line. An empty
    cache dir tells tiktoken not to cache the file."""
    from tiktoken.load import load_tiktoken_bpe

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TIKTOKEN_CACHE_DIR", "")
        return load_tiktoken_bpe(str(tokens.o200k_path()), tokens.O200K_SHA256)


# The file a step at a time (the default), in many small steps (a step's end lands inside a
# line and moves to its end), and in one step.
@pytest.mark.slow  # tiktoken parses its 200,000-line file
@pytest.mark.parametrize("step", [tokens.RANKS_STEP_BYTES, 1_000, 1 << 30])
def test_o200k_ranks_are_tiktokens_own_parse_of_the_file(
    monkeypatch: pytest.MonkeyPatch, step: int, tiktokens_ranks: dict[bytes, int]
) -> None:
    # Our loader numbers the tokens by line instead of parsing each rank.
    monkeypatch.setattr(tokens, "RANKS_STEP_BYTES", step)
    assert list(tokens.o200k_ranks().items()) == list(tiktokens_ranks.items())


@pytest.mark.slow  # tiktoken parses its 200,000-line file
def test_the_encoder_encodes_as_one_built_from_tiktokens_parse(
    tiktokens_ranks: dict[bytes, int],
) -> None:
    # The encoder was built from our map (it lets go of the map once built).
    import tiktoken

    reference = tiktoken.Encoding(
        "o200k_reference",
        pat_str=tokens.O200K_PATTERN,
        mergeable_ranks=tiktokens_ranks,
        special_tokens=tokens.O200K_SPECIAL_TOKENS,
    )
    sample = "héllo wörld 🙂 <|endoftext|> 12345 don't 中文 " * 20
    mine = tokens.encoder().encode(sample, allowed_special="all")
    assert mine == reference.encode(sample, allowed_special="all")


def test_count_tokens_counts_special_tokens_as_one(monkeypatch: pytest.MonkeyPatch) -> None:
    assert count_tokens("") == 0
    assert count_tokens("<|endoftext|>") == 1
    assert count_tokens("a <|endofprompt|> b") == raw("a <|endofprompt|> b")
    monkeypatch.setattr(socket.socket, "connect", lambda *a: pytest.fail("network used"))
    assert count_tokens("ünïcödé and emoji 🐍") == raw("ünïcödé and emoji 🐍")


# --- Goose's per-message estimate -----------------------------------------------------------


def test_text_message_is_four_plus_its_text() -> None:
    assert message_tokens(text_message("The quick brown fox")) == 4 + raw("The quick brown fox")
    assert message_tokens(Message(role="user", content=[])) == 4


def test_tool_request_counts_id_name_and_compact_arguments() -> None:
    message = Message(
        role="assistant",
        content=[
            {"type": "text", "text": "Let me look."},
            tool_request("call_1", "developer__shell", {"command": "ls -la", "n": [1, 2]}),
        ],
    )
    expected = raw("Let me look.") + raw('call_1:developer__shell:{"command":"ls -la","n":[1,2]}')
    assert message_tokens(message) == 4 + expected


def test_tool_response_texts_join_with_newline_and_images_count_nothing() -> None:
    message = Message(role="user", content=[tool_response("c", "line one", "line two", image=True)])
    assert message_tokens(message) == 4 + raw("line one\nline two")


@pytest.mark.parametrize(
    "item",
    [
        {"type": "image", "data": "A" * 4000, "mimeType": "image/png"},
        {"type": "thinking", "thinking": "a long private thought " * 50, "signature": "s"},
        {"type": "redactedThinking", "data": "xyz"},
        {"type": "toolRequest", "id": "c", "toolCall": {"status": "error", "error": "bad"}},
        {"type": "toolResponse", "id": "c", "toolResult": {"status": "error", "error": "x"}},
        tool_response("c", image=True),
        {"type": "systemNotification", "notificationType": "x", "msg": "compacted"},
        {"type": "unknownThing", "text": "not counted"},
    ],
)
def test_items_goose_does_not_count(item: dict[str, Any]) -> None:
    assert message_tokens(Message(role="user", content=[item])) == 4


def test_bare_list_tool_result_counts_too() -> None:
    item = {
        "type": "toolResponse",
        "id": "c",
        "toolResult": {"status": "success", "value": [{"type": "text", "text": "old shape"}]},
    }
    assert message_tokens(Message(role="user", content=[item])) == 4 + raw("old shape")


def test_total_adds_the_reply_primer_per_agent_visible_message() -> None:
    visible = [text_message("first"), text_message("second", role="assistant")]
    hidden = Message(
        role="user",
        content=[{"type": "text", "text": "only the user sees this"}],
        metadata={"agentVisible": False, "userVisible": True},
    )
    counter = TokenCounter()
    expected = sum(message_tokens(m) + 3 for m in visible)
    assert counter.total([*visible, hidden]) == expected
    assert counter.total([]) == 0


# --- the counter cache -------------------------------------------------------------------------


def test_only_the_edited_message_is_recounted(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []
    real = tokens.count_tokens

    def spy(text: str, **stop: Any) -> int:
        seen.append(text)
        return real(text, **stop)

    monkeypatch.setattr(tokens, "count_tokens", spy)
    history = [text_message(f"message number {i}", id=f"m{i}") for i in range(50)]
    counter = TokenCounter()
    first = counter.total(history)
    assert len(seen) == 50 and counter.recounted == 50

    seen.clear()
    assert counter.total(history) == first
    assert seen == []

    history[17].content[0]["text"] = "message number 17, now edited to be longer"
    second = counter.total(history)
    assert seen == ["message number 17, now edited to be longer"]
    assert second == first - raw("message number 17") + raw(history[17].content[0]["text"])

    # Messages without an id are keyed by identity; a copy with other text is its own entry.
    seen.clear()
    anonymous = text_message("no id here")
    counter.count(anonymous)
    counter.count(anonymous)
    assert seen == ["no id here"]


def test_counter_never_confuses_two_messages_with_the_same_id() -> None:
    counter = TokenCounter()
    a = text_message("short", id="dup")
    b = text_message("a much longer text than the other one", id="dup")
    assert counter.count(a) == message_tokens(a)
    assert counter.count(b) == message_tokens(b)


# --- the context window ---------------------------------------------------------------------------


def session(**kwargs: Any) -> Session:
    return Session(**kwargs)


def test_cli_limit_wins_over_everything() -> None:
    s = session(model_config=ModelConfig(model_name="gpt-4o", context_limit=50_000))
    assert context_window(s, context_limit=32_000) == (32_000, "cli")


def test_session_limit_then_model_map_then_assumed() -> None:
    own = session(model_config=ModelConfig(model_name="gpt-4o", context_limit=50_000))
    assert context_window(own) == (50_000, "session")
    mapped = session(model_config=ModelConfig(model_name="gpt-4o"))
    assert context_window(mapped) == (128_000, "model-map")
    unknown = session(model_config=ModelConfig(model_name="llama3.2:3b"))
    assert context_window(unknown) == (DEFAULT_CONTEXT_LIMIT, "assumed")
    assert context_window(session()) == (DEFAULT_CONTEXT_LIMIT, "assumed")


def test_model_map_lookup_strips_and_adds_provider_prefixes() -> None:
    table = tokens.model_map()
    assert table["gpt-4o"]["max_input_tokens"] == 128_000
    assert context_window(session(), model="openai/gpt-4o") == (128_000, "model-map")
    assert context_window(session(), model="someproxy/openai/gpt-4o") == (128_000, "model-map")
    claude = next(k for k, v in table.items() if k.startswith("claude-") and tokens._limit_of(v))
    by_provider = session(provider_name="anthropic", model_config=ModelConfig(model_name=claude))
    assert context_window(by_provider)[1] == "model-map"


def _full_parse_limit(model: str, provider: str | None = None) -> int | None:
    """model_map_limit's rule over the fully parsed map: the reference of the quick read."""
    table = tokens.model_map()
    for candidate in tokens.model_map_names(model, provider):
        if (limit := tokens._limit_of(table.get(candidate))) is not None:
            return limit
    return None


def _fresh_map_caches() -> None:
    for cached in (tokens._model_map_text, tokens._plainly_keyed_map, tokens.model_map):
        cached.cache_clear()


def test_a_models_window_is_read_without_parsing_the_whole_map() -> None:
    # The 3.5 MB parse was ~30 ms of the app's first screen, for one entry.
    _fresh_map_caches()
    try:
        assert context_window(session(), model="openai/gpt-4o") == (128_000, "model-map")
        assert context_window(session(), model="no-such-model") == (
            DEFAULT_CONTEXT_LIMIT,
            "assumed",
        )
        assert tokens.model_map.cache_info().misses == 0
    finally:
        _fresh_map_caches()


def test_the_quick_read_of_the_map_agrees_with_parsing_it() -> None:
    import random

    _fresh_map_caches()
    names = sorted(tokens.model_map())
    sample = random.Random(12).sample(names, 150)
    tried = [*sample, *(f"openai/{n}" for n in sample[:30]), "nope", "x/nope", 'a"b', "é"]
    expected = {name: _full_parse_limit(name, "anthropic") for name in tried}
    _fresh_map_caches()  # the quick read runs only while the map is not parsed
    try:
        got = {name: tokens.model_map_limit(name, "anthropic") for name in tried}
        assert tokens.model_map.cache_info().misses == 0
        assert got == expected
    finally:
        _fresh_map_caches()


@pytest.mark.parametrize(
    "text",
    [
        '{"m": {"max_tokens": 5}}',  # not indented: the quick read does not apply
        '{\n    "m\\u0078": {"max_tokens": 5},\n    "mx": {"max_tokens": 7}\n}',  # escaped key
    ],
)
def test_a_map_the_quick_read_cannot_trust_is_parsed(monkeypatch, text: str) -> None:
    import json

    _fresh_map_caches()
    monkeypatch.setattr(tokens, "_model_map_text", lambda: text)
    tokens._plainly_keyed_map.cache_clear()
    try:
        table = json.loads(text)
        for name in ("m", "mx", "absent"):
            assert tokens.model_map_limit(name) == tokens._limit_of(table.get(name))
    finally:
        monkeypatch.undo()
        _fresh_map_caches()


def test_model_map_prefers_max_input_tokens_then_max_tokens() -> None:
    assert tokens._limit_of({"max_input_tokens": 10, "max_tokens": 20}) == 10
    assert tokens._limit_of({"max_tokens": 20}) == 20
    assert tokens._limit_of({"max_input_tokens": "lots", "max_tokens": 7}) == 7
    assert tokens._limit_of({"max_input_tokens": 0}) is None
    assert tokens._limit_of("not an entry") is None


def test_another_model_ignores_the_sessions_own_limit() -> None:
    s = session(model_config=ModelConfig(model_name="llama3.2:3b", context_limit=8_192))
    assert context_window(s, model="gpt-4o") == (128_000, "model-map")
    assert context_window(s, model="llama3.2:3b") == (8_192, "session")


def test_model_map_is_parsed_once() -> None:
    tokens.model_map()
    before = tokens.model_map.cache_info().misses
    for _ in range(3):
        context_window(session(), model="gpt-4o")
    assert tokens.model_map.cache_info().misses == before


# --- the threshold --------------------------------------------------------------------------------


def test_threshold_cli_then_env_then_default(monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_threshold() == DEFAULT_THRESHOLD == 0.8
    monkeypatch.setenv("GOOSE_AUTO_COMPACT_THRESHOLD", "0.6")
    assert resolve_threshold() == 0.6
    assert resolve_threshold(0.9) == 0.9
    assert resolve_threshold(0.0) == 0.0


@pytest.mark.parametrize("value", ["", "eighty", "0.8.1", "nan", "inf"])
def test_invalid_env_threshold_is_ignored(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("GOOSE_AUTO_COMPACT_THRESHOLD", value)
    assert resolve_threshold() == DEFAULT_THRESHOLD


def usage(used: int, limit: int, threshold: float) -> ContextUsage:
    return ContextUsage(
        used=used,
        used_source="reported",
        limit=limit,
        limit_source="cli",
        threshold=threshold,
        model=None,
    )


@pytest.mark.parametrize(
    ("used", "limit", "threshold", "due"),
    [
        (80, 100, 0.8, False),  # exactly at the threshold: not due (strictly greater)
        (81, 100, 0.8, True),
        (79, 100, 0.8, False),
        (100, 100, 1.0, False),  # t = 1 disables auto compaction
        (150, 100, 1.0, False),
        (50, 100, 0.0, False),  # t = 0 disables it too
        (50, 100, -0.5, False),
        (50, 100, 1.5, False),
        (2, 100, 0.01, True),
        (1, 100, 0.01, False),
    ],
)
def test_compaction_due_is_strict_and_only_for_0_lt_t_lt_1(
    used: int, limit: int, threshold: float, due: bool
) -> None:
    u = usage(used, limit, threshold)
    assert u.compaction_due is due
    assert u.auto_compact_enabled is (0 < threshold < 1)
    assert u.fraction == used / limit


# --- context usage --------------------------------------------------------------------------------


def test_usage_prefers_the_reported_total() -> None:
    s = session(
        usage=Usage(total_tokens=110_000),
        model_config=ModelConfig(model_name="gpt-4o"),
        messages=[text_message("hi")],
    )
    u = context_usage(s)
    assert (u.used, u.used_source, u.limit, u.limit_source) == (
        110_000,
        "reported",
        128_000,
        "model-map",
    )
    assert u.model == "gpt-4o"
    assert u.compaction_due  # 110000 / 128000 = 0.859 > 0.8
    assert not context_usage(s, threshold=0.9).compaction_due


def test_reported_zero_is_still_reported() -> None:
    u = context_usage(session(usage=Usage(total_tokens=0), messages=[text_message("hi")]))
    assert (u.used, u.used_source) == (0, "reported")


def test_usage_estimates_when_nothing_was_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOSE_AUTO_COMPACT_THRESHOLD", "0.5")
    history = [
        text_message("please run the tests"),
        Message(role="assistant", content=[tool_request("c1", "shell", {"command": "pytest"})]),
        Message(role="user", content=[tool_response("c1", "1 failed, 3 passed")]),
    ]
    counter = TokenCounter()
    u = context_usage(session(messages=history), context_limit=40, counter=counter)
    assert u.used_source == "estimated"
    assert u.used == sum(message_tokens(m) + 3 for m in history)
    assert (u.limit, u.limit_source, u.threshold) == (40, "cli", 0.5)
    assert u.compaction_due is (u.used / 40 > 0.5)
    assert counter.recounted == 3


def test_real_goose_export_reports_its_usage() -> None:
    from tests.conftest import REALDATA

    path = REALDATA / "export-session.json"
    import json

    data = json.loads(path.read_text())
    s = Session.model_validate({**data, "messages": data["conversation"]})
    u = context_usage(s)
    assert (u.used, u.used_source) == (1604, "reported")
    assert (u.limit_source, u.model) == ("assumed", "llama3.2:3b")
    estimate = TokenCounter().total(s.messages)
    assert estimate > 0


def test_a_stoppable_count_goes_by_parts_and_can_be_given_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A template's 58 MB summary was one 12 s count that quitting the app waited for: with
    # ``stop`` a long text is counted a part at a time, ``stop`` asked between parts.
    monkeypatch.setattr(tokens, "STOPPABLE_PART_CHARS", 1_000)
    text = "the VAT rounding rule, kept: <|endoftext|> 12.5% \n\n  of 1,234.50 € " * 200
    asked: list[int] = []

    def go_on() -> bool:
        asked.append(1)
        return False

    assert tokens.count_tokens(text, stop=go_on) == tokens.count_tokens(text)
    assert len(asked) >= 10
    with pytest.raises(tokens.CountStopped):
        tokens.count_tokens(text, stop=lambda: True)
    counter = TokenCounter()
    with pytest.raises(tokens.CountStopped):
        counter.total([text_message(text, id="s")], stop=lambda: True)
    assert counter.total([text_message(text, id="s")]) == counter.total(
        [text_message(text, id="s")], stop=go_on
    )
