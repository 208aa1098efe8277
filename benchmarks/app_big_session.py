"""A big session in the app, headless: when the conversation, the prompt and the token counts
appear, how long a key press waits while the workers run, and the longest event-loop stall.

    python benchmarks/app_big_session.py [SESSION]   # default: generate ~53 MB / 20k messages
    python benchmarks/app_big_session.py --compact [SESSION]  # then press c (offline model),
                                                              # wait for the summary to be
                                                              # drawn, report the peak memory
    python benchmarks/app_big_session.py --compact --litellm [SESSION]
        # the same with a litellm model (openai/gpt-4o) against a loopback server in another
        # process, which streams the wheel bench's ~8 KB summary reply
    ... --why   # also: what each thread ran when the loop was 60 ms late

Prints one JSON object. Not part of the pytest run.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import gen_session  # noqa: E402

STALL_TICK = 0.02  # the loop is sampled this often; a longer gap is a stall


async def measure(
    path: Path,
    until: tuple[str, ...] = ("conversation", "prompt", "counts"),
    limit: float = 600,
    model: str = "offline",
    api_base: str | None = None,
    why: bool = False,
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
    stalls: list[tuple[float, int]] = []  # (seconds after start, ms) of stalls over 100 ms
    tasks: list = []  # pilot coroutines to start from the loop
    background: list[asyncio.Future] = []  # kept referenced until the run ends
    app = GooseTUI(path, model=model, api_base=api_base)
    compact_gaps_from: int | None = None
    state = None
    watch = StallWatch() if why else None
    modules_at_counts: set[str] = set()
    async with app.run_test(size=(200, 50)) as pilot:
        main = app.main
        client_ready = getattr(app.inspector.model, "client_ready", None)
        if client_ready is None:  # older code: litellm imported in the app's process
            from goose_tui.llm.litellm_backend import litellm_ready as client_ready
        real_compact = main.action_compact

        def action_compact() -> None:  # when the key reached its binding
            if c_pressed_at is not None:
                marks["c_to_binding"] = time.perf_counter() - c_pressed_at
            real_compact()

        main.action_compact = action_compact  # type: ignore[method-assign]
        display = app._display

        def recording_display(screen, renderable) -> None:  # type: ignore[no-untyped-def]
            display(screen, renderable)
            # Key to screen: the first frame after `c` whose bytes show the compaction running.
            if c_pressed_at is None or "c_to_frame" in marks:
                return
            render = getattr(renderable, "render_segments", None)
            if render is not None and "running" in render(app.console):
                marks["c_to_frame"] = time.perf_counter() - c_pressed_at

        app._display = recording_display  # type: ignore[method-assign]
        last = time.perf_counter()
        pressed_at: float | None = None
        c_pressed_at: float | None = None
        while time.perf_counter() - started < limit:
            await asyncio.sleep(STALL_TICK)
            while tasks:
                background.append(asyncio.ensure_future(tasks.pop()))
            now = time.perf_counter()
            if watch is not None:
                watch.tick(now - started)
            gaps.append(now - last - STALL_TICK)
            elapsed = now - started
            if gaps[-1] > 0.1:
                stalls.append((round(last - started, 2), round(gaps[-1] * 1000)))
            last = now
            gauge = main.query_one(ContextGauge)
            if "conversation" not in marks and main.query_one(ConversationView).row_count:
                marks["conversation"] = elapsed
            if "prompt" not in marks and main.query_one("#input-view", TextViewer)._lines:
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
                modules_at_counts = set(sys.modules)
                if "compacted" in until:
                    compact_gaps_from = len(gaps)
                    c_pressed_at = time.perf_counter()
                    tasks.append(pilot.press("c"))
            if model != "offline" and "litellm_imported" not in marks and client_ready():
                marks["litellm_imported"] = elapsed
            if c_pressed_at is not None and "c_to_progress" not in marks:
                if main.query_one(CompactionStatus).state != "idle":
                    marks["c_to_progress"] = time.perf_counter() - c_pressed_at
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
    workers = _worker_pids()
    if workers:  # the litellm worker processes' own peaks (not in the app's figure)
        extra["worker_peak_rss_mb"] = [_peak_rss(pid) >> 20 for pid in workers]
    counting = _token_worker_pid()
    if counting is not None:  # the token worker's own peak: the app with it, in the file
        own = _peak_rss(counting)
        extra["token_worker_peak_rss_mb"] = own >> 20
        extra["peak_over_file_with_token_worker"] = round(
            (_peak_rss() + own) / path.stat().st_size, 2
        )
    if compact_gaps_from is not None:
        during = gaps[compact_gaps_from:]
        extra |= {
            "compaction_state": state,
            "longest_stall_during_compaction_ms": round(max(during, default=0) * 1000),
            "peak_rss_bytes": _peak_rss(),
        }
    if watch is not None:
        extra["stall_stacks"] = watch.stop()
        extra["imported_after_counts"] = sorted(set(sys.modules) - modules_at_counts)
    return {
        **extra,
        "seconds": {k: round(v, 2) for k, v in marks.items()},
        "longest_stall_ms": round(max(gaps, default=0) * 1000),
        "stalls_over_100ms": sum(g > 0.1 for g in gaps),
        "stalls_over_100ms_at": stalls,
        "progress_samples": progress_seen[:: max(len(progress_seen) // 5, 1)],
    }


class StallWatch:
    """``--why``: a thread that, when the loop has not ticked for 60 ms, records what every
    thread is running (the innermost frames of goose_tui, textual, rich and the like)."""

    def __init__(self) -> None:
        import threading

        self._main = threading.get_ident()
        self._last = time.perf_counter()
        self._at = 0.0
        self._dumped = False
        self._stop = threading.Event()
        self.stacks: list[dict[str, object]] = []
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def tick(self, at: float) -> None:
        self._last, self._at, self._dumped = time.perf_counter(), at, False

    def _run(self) -> None:
        import threading
        import traceback

        names = {t.ident: t.name for t in threading.enumerate()}
        woke = time.perf_counter()
        while not self._stop.wait(0.01):
            now = time.perf_counter()
            # This thread waited for the GIL itself: whoever held it is still near the call.
            held = now - woke - 0.01
            woke = now
            late = now - self._last
            if held < 0.06 and (late < 0.06 or self._dumped):
                continue
            self._dumped = True
            frames = sys._current_frames()
            names |= {t.ident: t.name for t in threading.enumerate()}
            threads = {}
            for ident, frame in frames.items():
                if ident == threading.get_ident():
                    continue
                stack = traceback.extract_stack(frame)
                inner = [f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in stack[-6:]]
                threads["main" if ident == self._main else names.get(ident, ident)] = inner
            self.stacks.append(
                {
                    "after_s": round(self._at, 2),
                    "late_ms": round(late * 1000),
                    "gil_wait_ms": round(held * 1000),
                }
                | threads
            )

    def stop(self) -> list[dict[str, object]]:
        self._stop.set()
        return self.stacks


def _worker_pids() -> list[int]:
    try:
        from goose_tui.llm import litellm_worker
    except ImportError:  # older code: no worker processes
        return []
    worker = getattr(litellm_worker, "_worker", None)
    return [worker.process.pid] if worker is not None and worker.alive() else []


def _token_worker_pid() -> int | None:
    try:
        from goose_tui import token_worker
    except ImportError:  # older code: the app counted in its own process
        return None
    worker = getattr(token_worker, "_worker", None)
    return worker.process.pid if worker is not None and worker.process.poll() is None else None


def _peak_rss(pid: int | str = "self") -> int:
    """A process's peak resident set (VmHWM), bytes."""
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


