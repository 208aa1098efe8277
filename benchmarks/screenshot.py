"""The README's picture: the main screen after ``c`` on the bundled sample with the offline
summarizer, drawn by the app itself and written to docs/screenshot.svg.

    python benchmarks/screenshot.py [OUT.svg]

Run it again after a change to what the main screen shows. Settings, recent sessions and
template overrides come from empty temporary folders, so the picture does not depend on
whoever runs it. Not part of the pytest run.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = Path("sample_sessions/long_session.jsonl")  # relative: the title shows this path
SIZE = (160, 45)


async def _settle(app: object) -> None:
    """Wait until the app's workers are done and what they posted is drawn."""
    from textual.app import App
    from textual.worker import WorkerState

    assert isinstance(app, App)
    settled = getattr(app, "settled", None)
    if settled is not None:
        await settled()
        return
    busy = (WorkerState.PENDING, WorkerState.RUNNING)
    for _ in range(100):  # a handled result may start another worker
        await asyncio.gather(*(w.wait() for w in app.workers), return_exceptions=True)
        await asyncio.sleep(0.05)
        if not any(w.state in busy for w in app.workers):
            return
    raise RuntimeError("the app's workers kept starting others")


async def _shoot(out: Path) -> None:
    from goose_tui.tui.app import GooseTUI

    app = GooseTUI(SAMPLE, model="offline", clock=lambda: 0.0)
    async with app.run_test(size=SIZE) as pilot:
        await _settle(app)
        await pilot.press("c")
        await _settle(app)
        await pilot.pause()
        svg = app.export_screenshot(title="goose-tui")
    out.write_text(svg, encoding="utf-8")


def main() -> None:
    out = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else ROOT / "docs" / "screenshot.svg"
    with tempfile.TemporaryDirectory() as home:
        for var in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
            os.environ[var] = str(Path(home) / var.lower())
        os.environ.pop("GOOSE_PATH_ROOT", None)
        os.environ.pop("GOOSE_AUTO_COMPACT_THRESHOLD", None)
        os.chdir(ROOT)
        asyncio.run(_shoot(out))
    print(out)


if __name__ == "__main__":
    main()
