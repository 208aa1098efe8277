"""The summarizer input of Goose-shaped sessions (tests/fixtures/goose) against the wheel.

The wheel takes text turns only, so each case writes out, by hand, the turns Goose's
do_compact hands its summarizer for the fixture (crates/goose/src/context_mgmt/mod.rs: no
turn-context messages, agent-visible messages only, each cut to its agent_visible_content,
crates/goose/src/conversation/message.rs), every item already in its formatted text
(crates/goose-context-management/src/format.rs). The system prompt the wheel sends for those
turns must equal the one goose-tui builds from the fixture file itself, through the Python API
and through ``goose-tui compact``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goose_tui.cli import main
from goose_tui.compaction.summarize import build_request
from goose_tui.compaction.templates import load_templates
from goose_tui.session.loader import load_session
from tests.differential.conftest import Script, ScriptedServer, run_reference
from tests.differential.corpus import Case

goose = pytest.importorskip(
    "goose", reason="goose-sdk (the reference wheel, module `goose`) is not installed"
)

FIXTURES = Path(__file__).parents[1] / "fixtures" / "goose"
REPLY = '```json\n{"user_intent": ["Fix the rounding test"]}\n```'

LEDGER_TURNS = (
    # The two hidden history messages and the turn-context message are not sent; the
    # summary of the earlier work is (agent-only).
    ("user", "Summary of the earlier work: tests were set up."),
    ("user", "The rounding test still fails; fix it please."),
    # Thinking is dropped; the arguments' numbers as serde_json writes them.
    (
        "assistant",
        'tool_request(developer__shell): {"command":"pytest -q","timeout":0.00001,'
        '"retries":3,"ratio":1e-7}',
    ),
    # The user copy of the shell output (audience user, priority 0.0) is not sent.
    (
        "user",
        "tool_response: test_ledger.py::test_totals PASSED\ntest_ledger.py::test_rounding FAILED",
    ),
    (
        "assistant",
        "Rounding uses float; switching to Decimal.\n"
        'tool_request(developer__text_editor): {"command":"view","path":"ledger.py"}',
    ),
    ("user", "tool_response: def total(xs):\n    return round(sum(xs), 2)"),
    ("assistant", "Fixed: totals now use Decimal, both tests pass."),
)

CASES = [
    ("sessions-v13.db", "20251009_1", LEDGER_TURNS),
    ("export-new.json", None, LEDGER_TURNS),
    ("export-old.json", None, LEDGER_TURNS),
    (
        "sessions-v5.db",
        None,
        (
            ("user", "Create a ledger module with a total()."),
            ("assistant", 'tool_request(developer__shell): {"command":"mkdir -p ledger"}'),
            ("user", "tool_response: "),
            ("assistant", "Created ledger/ with total()."),
        ),
    ),
    (
        "legacy-2025.jsonl",
        None,
        (
            ("user", "Add a CSV export."),
            (
                "assistant",
                'tool_request(developer__shell): {"command":"python -m ledger export",'
                '"limit":1e+16}',
            ),
            ("user", "tool_response: wrote ledger.csv"),
            ("assistant", "CSV export added."),
        ),
    ),
]


@pytest.mark.parametrize(("name", "session_id", "turns"), CASES, ids=[c[0] for c in CASES])
def test_system_prompt_of_goose_shaped_sessions_is_byte_equal(
    name: str,
    session_id: str | None,
    turns: tuple[tuple[str, str], ...],
    server: ScriptedServer,
    goose_prompts_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    server.script = Script(reply=REPLY)
    reference = run_reference(server, Case(name, turns, REPLY))
    sent = server.requests[0]["messages"][0]["content"]
    path = FIXTURES / name
    session = load_session(path, session_id)
    assert build_request(session.messages, load_templates(goose_prompts_dir)).system_prompt == sent
    reply_file = tmp_path / "reply.txt"
    reply_file.write_text(REPLY, encoding="utf-8")
    argv = ["compact", str(path), "--replay", str(reply_file)]
    argv += ["--prompts-dir", str(goose_prompts_dir)]
    if session_id is not None:
        argv += ["--session", session_id]
    assert main([*argv, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["system_prompt"] == sent
    assert result["summary"] == reference.text
