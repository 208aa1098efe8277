"""What fills the context window, by kind of content (Claude Code's ``/context``).

Each message's estimate (docs/pipeline.md §8, ``tokens.message_tokens``) is a sum over its items
plus a
fixed framing (4 per message and the 3-token reply primer), so it splits exactly: the text of
user messages, the text of assistant messages, tool requests, tool output, and the framing.
Messages that are not agent-visible are counted apart (``hidden``): Goose does not send
them, so they are not in the total. A system prompt and tool schemas are counted when the
session records them (a chat-message array with a ``system`` message records the prompt; no
Goose format records either, and the report says so).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel

from goose_tui.session.models import Message, Session, content_type
from goose_tui.session.serde import compact_json
from goose_tui.terminal import shorten
from goose_tui.tokens import REPLY_PRIMER, TOKENS_PER_MESSAGE, count_tokens, item_token_texts

Category = Literal[
    "system_prompt",
    "tool_schemas",
    "user_text",
    "assistant_text",
    "tool_requests",
    "tool_output",
    "framing",
    "hidden",
]
CATEGORY_LABELS: dict[Category, str] = {
    "system_prompt": "system prompt",
    "tool_schemas": "tool schemas",
    "user_text": "user text",
    "assistant_text": "assistant text",
    "tool_requests": "tool requests",
    "tool_output": "tool output",
    "framing": "message framing",
    "hidden": "hidden messages (not sent)",
}
HEAVIEST = 10
PREVIEW_CHARS = 80


class CategoryTokens(BaseModel):
    category: Category
    label: str
    tokens: int
    # Share of ``ContextBreakdown.total``; None for hidden messages, which are not in it.
    share: float | None
    # None: the session does not record this (system prompt, tool schemas).
    recorded: bool = True
    messages: list[int] = []  # 0-based indexes of the messages that have tokens in it


class HeavyMessage(BaseModel):
    index: int  # 0-based; shown as #index+1
    role: str
    tokens: int
    share: float | None  # of the total in context; None for a hidden message (not in it)
    category: Category  # what most of its tokens are
    hidden: bool
    preview: str


class ContextBreakdown(BaseModel):
    total: int  # what the categories in the context add up to (hidden excluded)
    messages_total: int  # the agent-visible messages alone: TokenCounter.total
    categories: list[CategoryTokens]
    heaviest: list[HeavyMessage]
    # The session's last reported total (input and output, as the provider counted them),
    # and how much of it the estimate does not see: the system prompt and tool schemas Goose
    # sent but does not store, and the estimate's own error.
    reported_total: int | None = None
    unaccounted: int | None = None

    def category(self, name: Category) -> CategoryTokens:
        return next(c for c in self.categories if c.category == name)

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def _item_category(role: str, kind: str) -> Category:
    if kind == "toolRequest":
        return "tool_requests"
    if kind == "toolResponse":
        return "tool_output"
    return "assistant_text" if role == "assistant" else "user_text"


def message_parts(message: Message) -> dict[Category, int]:
    """One message's estimate split by category; the values add up to
    ``message_tokens(message) + REPLY_PRIMER``."""
    parts: dict[Category, int] = {"framing": TOKENS_PER_MESSAGE + REPLY_PRIMER}
    for item in message.content:
        texts = item_token_texts(item)
        if not texts:
            continue
        category = _item_category(message.role, content_type(item))
        parts[category] = parts.get(category, 0) + sum(count_tokens(t) for t in texts)
    return parts


def _preview(message: Message) -> str:
    for item in message.content:
        kind = content_type(item)
        if kind == "text" and isinstance(item.get("text"), str) and item["text"].strip():
            text = item["text"]
        elif kind == "toolRequest":
            value = (item.get("toolCall") or {}).get("value")
            if not isinstance(value, dict):
                continue
            try:
                arguments = compact_json(value.get("arguments"))
            except (TypeError, ValueError):
                arguments = str(value.get("arguments"))
            text = f"tool call {value.get('name', '?')} {arguments}"
        elif kind == "toolResponse":
            texts = item_token_texts(item)
            text = "tool output: " + (texts[0] if texts else "")
        else:
            continue
        return shorten(text, PREVIEW_CHARS)
    return ""


def _recorded_text(session: Session, name: str) -> str | None:
    value = (session.model_extra or {}).get(name)
    if value is None:
        return None
    return value if isinstance(value, str) else compact_json(value)


def recorded_tokens(session: Session) -> dict[Category, int | None]:
    """The system prompt and tool schemas the session recorded, counted (None: not
    recorded). With the messages sent they make the breakdown's "total in context"."""
    prompt, tools = _recorded_text(session, "system_prompt"), _recorded_text(session, "tools")
    return {
        "system_prompt": None if prompt is None else count_tokens(prompt),
        "tool_schemas": None if tools is None else count_tokens(tools),
    }


