"""The JSON editor on a big summary, headless: how long loading it takes until it can be
edited and is highlighted, the longest event-loop stall meanwhile, what a key costs, and a
resize (which wraps the text again).

    python benchmarks/editor_big_text.py [ITEMS]   # default: a summary of 50,000 items
    python benchmarks/editor_big_text.py --app [SESSION]  # default: generate ~53 MB

The text is the summary JSON the app shows for a reply of ITEMS ``user_intent`` items
(about 3 MB for 50,000). With ``--app``: the app on a big session, compacted (offline
model), then ``e``: how long until the summary JSON is in the editor, and the longest stall.
Prints one JSON object. Not part of the pytest run.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TICK = 0.01  # the loop is sampled this often; a longer gap is a stall


async def measure(items: int) -> dict[str, object]:
    from textual.app import App, ComposeResult

    from goose_tui.tui.widgets.code_editor import CodeEditor

    text = json.dumps(
        {
            "user_intent": [
                f"goal number {i} of the session, with its reasons" for i in range(items)
            ]
        },
        indent=2,
    )

    class EditorApp(App[None]):
        def compose(self) -> ComposeResult:
            yield CodeEditor("{}", syntax="json", id="editor")

    app = EditorApp()
    gaps: list[float] = []
    sampling = True

    async def sample() -> None:
        last = time.perf_counter()
        while sampling:
            await asyncio.sleep(TICK)
            now = time.perf_counter()
            gaps.append(now - last - TICK)
            last = now

    def busy(editor: CodeEditor) -> bool:
        return editor.getting_ready or any(
            worker.node is editor and worker.is_running for worker in app.workers
        )

    async def until_idle(editor: CodeEditor) -> float:
        started = time.perf_counter()
        await pilot.pause()  # what the load or key posted (a highlight to start) is handled
        while busy(editor):
            await asyncio.sleep(TICK)
        return time.perf_counter() - started

    result: dict[str, object] = {"items": items, "chars": len(text), "lines": text.count("\n")}
    async with app.run_test(size=(200, 50)) as pilot:
        editor = app.query_one(CodeEditor)
        editor.focus()
        await pilot.pause()
        sampler = asyncio.ensure_future(sample())

        def stall_since(first: int) -> int:
            return round(max(gaps[first:], default=0) * 1000)

        mark = len(gaps)
        started = time.perf_counter()
        editor.load_text(text)
        await until_idle(editor)
        result["load_to_ready_s"] = round(time.perf_counter() - started, 2)
        result["load_longest_stall_ms"] = stall_since(mark)
        assert editor.document.text == text

        for name, keys in (
            ("down", ["down"] * 20),
            ("pagedown", ["pagedown"] * 10),
            ("type", ["x"] * 10),
            ("enter", ["enter"] * 5),
            ("undo", ["ctrl+z"] * 5),
        ):
            times = []
            for key in keys:
                pressed = time.perf_counter()
                await pilot.press(key)
                await until_idle(editor)
                times.append(time.perf_counter() - pressed)
            result[f"key_{name}_ms_max"] = round(max(times) * 1000)
            result[f"key_{name}_ms_mean"] = round(sum(times) / len(times) * 1000)

        mark = len(gaps)
        started = time.perf_counter()
        await pilot.resize_terminal(140, 50)
        await pilot.pause()
        await until_idle(editor)
        result["resize_to_ready_s"] = round(time.perf_counter() - started, 2)
        result["resize_longest_stall_ms"] = stall_since(mark)
        result["longest_stall_ms"] = stall_since(0)
        sampling = False
        await sampler
    return result


async def measure_app(path: Path) -> dict[str, object]:
    from goose_tui.tui.app import GooseTUI
    from goose_tui.tui.widgets.code_editor import CodeEditor

    app = GooseTUI(path)
    gaps: list[float] = []

    async def quiet() -> None:  # no worker running for a few ticks in a row
        calm = 0
        while calm < 5:
            await asyncio.sleep(TICK * 5)
            calm = 0 if any(worker.is_running for worker in app.workers) else calm + 1

    async with app.run_test(size=(200, 50)) as pilot:
        await quiet()
        await pilot.press("c")
        await quiet()
        editor = app.main.query_one("#json-editor", CodeEditor)
        last = started = time.perf_counter()
        await pilot.press("e")
        await pilot.pause()
        while editor.getting_ready or any(
            worker.node is editor and worker.is_running for worker in app.workers
        ):
            await asyncio.sleep(TICK)
            now = time.perf_counter()
            gaps.append(now - last - TICK)
            last = now
        ready = time.perf_counter() - started
        return {
            "file_mb": round(path.stat().st_size / 1e6, 1),
            "json_chars": len(editor.text),
            "json_lines": editor.document.line_count,
            "e_to_ready_s": round(ready, 2),
            "longest_stall_ms": round(max(gaps, default=0) * 1000),
        }


def main() -> None:
    args = sys.argv[1:]
    if args[:1] != ["--app"]:
        print(json.dumps(asyncio.run(measure(int(args[0]) if args else 50_000))))
        return
    if len(args) > 1:
        print(json.dumps(asyncio.run(measure_app(Path(args[1])))))
        return
    import tempfile

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import gen_session

    with tempfile.TemporaryDirectory(prefix="goose-tui-big-") as tmp:
        path = Path(tmp) / "big-session.jsonl"
        gen_session.write_big_jsonl(path, target_bytes=50_000_000, messages=20_000)
        print(json.dumps(asyncio.run(measure_app(path))))


if __name__ == "__main__":
    main()