SERVER = """
import sys
sys.path[:0] = [{root!r}, {here!r}]
from tests.loopback import LoopbackServer, Reply
from wheel_bench import summary_reply
with LoopbackServer([Reply.sse(summary_reply(), chunk_size=64)]) as server:
    print(server.url, flush=True)
    sys.stdin.read()  # until the benchmark closes it
"""


@contextlib.contextmanager
def loopback_process() -> Iterator[str]:
    """A loopback OpenAI-compatible server in its own process (parsing the request body there
    must not take the GIL from the app being measured); yields its base URL."""
    code = SERVER.format(root=str(HERE.parent), here=str(HERE))
    child = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        yield child.stdout.readline().strip() + "/v1"
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=30)


def main() -> None:
    args = sys.argv[1:]
    compact = "--compact" in args
    litellm = "--litellm" in args
    why = "--why" in args
    args = [a for a in args if a not in ("--compact", "--litellm", "--why")]
    until = ("conversation", "prompt", "counts") + (
        ("compacted", "summary_shown") if compact else ()
    )
    with contextlib.ExitStack() as stack:
        model, api_base = "offline", None
        if litellm:
            model, api_base = "openai/gpt-4o", stack.enter_context(loopback_process())
        if args:
            path = Path(args[0])
        else:
            tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="goose-tui-big-"))
            path = Path(tmp) / "big-session.jsonl"
            gen_session.write_big_jsonl(path, target_bytes=50_000_000, messages=20_000)
        size = path.stat().st_size
        result = asyncio.run(measure(path, until, model=model, api_base=api_base, why=why))
        result["model"] = model
    result["file_mb"] = round(size / 1e6, 1)
    if "peak_rss_bytes" in result:
        result["peak_over_file"] = round(int(result["peak_rss_bytes"]) / size, 2)
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
