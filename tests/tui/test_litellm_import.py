"""Issue 12: with a litellm model the app never waits for litellm's import (seconds) on its
event loop. Run in a fresh interpreter: litellm must not be imported yet, as in a real start."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

CHILD = r"""
import asyncio, json, sys, threading, time
from pathlib import Path

import goose_tui.llm.litellm_backend as backend
from goose_tui.llm.litellm_backend import litellm_ready
from goose_tui.tui.app import GooseTUI
from goose_tui.tui.screens.help import HelpScreen
from goose_tui.tui.screens.main import IMPORTING_NOTE
from goose_tui.tui.widgets.compaction_status import CompactionStatus
from goose_tui.tui.widgets.summary_preview import SummaryPreview
from tests.loopback import LoopbackServer, Reply

session, reply = Path(sys.argv[1]), Path(sys.argv[2]).read_text(encoding="utf-8")

# The real import, held back until the keys were pressed: on a fast machine it can finish
# before the second key arrives, on a slow one long after; either way the test must see the
# import still running when it presses them.
release = threading.Event()
real_import = backend._import_in_background


def held_import():
    release.wait(120)
    real_import()


backend._import_in_background = held_import


async def main():
    out = {}
    with LoopbackServer([Reply.ok(reply)]) as server:
        app = GooseTUI(session, model="openai/test-model", api_base=f"{server.url}/v1")
        async with app.run_test(size=(200, 50)) as pilot:
            await app.settled()
            out["imported_before_c"] = litellm_ready()
            await pilot.press("c")
            status = app.main.query_one(CompactionStatus)
            out["note_after_c"] = status.note
            out["drawn_after_c"] = "importing litellm" in str(status.render())
            await pilot.press("question_mark")
            out["help_open"] = isinstance(app.screen, HelpScreen)
            out["help_open_during_import"] = out["help_open"] and not litellm_ready()
            release.set()
            deadline = time.monotonic() + 240
            while status.state == "running" and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            out["state"] = status.state
            out["note_at_end"] = status.note
            out["summary"] = app.main.query_one(SummaryPreview).markdown
            out["requests"] = len(server.requests)
    print(json.dumps(out))


asyncio.run(main())
"""


def test_c_shows_the_import_and_keys_work_while_litellm_imports(
    session_file: Path, reply_file: Path
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(session_file), str(reply_file)],
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
    # The loop kept answering: another key opened its screen before the import finished.
    assert out["help_open_during_import"], out
    assert out["state"] == "done"
    assert out["note_at_end"].startswith("usage in")
    assert "Write the changelog entry" in out["summary"]
    assert out["requests"] == 1
