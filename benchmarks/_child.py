"""Measurements that need a fresh interpreter; run by bench.py, prints one JSON object.

python benchmarks/_child.py memory SESSION.jsonl
python benchmarks/_child.py import MODULE...
python benchmarks/_child.py first-screen SPAWN_EPOCH [SESSION]
python benchmarks/_child.py minimal-screen SPAWN_EPOCH TEXT
"""

from __future__ import annotations

import json
import sys
import time


def heavy_modules() -> list[str]:
    return sorted(m for m in sys.modules if m.split(".")[0] in ("textual", "litellm"))


def measure_import(modules: list[str]) -> dict:
    """Seconds to import ``modules`` (the parent passes the core's list, so that nothing
    the core imports is loaded here before the clock starts)."""
    import importlib

    start = time.perf_counter()
    for name in modules:
        importlib.import_module(name)
    return {"seconds": time.perf_counter() - start, "heavy": heavy_modules()}


def _status_kib(field: str) -> int:
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


def measure_memory(path: str) -> dict:
    # Peak resident set (VmHWM), not tracemalloc: it sees every allocation, pydantic-core's
    # and the json C parser's included, and costs nothing while measuring. ru_maxrss would
    # do too, but Linux carries it over from the parent across fork+exec, so the bench's own
    # memory would hide the figure; VmHWM is per address space and can be reset.
    import gc
    from pathlib import Path

    from goose_tui.compaction.format import format_messages
    from goose_tui.session.loader import load_session

    gc.collect()
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # reset the peak to the current RSS: imports are the baseline
    before = _status_kib("VmRSS")
    session = load_session(Path(path))
    load_peak = _status_kib("VmHWM")
    text = format_messages(session.messages)
    peak = _status_kib("VmHWM")
    strings = _string_bytes([m.content for m in session.messages])
    return {
        # What CPython needs whatever the code does: the session's strings, each as wide as
        # its widest character, and the one prompt string, as wide as the widest in it.
        "floor_strings_bytes": strings,
        "floor_prompt_bytes": sys.getsizeof(text),
        "prompt_max_char": f"U+{ord(max(text, default=chr(0))):04X}",
        "load_delta_bytes": (load_peak - before) * 1024,
        "baseline_bytes": before * 1024,
        "peak_bytes": peak * 1024,
        "delta_bytes": (peak - before) * 1024,
        "messages": len(session.messages),
        "formatted_chars": len(text),
    }


def _string_bytes(value: object) -> int:
    """Bytes of the distinct strings inside nested lists and dicts (keys too)."""
    seen: set[int] = set()
    total, stack = 0, [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if id(item) not in seen:
                seen.add(id(item))
                total += sys.getsizeof(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return total


def measure_first_screen(spawn_epoch: float, session: str | None) -> dict:
    """Seconds from process start until a frame showing the gauge's usage is composed and
    turned into terminal output. The headless driver writes nothing, so the app's display
    step is wrapped: the first frame composed after the gauge has a usage is rendered to
    the bytes a terminal would get, and its time is the figure. (``pilot.pause()`` is not
    used: it waits until the process is idle, up to a second, which is the harness's time,
    not the screen's.)"""
    import asyncio
    from pathlib import Path

    async def run() -> dict:
        from goose_tui.tui.app import GooseTUI
        from goose_tui.tui.widgets.context_gauge import ContextGauge

        app = GooseTUI(session_path=Path(session) if session else None, model="offline")
        painted: list[float] = []
        display = app._display

        def gauge_text() -> str | None:
            gauges = app.screen.query(ContextGauge)
            usage = gauges.first().usage if gauges else None
            return None if usage is None else f"{usage.used:,} / {usage.limit:,} tokens"

        def recording_display(screen, renderable) -> None:  # type: ignore[no-untyped-def]
            display(screen, renderable)
            expected = None if painted else gauge_text()
            render = getattr(renderable, "render_segments", None)
            # The frame counts once the bytes a terminal would be sent show the usage.
            if expected and render is not None and expected in render(app.console):
                painted.append(time.time())

        app._display = recording_display  # type: ignore[method-assign]
        async with app.run_test(size=(120, 40)):
            deadline = time.monotonic() + 30
            while not painted and time.monotonic() < deadline:
                await asyncio.sleep(0.005)
            if not painted:
                return {"error": "no frame with the gauge's usage within 30 s"}
            return {"seconds": painted[0] - spawn_epoch, "screen": type(app.screen).__name__}

    return asyncio.run(run())


def measure_minimal_screen(spawn_epoch: float, text: str) -> dict:
    """The yardstick of the first-screen figure: a minimal Textual app whose one widget
    shows ``text`` (the gauge's usage), timed exactly as ``measure_first_screen``."""
    import asyncio

    async def run() -> dict:
        from textual.app import App, ComposeResult
        from textual.widgets import Static

        class Minimal(App[None]):
            def compose(self) -> ComposeResult:
                yield Static(text)

        app = Minimal()
        painted: list[float] = []
        display = app._display

        def recording_display(screen, renderable) -> None:  # type: ignore[no-untyped-def]
            display(screen, renderable)
            render = getattr(renderable, "render_segments", None)
            if not painted and render is not None and text in render(app.console):
                painted.append(time.time())

        app._display = recording_display  # type: ignore[method-assign]
        async with app.run_test(size=(120, 40)):
            deadline = time.monotonic() + 30
            while not painted and time.monotonic() < deadline:
                await asyncio.sleep(0.005)
            if not painted:
                return {"error": "no frame with the text within 30 s"}
            return {"seconds": painted[0] - spawn_epoch}

    return asyncio.run(run())


def main(argv: list[str]) -> None:
    mode = argv[0]
    if mode == "memory":
        result = measure_memory(argv[1])
    elif mode == "import":
        result = measure_import(argv[1:])
    elif mode == "first-screen":
        result = measure_first_screen(float(argv[1]), argv[2] if len(argv) > 2 else None)
    elif mode == "minimal-screen":
        result = measure_minimal_screen(float(argv[1]), argv[2])
    else:
        raise SystemExit(f"unknown mode {mode}")
    print(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1:])
