"""The context broken down by kind of content (issue 14): exact against Goose's estimate."""

from __future__ import annotations

import json
from pathlib import Path

from goose_tui.analysis.breakdown import context_breakdown, format_breakdown, message_parts
from goose_tui.session.loader import load_session
from goose_tui.tokens import REPLY_PRIMER, TokenCounter, count_tokens, message_tokens
from tests.conftest import REALDATA, SAMPLES

LONG = SAMPLES / "long_session.jsonl"


def test_categories_add_up_to_goose_estimate_of_the_messages() -> None:
    session = load_session(LONG)
    breakdown = context_breakdown(session)
    assert breakdown.messages_total == TokenCounter().total(session.messages)
    assert breakdown.total == breakdown.messages_total  # no system prompt recorded
    in_context = [c for c in breakdown.categories if c.category != "hidden"]
    assert sum(c.tokens for c in in_context) == breakdown.total
    assert abs(sum(c.share for c in in_context) - 1.0) < 1e-9
    for message in session.messages:
        assert sum(message_parts(message).values()) == message_tokens(message) + REPLY_PRIMER


def test_each_category_lists_the_messages_it_comes_from() -> None:
    session = load_session(LONG)
    breakdown = context_breakdown(session)
    output = breakdown.category("tool_output")
    assert output.messages == [i for i, m in enumerate(session.messages) if m.has_tool_response()]
    assert output.tokens > breakdown.category("user_text").tokens
    users = breakdown.category("user_text").messages
    assert all(session.messages[i].role == "user" for i in users)
    assert not breakdown.category("system_prompt").recorded


def test_ten_heaviest_messages_in_order() -> None:
    session = load_session(LONG)
    breakdown = context_breakdown(session)
    sizes = [message_tokens(m) + REPLY_PRIMER for m in session.messages]
    assert len(breakdown.heaviest) == 10
    assert [h.tokens for h in breakdown.heaviest] == sorted(sizes, reverse=True)[:10]
    top = breakdown.heaviest[0]
    assert sizes[top.index] == max(sizes) and top.category == "tool_output"
    assert top.preview.startswith("tool output: ")


def test_system_prompt_and_hidden_messages(tmp_path: Path) -> None:
    chat = tmp_path / "chat.json"
    system = "You are a careful coding agent. Never delete files."
    chat.write_text(
        json.dumps(
            [
                {"role": "system", "content": system},
                {"role": "user", "content": "hello there"},
                {"role": "assistant", "content": "hi, what shall we build?"},
            ]
        ),
        encoding="utf-8",
    )
    session = load_session(chat)
    session.messages[0].metadata.agent_visible = False
    breakdown = context_breakdown(session)
    assert breakdown.category("system_prompt").recorded
    assert breakdown.category("system_prompt").tokens == count_tokens(system)
    hidden = breakdown.category("hidden")
    assert hidden.messages == [0]
    assert hidden.tokens == message_tokens(session.messages[0]) + REPLY_PRIMER
    assert breakdown.category("user_text").tokens == 0  # the only user message is hidden
    assert breakdown.total == count_tokens(system) + TokenCounter().total(session.messages)
    assert breakdown.heaviest[1].hidden or breakdown.heaviest[0].hidden
    # Not sent, so no share of the context: a walk-through found "hidden messages (not sent)
    # 14,032 595.6%" and hidden heavy messages at 77.7% of a context they are not in.
    assert hidden.share is None
    assert all((h.share is None) == h.hidden for h in breakdown.heaviest)
    line = next(x for x in format_breakdown(breakdown) if x.startswith("hidden messages"))
    assert "%" not in line and "not sent" in line
    assert not any("%" in x for x in format_breakdown(breakdown) if "(hidden)" in x)


def test_usage_prints_and_records_the_breakdown(cli) -> None:
    out = cli("usage", str(REALDATA / "export-text.json"))
    assert out.returncode == 0, out.stderr
    assert "assistant text" in out.stdout and "the 2 heaviest messages" in out.stdout
    assert "reported by the session: 4,040 tokens" in out.stdout
    data = json.loads(cli("usage", str(LONG), "--json").stdout)
    breakdown = data["breakdown"]
    assert breakdown["total"] == data["used"]  # LONG reports nothing: used is this estimate
    labels = [c["category"] for c in breakdown["categories"]]
    assert labels[:2] == ["system_prompt", "tool_schemas"] and "tool_output" in labels
    assert len(breakdown["heaviest"]) == 10
