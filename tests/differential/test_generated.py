"""Generated replies: seeded random splices of the pieces the candidate search of docs/pipeline.md
§6
keys on (analysis tags, json fences, braces, quotes, escapes, usable and unusable objects).
Deterministic, so a failure names a seed that reproduces it."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from goose_tui.compaction.summarize import finish
from goose_tui.compaction.templates import load_templates
from tests.differential.conftest import Script, ScriptedServer, run_reference
from tests.differential.corpus import SHORT, Case
from tests.summary_fields import SUMMARY_FIELDS

goose = pytest.importorskip(
    "goose", reason="goose-sdk (the reference wheel, module `goose`) is not installed"
)

PIECES = (
    "<analysis>",
    "</analysis>",
    "```json\n",
    "```json ",
    "\n```",
    "```",
    '{"user_intent": ["a"]}',
    '{"next_step": "</analysis>"}',
    '{"current_work": "```json {\\"x\\": 1}"}',
    '{"pending_tasks": []}',
    '{"files": "x.py", "extra": {"k": [1, null]}}',
    '{"user_intent": ["unterminated',
    "{",
    "}",
    '"',
    "\\",
    '\\"',
    "prose ",
    "\n",
    "  ",
    "[1, 2]",
)
SEEDS = range(20)
PER_SEED = 15


OBJECTS = tuple(p for p in PIECES if p.startswith("{") and p.endswith("}") and len(p) > 1)


def replies(seed: int) -> list[str]:
    """Half free splices, half a fenced object between two splices (the shape models write,
    with noise around it)."""
    rng = random.Random(seed)

    def noise() -> str:
        return "".join(rng.choices(PIECES, k=rng.randint(0, 5)))

    out = []
    for i in range(PER_SEED):
        if i % 2:
            out.append(noise() + "```json\n" + rng.choice(OBJECTS) + "\n```" + noise())
        else:
            out.append("".join(rng.choices(PIECES, k=rng.randint(1, 9))))
    return out


@pytest.mark.parametrize("seed", SEEDS)
def test_generated_replies_match_reference(
    seed: int, server: ScriptedServer, goose_prompts_dir: Path
) -> None:
    templates = load_templates(goose_prompts_dir)
    mismatches = []
    for reply in replies(seed):
        server.script = Script(reply=reply)
        reference = run_reference(server, Case("generated", SHORT, reply))
        ours = finish(reply, templates)[1]
        if ours != reference.text:
            mismatches.append((reply, reference.text, ours))
    assert mismatches == []


FIELDS = (*SUMMARY_FIELDS, "an_extra")
SCALARS = (
    "null",
    "true",
    "false",
    "0",
    "-0",
    "7",
    "1.50",
    "2e3",
    "1E-9",
    "1e21",
    "18446744073709551616",
    '""',
    '" "',
    '"x"',
    '"tab\\there"',
    '"\\u00e9\\ud83d\\ude80"',
    '"line\\nbreak "',
    '"{{ jinja }}"',
    '"```"',
)


def json_value(rng: random.Random, depth: int = 0) -> str:
    """JSON text written by hand, so number spellings reach the parser as written."""
    roll = rng.random()
    if depth >= 3 or roll < 0.5:
        return rng.choice(SCALARS)
    items = [json_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    if roll < 0.75:
        return "[" + ", ".join(items) + "]"
    keys = ("path", "summary", "key_code", "k", "path")  # repeated key: the last one wins
    pairs = [f'"{rng.choice(keys)}": {item}' for item in items]
    return "{" + ", ".join(pairs) + "}"


def summary_object(seed: int) -> str:
    rng = random.Random(seed)
    fields = rng.sample(FIELDS, rng.randint(1, 5))
    return "{" + ", ".join(f'"{f}": {json_value(rng)}' for f in fields) + "}"


@pytest.mark.parametrize("block", range(10))
def test_generated_field_values_match_reference(
    block: int, server: ScriptedServer, goose_prompts_dir: Path
) -> None:
    templates = load_templates(goose_prompts_dir)
    mismatches = []
    for seed in range(block * 30, block * 30 + 30):
        reply = "<analysis>gen</analysis>\n```json\n" + summary_object(seed) + "\n```"
        server.script = Script(reply=reply)
        reference = run_reference(server, Case("generated", SHORT, reply))
        ours = finish(reply, templates)[1]
        if ours != reference.text:
            mismatches.append((seed, reply, reference.text, ours))
    assert mismatches == []