def context_breakdown(
    session: Session, parts: Sequence[dict[Category, int]] | None = None
) -> ContextBreakdown:
    """The breakdown of ``session``; ``parts`` are ``message_parts`` of each message when the
    caller has them already."""
    messages = session.messages
    if parts is None:
        parts = [message_parts(m) for m in messages]
    tokens: dict[Category, int] = dict.fromkeys(CATEGORY_LABELS, 0)
    members: dict[Category, list[int]] = {c: [] for c in CATEGORY_LABELS}
    recorded: dict[Category, bool] = {}
    for name, count in recorded_tokens(session).items():
        recorded[name] = count is not None
        tokens[name] = count or 0
    for index, (message, split) in enumerate(zip(messages, parts, strict=True)):
        if not message.metadata.agent_visible:
            tokens["hidden"] += sum(split.values())
            members["hidden"].append(index)
            continue
        for category, count in split.items():
            tokens[category] += count
            if count and category != "framing":
                members[category].append(index)
    messages_total = (
        sum(tokens[c] for c in ("user_text", "assistant_text", "tool_requests", "tool_output"))
        + tokens["framing"]
    )
    total = messages_total + tokens["system_prompt"] + tokens["tool_schemas"]
    categories = [
        CategoryTokens(
            category=c,
            label=CATEGORY_LABELS[c],
            tokens=tokens[c],
            share=None if c == "hidden" else tokens[c] / total if total else 0.0,
            recorded=recorded.get(c, True),
            messages=members[c],
        )
        for c in CATEGORY_LABELS
    ]
    sizes = [sum(split.values()) for split in parts]
    hidden = [not m.metadata.agent_visible for m in messages]
    order = sorted(range(len(messages)), key=lambda i: (-sizes[i], i))[:HEAVIEST]
    heaviest = [
        HeavyMessage(
            index=i,
            role=messages[i].role,
            tokens=sizes[i],
            share=None if hidden[i] else sizes[i] / total if total else 0.0,
            category=max(
                (c for c in parts[i] if c != "framing"),
                key=lambda c: parts[i][c],
                default="framing",
            ),
            hidden=hidden[i],
            preview=_preview(messages[i]),
        )
        for i in order
    ]
    reported = session.usage.total_tokens
    return ContextBreakdown(
        total=total,
        messages_total=messages_total,
        categories=categories,
        heaviest=heaviest,
        reported_total=reported,
        unaccounted=reported - total if reported is not None else None,
    )


def share_text(share: float | None) -> str:
    """A share of the context as shown; a dash for what is not in the context."""
    return "—" if share is None else f"{share:.1%}"


def format_breakdown(breakdown: ContextBreakdown) -> list[str]:
    """The breakdown as aligned text lines (the ``usage`` command prints them)."""
    lines = [f"{'category':<28} {'tokens':>9} {'share':>6}  messages"]
    for c in breakdown.categories:
        if not c.recorded:
            lines.append(f"{c.label:<28} {'-':>9} {'':>6}  not recorded by this session")
            continue
        count = f"{len(c.messages):,}" if c.category not in ("framing",) else ""
        lines.append(f"{c.label:<28} {c.tokens:>9,} {share_text(c.share):>6}  {count}".rstrip())
    lines.append(f"{'total in context':<28} {breakdown.total:>9,} {'100%':>6}")
    if breakdown.reported_total is not None and breakdown.unaccounted is not None:
        lines.append(
            f"reported by the session: {breakdown.reported_total:,} tokens; "
            f"{breakdown.unaccounted:+,} not in the stored messages "
            "(the system prompt and tool schemas Goose sent, the reply, the estimate's error)"
        )
    lines.append("")
    lines.append(f"the {len(breakdown.heaviest)} heaviest messages")
    for h in breakdown.heaviest:
        note = " (hidden)" if h.hidden else ""
        lines.append(
            f"  #{h.index + 1:<5} {h.role:<9} {h.tokens:>8,} {share_text(h.share):>6}  "
            f"{CATEGORY_LABELS[h.category]:<14} {h.preview}{note}"
        )
    return lines
