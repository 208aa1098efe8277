"""Deterministic generators for the benchmark inputs, written at run time (never committed).

``write_big_jsonl`` writes a legacy Goose JSONL session shaped like a long coding session:
a metadata line, then rounds of user text, an assistant tool request, a user tool response
(mostly a few KB, every so often hundreds of KB, as a ``cat`` or a test log gives) and an
assistant reply. ``adversarial_reply`` and ``valid_json_document`` feed the extraction figure.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

# Mostly ASCII, as code and logs are; the rarer lines below add accents, CJK and emoji, and
# the quote/backslash/brace/fence words exercise JSON escaping and the markers extraction reads.
WORDS = (
    "error test file path build cargo python import module function return value the a of to "
    "in is that for with config session token context summary goose agent tool response "
    'request \\ " {} [] <tag> ```'
).split()
RARE = ((0.02, "résumé naïve"), (0.005, "日本語のテキスト"), (0.002, "done 🙂"))
# The same shares with every character in Latin-1: CPython then stores each string, and the
# prompt, at one byte per character (one 🙂 anywhere makes the whole prompt four).
RARE_LATIN1 = ((0.02, "résumé naïve"), (0.005, "Grüße aus Köln"), (0.002, "done :-)"))

MESSAGES_PER_ROUND = 4


def _prose(rng: random.Random, n_bytes: int, rare: tuple = RARE) -> str:
    """Word salad of about ``n_bytes`` UTF-8 bytes, with newlines like real tool output."""
    out: list[str] = []
    size = 0
    while size < n_bytes:
        line = " ".join(rng.choices(WORDS, k=rng.randint(4, 16)))
        for share, extra in rare:
            if rng.random() < share:
                line += " " + extra
        out.append(line)
        size += len(line.encode()) + 1
    return "\n".join(out)


def _meta(r: int) -> dict:
    # One round in 97 is hidden from the user (as Goose marks compaction bookkeeping).
    return {"userVisible": bool(r % 97), "agentVisible": True}


def _round(rng: random.Random, r: int, ts: int, tool_bytes: int, rare: tuple) -> list[dict]:
    call_id = f"call_{r:06d}"
    args = {"path": f"/src/module_{r % 300}.py", "command": "cat", "line": r}
    return [
        {
            "id": f"msg_u{r}",
            "role": "user",
            "created": ts,
            "content": [{"type": "text", "text": _prose(rng, rng.randint(40, 400), rare)}],
            "metadata": _meta(r),
        },
        {
            "id": f"msg_a{r}",
            "role": "assistant",
            "created": ts + 1,
            "content": [
                {"type": "thinking", "thinking": _prose(rng, 120, rare), "signature": "sig"},
                {
                    "type": "toolRequest",
                    "id": call_id,
                    "toolCall": {
                        "status": "success",
                        "value": {"name": "shell", "arguments": args},
                    },
                },
            ],
            "metadata": _meta(r),
        },
        {
            "id": f"msg_t{r}",
            "role": "user",
            "created": ts + 2,
            "content": [
                {
                    "type": "toolResponse",
                    "id": call_id,
                    "toolResult": {
                        "status": "success",
                        "value": {
                            "content": [{"type": "text", "text": _prose(rng, tool_bytes, rare)}],
                            "isError": False,
                        },
                    },
                }
            ],
            "metadata": _meta(r),
        },
        {
            "id": f"msg_r{r}",
            "role": "assistant",
            "created": ts + 3,
            "content": [{"type": "text", "text": _prose(rng, rng.randint(60, 600), rare)}],
            "metadata": _meta(r),
        },
    ]


def write_big_jsonl(
    path: Path, *, target_bytes: int, messages: int, seed: int = 5, rare: tuple = RARE
) -> Path:
    """Write the session; returns ``path``. Sizes are met approximately (±10%)."""
    rng = random.Random(seed)
    rounds = messages // MESSAGES_PER_ROUND
    # Non-tool messages take ~1.3 KB per round; the rest of the budget goes to tool output,
    # one round in 40 getting a 20x share (the big `cat`/log outputs).
    per_round_tool = max(target_bytes // rounds - 1300, 200)
    big_every, big_factor = 40, 20
    base_tool = per_round_tool * big_every // (big_every - 1 + big_factor)
    with path.open("w", encoding="utf-8") as f:
        meta = {
            "description": "benchmark session",
            "message_count": rounds * MESSAGES_PER_ROUND,
            "working_dir": "/src",
            "total_tokens": None,
        }
        f.write(json.dumps(meta) + "\n")
        for r in range(rounds):
            size = base_tool * (big_factor if r % big_every == big_every - 1 else 1)
            size = int(size * rng.uniform(0.5, 1.5))
            for message in _round(rng, r, 1_700_000_000 + 10 * r, size, rare):
                f.write(json.dumps(message, ensure_ascii=False) + "\n")
    return path


# Fragments that each trip a naive extractor: a cut point, a fence marker followed by an
# object that never closes, braces that never balance, a string hiding a terminator.
_ADVERSARIAL = (
    "</analysis>",
    "\n```json\n{",
    '```json {"user_intent": ["x", ',
    "{{{{",
    "}",
    '{"a": "</analysis> \\" {"',
    " plain words between markers ",
    "```json\n",
    "[[[",
)


def adversarial_reply(n_bytes: int, seed: int = 7) -> str:
    """A reply of about ``n_bytes``: a usable summary object at the very start (so a correct
    extractor must reject every later candidate before it finds it), then noise."""
    rng = random.Random(seed)
    head = json.dumps({"user_intent": ["benchmark"], "current_work": "measuring extraction"})
    parts = [head, "\n"]
    size = len(head) + 1
    while size < n_bytes:
        piece = rng.choice(_ADVERSARIAL)
        parts.append(piece)
        size += len(piece)
    return "".join(parts)


def dense_candidates_reply(n_bytes: int) -> str:
    """A reply of about ``n_bytes`` whose every ```json block holds a small object that parses
    but is not a summary (no field of the nine), after a usable object at the start: no
    pruning applies, each of the ~n/17 candidates must be parsed and rejected in turn."""
    head = json.dumps({"user_intent": ["benchmark"], "current_work": "measuring extraction"})
    block = '```json\n{"x": 1}\n'
    return head + "\n" + block * max((n_bytes - len(head)) // len(block), 1)


def valid_json_document(n_bytes: int, seed: int = 11) -> str:
    """A valid summary-shaped JSON document of about ``n_bytes``."""
    rng = random.Random(seed)
    items: list[str] = []
    size = 0
    while size < n_bytes:
        item = _prose(rng, 200)
        items.append(item)
        size += len(json.dumps(item)) + 2
    return json.dumps(
        {"user_intent": items[: len(items) // 2], "pending_tasks": items[len(items) // 2 :]}
    )
