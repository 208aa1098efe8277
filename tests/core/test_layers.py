"""The pieces that moved down a layer so dependencies point one way (README, Development):
session/serde.py and session/content.py (used by tokens, compaction and analysis), and the
prompt layout that compaction hands to the offline summarizer (llm/prompt_layout.py)."""

from __future__ import annotations

from typing import Any

import pytest

from goose_tui.compaction.summarize import build_request
from goose_tui.compaction.templates import (
    FOCUS_HEADING,
    builtin_prompt_layout,
    load_templates,
    render_compaction_prompt,
)
from goose_tui.llm import prompt_layout
from goose_tui.llm.offline import conversation_text
from goose_tui.session.content import ok_value, tool_response_texts, tool_result_contents
from goose_tui.session.models import Message
from goose_tui.session.serde import JsonValueError, compact_json, format_float, serde_number


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ({"a": 1, "b": "é"}, '{"a":1,"b":"é"}'),
        ({"x": 1e-5, "y": [1.0, 1e16]}, '{"x":0.00001,"y":[1.0,1e+16]}'),
        (2**70, "1.1805916207174113e+21"),
        ([True, None, -(2**63)], "[true,null,-9223372036854775808]"),
    ],
)
def test_compact_json_writes_as_serde_json(value: Any, text: str) -> None:
    assert compact_json(value) == text


@pytest.mark.parametrize("value", [float("nan"), {"k": float("inf")}, [object()]])
def test_compact_json_refuses_what_serde_cannot_write(value: Any) -> None:
    with pytest.raises((TypeError, ValueError)):
        compact_json(value)


@pytest.mark.parametrize(
    ("literal", "value"),
    [
        ("18446744073709551615", 2**64 - 1),
        ("-9223372036854775808", -(2**63)),
        ("1.5e-300", 1.4999999999999998e-300),
        ("1e400x", None),
    ],
)
def test_serde_number(literal: str, value: float | None) -> None:
    if value is None:
        with pytest.raises(JsonValueError):
            serde_number(literal)
    else:
        assert serde_number(literal) == value


def test_format_float() -> None:
    assert [format_float(v) for v in (1000.0, 1e-5, 1e-6, -0.0)] == [
        "1000.0",
        "0.00001",
        "1e-6",
        "-0.0",
    ]


def response(result: Any) -> dict[str, Any]:
    return {"type": "toolResponse", "id": "1", "toolResult": result}


@pytest.mark.parametrize(
    ("result", "texts"),
    [
        ({"status": "success", "value": {"content": [{"type": "text", "text": "ok"}]}}, ["ok"]),
        ({"status": "success", "value": [{"type": "text", "text": "bare"}]}, ["bare"]),
        ({"value": [{"type": "image", "data": ""}, {"type": "text", "text": 3}]}, []),
        ({"status": "error", "error": "boom"}, None),
        ("not a result", None),
    ],
)
def test_tool_response_texts(result: Any, texts: list[str] | None) -> None:
    assert tool_response_texts(response(result)) == texts


def test_ok_value_and_contents() -> None:
    assert ok_value({"value": 1}) == (True, 1)
    assert ok_value({"value": 1, "error": "x"}) == (False, None)
    assert tool_result_contents({"content": "no list"}) == []


def messages() -> list[Message]:
    return [
        Message(role="user", content=[{"type": "text", "text": "Fix calc.py"}]),
        Message(role="assistant", content=[{"type": "text", "text": "Done."}]),
    ]


def test_the_layout_frames_the_builtin_prompt() -> None:
    layout = builtin_prompt_layout()
    assert layout.focus_heading == FOCUS_HEADING
    prompt = render_compaction_prompt(load_templates(None), "[user]: hi")
    assert prompt == f"{layout.prefix}[user]: hi{layout.suffix}"


@pytest.fixture
def no_layout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prompt_layout, "_layout_source", None)
    monkeypatch.setattr(prompt_layout, "_layout_cache", [])


def test_the_offline_summarizer_reads_the_conversation_through_the_layout() -> None:
    request = build_request(messages(), load_templates(None), focus="the tests")
    assert conversation_text(request.system_prompt) == "[user]: Fix calc.py\n[assistant]: Done."


def test_without_a_layout_the_conversation_is_found_by_its_lines(no_layout: None) -> None:
    request = build_request(messages(), load_templates(None))
    text = conversation_text(request.system_prompt)
    assert text.startswith("[user]: Fix calc.py\n[assistant]: Done.")
    assert "## How to answer" in text  # the template's tail is not cut off without it


def test_the_layout_is_built_once() -> None:
    calls: list[int] = []

    def source() -> prompt_layout.PromptLayout:
        calls.append(1)
        return builtin_prompt_layout()

    prompt_layout.use_prompt_layout(source)
    try:
        assert prompt_layout.prompt_layout() == prompt_layout.prompt_layout()
        assert calls == [1]
    finally:
        prompt_layout.use_prompt_layout(builtin_prompt_layout)
