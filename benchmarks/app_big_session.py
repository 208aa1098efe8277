"""A big session in the app, headless: when the conversation, the prompt and the token counts
appear, how long a key press waits while the workers run, and the longest event-loop stall.

    python benchmarks/app_big_session.py [SESSION]   # default: generate ~53 MB / 20k messages
    python benchmarks/app_big_session.py --compact [SESSION]  # then press c (offline model),
                                                              # wait for the summary to be
                                                              # drawn, report the peak memory

Prints one JSON object. Not part of the pytest run.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import gen_session  # noqa: E402

STALL_TICK = 0.02  # the loop is sampled this often; a longer gap is a stall


async def measure(
    path: Path, until: tuple[str, ...] = ("conversation", "prompt", "counts"), limit: float = 600
) -> dict[str, object]:
    import gc

    from goose_tui.tui.app import GooseTUI
    from goose_tui.tui.screens.help import HelpScreen
    from goose_tui.tui.widgets.compaction_status import CompactionStatus
    from goose_tui.tui.widgets.context_gauge import ContextGauge
    from goose_tui.tui.widgets.conversation_view import ConversationView
    from goose_tui.tui.widgets.summary_preview import MarkdownLines
    from goose_tui.tui.widgets.text_viewer import TextViewer

    collections: list[tuple[float, int, float]] = []  # (at, generation, seconds)
    collecting: dict[str, float] = {}

    def on_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collecting["at"] = time.perf_counter()
        elif "at" in collecting:
            at = collecting.pop("at")
            collections.append((at - started, info["generation"], time.perf_counter() - at))

    gc.callbacks.append(on_gc)
    started = time.perf_counter()
    marks: dict[str, float] = {}
    peaks: dict[str, int] = {}  # mark -> peak RSS (MB) when it was reached
    gaps: list[float] = []
    progress_seen: list[str] = []
    stalls: list[tuple[float, int]] = []  # (seconds after start, ms) of stalls over 200 ms
    tasks: list = []  # pilot coroutines to start from the loop
    background: list[asyncio.Future] = []  # kept referenced until the run ends
    app = GooseTUI(path, model="offline")
    compact_gaps_from: int | None = None
    state = None
    async with app.run_test(size=(200, 50)) as pilot:
        main = app.main
        last = time.perf_counter()
        pressed_at: float | None = None
        while time.perf_counter() - started < limit:
            await asyncio.sleep(STALL_TICK)
            while tasks:
                background.append(asyncio.ensure_future(tasks.pop()))
            now = time.perf_counter()
            gaps.append(now - last - STALL_TICK)
            elapsed = now - started
            if gaps[-1] > 0.2:
                stalls.append((round(last - started, 2), round(gaps[-1] * 1000)))
            last = now
            gauge = main.query_one(ContextGauge)
            if "conversation" not in marks and main.query_one(ConversationView).row_count:
                marks["conversation"] = elapsed
            if "prompt" not in marks and main.query_one("#input-view", TextViewer).text:
                marks["prompt"] = elapsed
            if getattr(gauge, "progress", None) is not None and len(progress_seen) < 50:
                progress_seen.append(str(gauge.render()).split("\n")[0])
            if "conversation" in marks and pressed_at is None and gauge.usage is None:
                pressed_at = time.perf_counter()
                # A task, so the sampling loop goes on while the pilot waits for the screen.
                press = asyncio.ensure_future(pilot.press("question_mark"))
                background.append(press)
            if pressed_at is not None and "help_opened" not in marks:
                if isinstance(app.screen, HelpScreen):
                    marks["help_opened"] = time.perf_counter() - pressed_at
                    marks["help_opened_during_counting"] = float(gauge.usage is None)
                    # Not awaited: the pilot waits for idle, which would stall this loop.
                    press.add_done_callback(lambda _: tasks.append(pilot.press("escape")))
            if "counts" not in marks and gauge.usage is not None:
                marks["counts"] = elapsed
                if "compacted" in until:
                    compact_gaps_from = len(gaps)
                    tasks.append(pilot.press("c"))
            if "counts" in marks and "compacted" in until and "compacted" not in marks:
                if main.query_one(CompactionStatus).state in ("done", "failed"):
                    marks["compacted"] = elapsed
                    state = main.query_one(CompactionStatus).state
            if "compacted" in marks and "summary_shown" not in marks:
                # The preview renders a big summary in a thread after the compaction is done:
                # its time, stalls and memory are part of what `c` costs.
                preview = main.query_one(MarkdownLines)
                shown = getattr(preview, "lines_count", None)  # older code: its lines list
                shown = len(preview.lines) if shown is None else shown
                if shown and "summary_head_shown" not in marks:
                    marks["summary_head_shown"] = elapsed  # its first screens
                if state != "done" or (not preview.rendering and shown):
                    marks["summary_shown"] = elapsed
            for mark in marks.keys() - peaks.keys():
                peaks[mark] = _peak_rss() >> 20
            if set(until) <= marks.keys():
                break
    gc.callbacks.remove(on_gc)
    full = [seconds for _, generation, seconds in collections if generation == 2]
    extra: dict[str, object] = {
        "peak_rss_mb_by": peaks,
        "gc_full_collections": len(full),
        "gc_longest_full_ms": round(max(full, default=0) * 1000),
        "gc_full_total_s": round(sum(full), 2),
    }
    if compact_gaps_from is not None:
        during = gaps[compact_gaps_from:]
        extra |= {
            "compaction_state": state,
            "longest_stall_during_compaction_ms": round(max(during, default=0) * 1000),
            "peak_rss_bytes": _peak_rss(),
        }
    return {
        **extra,
        "seconds": {k: round(v, 2) for k, v in marks.items()},
        "longest_stall_ms": round(max(gaps, default=0) * 1000),
        "stalls_over_100ms": sum(g > 0.1 for g in gaps),
        "stalls_over_200ms_at": stalls,
        "progress_samples": progress_seen[:: max(len(progress_seen) // 5, 1)],
    }


def _peak_rss() -> int:
    """This process's peak resident set (VmHWM), bytes."""
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def main() -> None:
    args = sys.argv[1:]
    compact = "--compact" in args
    args = [a for a in args if a != "--compact"]
    until = ("conversation", "prompt", "counts") + (
        ("compacted", "summary_shown") if compact else ()
    )
    if args:
        path = Path(args[0])
        result = asyncio.run(measure(path, until))
        size = path.stat().st_size
    else:
        with tempfile.TemporaryDirectory(prefix="goose-tui-big-") as tmp:
            path = Path(tmp) / "big-session.jsonl"
            gen_session.write_big_jsonl(path, target_bytes=50_000_000, messages=20_000)
            size = path.stat().st_size
            result = asyncio.run(measure(path, until))
    result["file_mb"] = round(size / 1e6, 1)
    if "peak_rss_bytes" in result:
        result["peak_over_file"] = round(int(result["peak_rss_bytes"]) / size, 2)
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
