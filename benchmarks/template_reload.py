"""How long an override template saved on disk takes to show in the app, headless: the app
on the bundled test session, compacted with a replayed reply, then the summary template
written RUNS times (each a new heading) from outside the app; for each write, the time until
the Markdown pane shows it, and until the gauge's "after compaction" counts it.

    python benchmarks/template_reload.py [RUNS]   # default 11

Prints one JSON object (median and worst, in ms). Not part of the pytest run.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DATA = ROOT / "tests" / "tui" / "data"
TICK = 0.002  # how often the pane is looked at


async def measure(runs: int) -> dict[str, object]:
    from goose_tui.tui.app import GooseTUI
    from goose_tui.tui.widgets.summary_preview import SummaryPreview

    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        session = base / "small_session.jsonl"
        shutil.copy(DATA / "small_session.jsonl", session)
        prompts = base / "prompts"
        prompts.mkdir()
        override = prompts / "compaction_summary.md"
        app = GooseTUI(session, model=f"replay:{DATA / 'reply.md'}", prompts_dir=prompts)
        shown: list[float] = []
        async with app.run_test(size=(200, 50)) as pilot:
            await pilot.pause(1.0)
            await pilot.press("c")
            preview = app.main.query_one(SummaryPreview)
            while not preview.markdown:
                await asyncio.sleep(TICK)
            await pilot.pause(0.5)
            for run in range(runs):
                heading = f"# Heading {run}"
                written = time.perf_counter()
                override.write_text(f"{heading}\n{{{{ next_step }}}}\n", encoding="utf-8")
                while not preview.markdown.startswith(heading):
                    await asyncio.sleep(TICK)
                    if time.perf_counter() - written > 30:
                        raise SystemExit(f"run {run}: not shown after 30 s")
                shown.append(time.perf_counter() - written)
                await pilot.pause(0.3)  # the next write is another save, not the same burst
    ms = [round(t * 1000) for t in shown]
    return {
        "runs": runs,
        "shown_ms_median": round(statistics.median(shown) * 1000),
        "shown_ms_worst": max(ms),
        "shown_ms": ms,
    }


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 11
    print(json.dumps(asyncio.run(measure(runs))))


if __name__ == "__main__":
    main()
