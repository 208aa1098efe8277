"""Which Goose version the installed wheel runs (issue 10, section 4): the default profile
is byte-equal to the wheel on every corpus conversation, and ``goose-pr-11845`` (Goose's
open pull request #11845, JSON records) is not what the wheel writes."""

from __future__ import annotations

import json

import pytest

from goose_tui.compaction.profiles import DEFAULT_PROFILE, format_for_profile
from tests.differential.conftest import Script, ScriptedServer, our_messages, run_reference
from tests.differential.corpus import CASES, Case

goose = pytest.importorskip(
    "goose", reason="goose-sdk (the reference wheel, module `goose`) is not installed"
)

MARKED = "<<{{ messages }}>>"


def sent(server: ScriptedServer, case: Case) -> str:
    summary = goose.default_compaction_templates().summary
    server.script = Script(reply='{"user_intent": ["x"]}')
    run_reference(server, case, goose.CompactionTemplates(compaction=MARKED, summary=summary))
    return server.requests[-1]["messages"][0]["content"][2:-2]


@pytest.mark.parametrize("case", CASES[:12], ids=[c.name for c in CASES[:12]])
def test_the_default_profile_is_what_the_installed_wheel_writes(
    case: Case, server: ScriptedServer
) -> None:
    theirs = sent(server, case)
    messages = our_messages(case)
    assert format_for_profile(messages, DEFAULT_PROFILE) == theirs
    if messages:
        assert format_for_profile(messages, "goose-pr-11845") != theirs
        records = [
            json.loads(line) for line in format_for_profile(messages, "goose-pr-11845").split("\n")
        ]
        assert [r["role"] for r in records] == [m.role for m in messages]
