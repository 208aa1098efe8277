"""The core runs without Textual and does not pay for litellm's import until a model is
called (STYLE.md): proven in a fresh interpreter, where sys.modules tells the truth."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

CORE_MODULES = [
    "goose_tui.cli",
    "goose_tui.files",
    "goose_tui.terminal",
    "goose_tui.tokens",
    "goose_tui.analysis.breakdown",
    "goose_tui.session.loader",
    "goose_tui.session.hostile",
    "goose_tui.compaction.format",
    "goose_tui.compaction.templates",
    "goose_tui.compaction.engine",
    "goose_tui.compaction.profiles",
    "goose_tui.compaction.structured",
    "goose_tui.compaction.extract",
    "goose_tui.compaction.summarize",
    "goose_tui.compaction.reply_check",
    "goose_tui.llm",
    "goose_tui.llm.base",
    "goose_tui.session.writer",
    "goose_tui.analysis.probes",
    "goose_tui.analysis.probe_model",
]

# One fresh interpreter, step after step: the core's imports (argv[1]), the inspector's, an
# offline compaction, then the app's import; what sys.modules holds is recorded after each.
PROBE = """
import importlib, json, sys
from pathlib import Path

def slow():
    return sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'litellm'))

found = {}
for name in json.loads(sys.argv[1]):
    importlib.import_module(name)
found["core"] = slow()
found["asyncio after the core"] = "asyncio" in sys.modules
import goose_tui.inspector, goose_tui.saving
found["inspector"] = slow()

import asyncio
from goose_tui.session.loader import load_session
from goose_tui.compaction.templates import load_templates
from goose_tui.compaction.summarize import summarize
from goose_tui.llm import make_summarizer
from goose_tui.tokens import context_usage
s = load_session(Path("sample_sessions/short.jsonl"))
context_usage(s)
asyncio.run(summarize(s.messages, make_summarizer("offline"), load_templates(None)))
found["offline pipeline"] = slow()

import goose_tui.tui.app
found["markdown after the app"] = ["rich.markdown" in sys.modules, "markdown_it" in sys.modules]
print(json.dumps(found))
"""


@pytest.fixture(scope="module")
def imported() -> dict[str, Any]:
    """What ``PROBE``'s fresh interpreter, run in the project's root, found at each step."""
    from tests.conftest import ROOT

    out = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(CORE_MODULES)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    found: dict[str, Any] = json.loads(out.stdout)
    return found


def test_core_imports_neither_textual_nor_litellm(imported: dict[str, Any]) -> None:
    assert imported["core"] == []


def test_core_and_app_imports_leave_slow_modules_for_later(imported: dict[str, Any]) -> None:
    """Start-up cost (docs/performance.md, figure d): the core does not import asyncio
    (~0.1 s here) until something runs a coroutine, and the app does not import Rich's
    Markdown (markdown-it, ~0.15 s) until a summary is shown."""
    assert imported["asyncio after the core"] is False
    assert imported["markdown after the app"] == [False, False]


def test_the_inspector_imports_no_textual(imported: dict[str, Any]) -> None:
    assert imported["inspector"] == []


def test_running_the_offline_pipeline_imports_neither(imported: dict[str, Any]) -> None:
    assert imported["offline pipeline"] == []
