"""Issue 12: with a litellm model the app never waits for litellm's import (seconds) on its
event loop, and litellm runs in a worker process, never in the app's (its client held the
app's GIL in long C calls: docs/performance.md, run 7). Run in a fresh interpreter: litellm
must not be imported yet, as in a real start."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

CHILD = r"""
import asyncio, json, sys, threading, time
from pathlib import Path

from goose_tui.llm import litellm_worker
from goose_tui.tui.app import GooseTUI
from goose_tui.tui.screens.help import HelpScreen
from goose_tui.tui.widgets.compaction_status import IMPORTING_NOTE
from goose_tui.tui.widgets.compaction_status import CompactionStatus
from goose_tui.tui.widgets.summary_preview import SummaryPreview
from tests.loopback import LoopbackServer, Reply
from tests.tui.conftest import settle

session, reply = Path(sys.argv[1]), Path(sys.argv[2]).read_text(encoding="utf-8")

# The real worker, held back until the keys were pressed: on a fast machine its import can
# finish before the second key arrives, on a slow one long after; either way the test must
# see the import still running when it presses them.
release = Path(sys.argv[3])
litellm_worker.WORKER_COMMAND = [
    sys.executable,
    "-c",
    "import pathlib, runpy, sys, time\n"
    "while not pathlib.Path(sys.argv[1]).exists(): time.sleep(0.02)\n"
    "runpy.run_module('goose_tui.llm.litellm_worker', run_name='__main__')",
    str(release),
]
litellm_ready = litellm_worker.ready


async def main():
    out = {}
    with LoopbackServer([Reply.ok(reply)]) as server:
        app = GooseTUI(session, model="openai/test-model", api_base=f"{server.url}/v1")
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            out["imported_before_c"] = litellm_ready()
            await pilot.press("c")
            status = app.main.query_one(CompactionStatus)
            out["note_after_c"] = status.note
            out["drawn_after_c"] = "importing litellm" in str(status.render())
            await pilot.pause(0.3)  # a few ticks: the request is built and counted
            out["drawn_while_importing"] = str(status.render())
            await pilot.press("question_mark")
            out["help_open"] = isinstance(app.screen, HelpScreen)
            out["help_open_during_import"] = out["help_open"] and not litellm_ready()
            await pilot.press("escape")  # closes the help
            await pilot.press("escape")  # cancels the compaction, the worker still importing
            await settle(pilot)
            out["state_after_cancel"] = status.state
            out["note_after_cancel"] = status.note
            await pilot.press("c")  # a fresh worker, still importing too
            out["note_after_second_c"] = status.note
            release.touch()
            deadline = time.monotonic() + 240
            while status.state == "running" and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            await settle(pilot)  # the summary's panes are drawn a frame after "done"
            out["state"] = status.state
            out["note_at_end"] = status.note
            out["summary"] = app.main.query_one(SummaryPreview).markdown
            out["requests"] = len(server.requests)
            out["sent"] = server.requests[0].body["messages"][0]["content"]
            out["as_sent"] = app.inspector.result.request.system_prompt
            out["litellm_in_app_process"] = any(m.split(".")[0] == "litellm" for m in sys.modules)
    print(json.dumps(out))


asyncio.run(main())
"""


@pytest.mark.litellm
def test_c_shows_the_import_and_keys_work_while_litellm_imports(
    session_file: Path, reply_file: Path, tmp_path: Path
) -> None:
    release = tmp_path / "release"
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(session_file), str(reply_file), str(release)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["imported_before_c"] is False  # the import takes seconds: still running
    assert out["note_after_c"].startswith("importing litellm")
    assert out["drawn_after_c"]
    # Nothing has left while the client loads: no countdown yet, no tokens "sent".
    assert "left of" not in out["drawn_while_importing"]
    assert "tokens sent" not in out["drawn_while_importing"]
    # The loop kept answering: another key opened its screen before the import finished.
    assert out["help_open_during_import"], out
    # Cancelled while importing: the note goes with the compaction, and comes back with
    # the next one while the fresh worker imports (a walk-through saw it stay).
    assert out["state_after_cancel"] == "cancelled"
    assert out["note_after_cancel"] == ""
    assert out["note_after_second_c"].startswith("importing litellm")
    assert out["state"] == "done"
    assert out["note_at_end"].startswith("usage in")
    assert "Write the changelog entry" in out["summary"]
    assert out["requests"] == 1
    # The prompt went through the worker's pipe unchanged, and litellm never entered the app.
    assert out["sent"] == out["as_sent"]
    assert out["litellm_in_app_process"] is False
