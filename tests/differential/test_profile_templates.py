"""Goose's own compaction.md under each profile. The wheel's built-in template is released
Goose's (its SHA-256 is the one goose_tui.compaction.profiles recognizes); under
``goose-sdk-wheel`` the prompt built with it is the wheel's, byte for byte, and under
``goose-pr-11845`` it carries the line that pull request adds to the template
(crates/goose-context-management/src/prompts/compaction.md as the change leaves it: the
last item of the task-context list, right before the conversation history), and nothing
else changes but the conversation's JSON records."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from goose_tui.compaction.profiles import (
    DEFAULT_PROFILE,
    PR_11845,
    PR_11845_COMPACTION_LINE,
    RELEASED_GOOSE_COMPACTION_SHA256,
    format_for_profile,
)
from goose_tui.compaction.summarize import build_request
from goose_tui.compaction.templates import load_templates
from tests.differential.conftest import Script, ScriptedServer, our_messages, run_reference
from tests.differential.corpus import CASES

goose = pytest.importorskip(
    "goose", reason="goose-sdk (the reference wheel, module `goose`) is not installed"
)


def test_the_wheels_template_is_the_released_one() -> None:
    compaction = goose.default_compaction_templates().compaction
    assert hashlib.sha256(compaction.encode()).hexdigest() == RELEASED_GOOSE_COMPACTION_SHA256
    assert PR_11845_COMPACTION_LINE not in compaction


def test_goose_s_own_template_under_each_profile(
    server: ScriptedServer, goose_prompts_dir: Path
) -> None:
    case = CASES[0]
    messages = our_messages(case)
    templates = load_templates(goose_prompts_dir)
    server.script = Script(reply=case.reply)
    run_reference(server, case)
    theirs = server.requests[0]["messages"][0]["content"]

    released = build_request(messages, templates, profile=DEFAULT_PROFILE).system_prompt
    assert released == theirs

    unreleased = build_request(messages, templates, profile=PR_11845).system_prompt
    history = "\n\n**Conversation History:**\n"
    head, conversation = unreleased.split(history)
    their_head, their_conversation = theirs.split(history)
    assert head == f"{their_head}\n{PR_11845_COMPACTION_LINE}"
    assert their_head.splitlines()[-1].startswith("- ")  # the list the line ends
    records = format_for_profile(messages, PR_11845)
    assert conversation.startswith(records)
    assert (
        conversation[len(records) :]
        == their_conversation[len(format_for_profile(messages, DEFAULT_PROFILE)) :]
    )
