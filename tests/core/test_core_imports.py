"""The core runs without Textual and does not pay for litellm's import until a model is
called (STYLE.md): proven in a fresh interpreter, where sys.modules tells the truth."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

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

PROBE = """
import importlib, json, sys
for name in {modules!r}:
    importlib.import_module(name)
print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'litellm'))))
"""


def run_probe(code: str) -> Any:
    """What ``code`` prints as JSON, run in a fresh interpreter in the project's root."""
    from tests.conftest import ROOT

    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return json.loads(out.stdout)


def test_core_imports_neither_textual_nor_litellm() -> None:
    assert run_probe(PROBE.format(modules=CORE_MODULES)) == []


def test_core_and_app_imports_leave_slow_modules_for_later() -> None:
    """Start-up cost (docs/performance.md, figure d): the core does not import asyncio
    (~0.1 s here) until something runs a coroutine, and the app does not import Rich's
    Markdown (markdown-it, ~0.15 s) until a summary is shown."""
    probe = """
import importlib, json, sys
for name in {modules!r}:
    importlib.import_module(name)
core = "asyncio" in sys.modules
import goose_tui.tui.app
print(json.dumps([core, "rich.markdown" in sys.modules, "markdown_it" in sys.modules]))
"""
    assert run_probe(probe.format(modules=CORE_MODULES)) == [False, False, False]


def test_running_the_offline_pipeline_imports_neither() -> None:
    code = """
import asyncio, json, sys
from pathlib import Path
from goose_tui.session.loader import load_session
from goose_tui.compaction.templates import load_templates
from goose_tui.compaction.summarize import summarize
from goose_tui.llm import make_summarizer
from goose_tui.tokens import context_usage
s = load_session(Path("sample_sessions/short.jsonl"))
context_usage(s)
asyncio.run(summarize(s.messages, make_summarizer("offline"), load_templates(None)))
print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'litellm'))))
"""
    assert run_probe(code) == []
