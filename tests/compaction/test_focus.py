"""Compaction with a focus (issue 14): the template variable ``focus``, where it lands, and
that it is shown and recorded."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from goose_tui.compaction.summarize import build_request, summarize
from goose_tui.compaction.templates import FOCUS_HEADING, load_templates
from goose_tui.llm import make_summarizer
from goose_tui.session.loader import load_session
from tests.conftest import SAMPLES

SHORT = SAMPLES / "short.jsonl"
FOCUS = "keep the VAT rounding rule and the failing test names"


def test_builtin_template_gets_the_focus_as_its_last_paragraph() -> None:
    messages = load_session(SHORT).messages
    templates = load_templates()
    plain = build_request(messages, templates).system_prompt
    assert FOCUS_HEADING not in plain
    assert build_request(messages, templates, focus="").system_prompt == plain
    focused = build_request(messages, templates, focus=FOCUS).system_prompt
    assert focused == f"{plain}\n\n{FOCUS_HEADING}\n{FOCUS}"


def test_a_template_that_uses_focus_places_it_itself(tmp_path: Path) -> None:
    (tmp_path / "compaction.md").write_text(
        "{% if focus %}FOCUS FIRST: {{ focus }}\n{% endif %}History:\n{{ messages }}\n",
        encoding="utf-8",
    )
    templates = load_templates(tmp_path)
    messages = load_session(SHORT).messages
    focused = build_request(messages, templates, focus=FOCUS).system_prompt
    assert focused.startswith(f"FOCUS FIRST: {FOCUS}\nHistory:\n[user]: ")
    assert FOCUS_HEADING not in focused  # placed by the template, not appended
    assert build_request(messages, templates).system_prompt.startswith("History:\n[user]: ")


def test_offline_summary_does_not_mistake_the_focus_for_conversation() -> None:
    messages = load_session(SAMPLES / "long_session.jsonl").messages
    templates = load_templates()
    model = make_summarizer("offline")
    plain = asyncio.run(summarize(messages, model, templates))
    focused = asyncio.run(summarize(messages, model, templates, focus=FOCUS))
    assert focused.focus == FOCUS and plain.focus is None
    assert focused.summary == plain.summary
    assert focused.request.system_prompt.endswith(FOCUS)


def test_cli_focus_is_in_the_prompt_and_the_json(cli) -> None:
    out = cli("prompt", str(SHORT), "--focus", FOCUS)
    assert out.returncode == 0, out.stderr
    assert out.stdout.endswith(f"{FOCUS_HEADING}\n{FOCUS}\n")
    data = json.loads(cli("compact", str(SHORT), "--focus", FOCUS, "--json").stdout)
    assert data["focus"] == FOCUS
    assert data["system_prompt"].endswith(FOCUS)
    assert json.loads(cli("compact", str(SHORT), "--json").stdout)["focus"] is None
