"""A one-off focus (issue 14) on Goose's own templates: no focus is byte-equal with the wheel,
a focus is one paragraph after what the wheel sends (Goose's template has no ``focus``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from goose_tui.compaction.summarize import build_request
from goose_tui.compaction.templates import load_templates
from tests.differential.conftest import Script, ScriptedServer, our_messages, run_reference
from tests.differential.corpus import CASES

pytest.importorskip("goose", reason="goose-sdk (the reference wheel) is not installed")


def test_no_focus_is_byte_equal_and_a_focus_is_appended(
    server: ScriptedServer, goose_prompts_dir: Path
) -> None:
    case = CASES[0]
    server.script = Script(reply=case.reply)
    run_reference(server, case)
    sent = server.requests[0]["messages"][0]["content"]
    templates = load_templates(goose_prompts_dir)
    messages = our_messages(case)
    for no_focus in (None, "", "  \n"):
        assert build_request(messages, templates, no_focus).system_prompt == sent
    focused = build_request(messages, templates, "  the failing migration  ").system_prompt
    assert focused == (
        sent + "\n\nFocus requested by the user for this summary (keep everything about it "
        "in full):\nthe failing migration"
    )
