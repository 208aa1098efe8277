from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual.pilot import Pilot

DATA = Path(__file__).parent / "data"

REPLY = """<analysis>
- user wants the failing date test fixed
- a changelog entry is pending
</analysis>

```json
{
  "user_intent": ["Fix test_parse_dates in tests/test_dates.py"],
  "technical_concepts": ["datetime.strptime validation"],
  "files": [{"path": "src/dates.py", "summary": "parse now rejects month 13",
             "key_code": "return _parse_checked(s)"}],
  "errors_and_fixes": ["ValueError: time data '2024-13-01' does not match format"],
  "problem_solving": [],
  "user_messages": ["Thanks. Next, add a changelog entry for this fix."],
  "pending_tasks": ["Add a changelog entry"],
  "current_work": "All 12 tests pass",
  "next_step": "Write the changelog entry",
  "reviewer": "extra field kept"
}
```
"""


@pytest.fixture
def session_file(tmp_path: Path) -> Path:
    """A copy of the small session in a folder of its own, so saves land in tmp_path."""
    target = tmp_path / "session" / "small_session.jsonl"
    target.parent.mkdir()
    shutil.copy(DATA / "small_session.jsonl", target)
    return target


@pytest.fixture
def reply_file(tmp_path: Path) -> Path:
    path = tmp_path / "reply.md"
    path.write_text(REPLY, encoding="utf-8")
    return path


async def settle(pilot: Pilot, pause: float = 0.05) -> None:
    """Wait for every worker (loading, counting, compacting) and the messages they post."""
    await pilot.pause(pause)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def wait_until(pilot: Pilot, condition, timeout: float = 10.0) -> None:
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        await pilot.pause(0.05)
