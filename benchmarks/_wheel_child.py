"""One side of a goose-tui / goose-sdk wheel comparison, in a fresh interpreter; run by
bench.py (wheel_rows). Writes what it measured as one JSON object to the file named by
$BENCH_RESULT (stdout stays the program's own output, as a user would see it).

python benchmarks/_wheel_child.py api-ours SESSION.jsonl PROMPTS_DIR API_BASE
python benchmarks/_wheel_child.py api-wheel CONVERSATION.json API_BASE
python benchmarks/_wheel_child.py cli-ours ARG...      # goose-tui's main(ARG...)
python benchmarks/_wheel_child.py cli-wheel CONVERSATION.json API_BASE   # load + compact + print

``api-*`` time the compaction call alone (the conversation is loaded first); ``cli-*`` are
timed from outside, as whole processes. Every mode reports its own peak resident set
(VmHWM: this process's, not carried over from the parent as ru_maxrss is across exec), plus
that of goose-tui's litellm worker process when the CLI started one (the sum of the two
peaks: the most the two could have held at once).
"""

from __future__ import annotations

import json
import os
import sys
import time


def _peak_bytes(pid: int | str = "self") -> int:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def _worker_peak_bytes() -> int:
    """The litellm worker process's peak, read while it still runs (it ends at exit)."""
    module = sys.modules.get("goose_tui.llm.litellm_worker")
    worker = getattr(module, "_worker", None)
    if worker is None or not worker.alive():
        return 0
    return _peak_bytes(worker.process.pid)


def _report(**values: object) -> None:
    path = os.environ.get("BENCH_RESULT")
    worker = _worker_peak_bytes()
    values["worker_peak_bytes"] = worker
    values["peak_bytes"] = _peak_bytes() + worker
    if path:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(values, f)


def _wheel_messages(path: str) -> list:
    import goose

    roles = {"user": goose.MessageRole.USER, "assistant": goose.MessageRole.ASSISTANT}
    with open(path, encoding="utf-8") as f:
        pairs = json.load(f)
    return [goose.CompactionMessage(role=roles[r], text=t) for r, t in pairs]


def _wheel_compact(conversation: str, api_base: str, warm: bool) -> tuple[str, float]:
    import asyncio

    import goose

    messages = _wheel_messages(conversation)
    provider = goose.openai_provider("sk-bench", api_base)
    if warm:  # the first call's one-off costs are start-up, not compaction
        hello = [goose.CompactionMessage(role=goose.MessageRole.USER, text="hello")]
        asyncio.run(provider.compact("gpt-4o", hello, None))
    start = time.perf_counter()
    summary = asyncio.run(provider.compact("gpt-4o", messages, None))
    return summary.text, time.perf_counter() - start


def main(argv: list[str]) -> int:
    mode, args = argv[0], argv[1:]
    if mode == "api-ours":
        import asyncio
        from pathlib import Path

        from goose_tui.compaction.summarize import summarize
        from goose_tui.compaction.templates import load_templates
        from goose_tui.llm.litellm_backend import LiteLLMSummarizer, load_litellm
        from goose_tui.session.loader import load_session
        from goose_tui.session.models import Message

        session_path, prompts_dir, api_base = args
        messages = load_session(Path(session_path)).messages
        templates = load_templates(Path(prompts_dir))
        summarizer = LiteLLMSummarizer("openai/gpt-4o", api_base=api_base, api_key="sk-bench")
        asyncio.run(load_litellm())  # the client's import is start-up, not compaction
        # So is the first call's (litellm builds its HTTP client and pydantic models then).
        hello = [Message(role="user", content=[{"type": "text", "text": "hello"}])]
        asyncio.run(summarize(hello, summarizer, templates))

        async def compact() -> str:
            # The result stays in this coroutine: asyncio.run returns a str.
            result = await summarize(messages, summarizer, templates)
            return result.summary

        start = time.perf_counter()
        summary = asyncio.run(compact())
        _report(seconds=time.perf_counter() - start, summary_chars=len(summary))
        return 0
    if mode == "api-wheel":
        conversation, api_base = args
        summary, seconds = _wheel_compact(conversation, api_base, warm=True)
        _report(seconds=seconds, summary_chars=len(summary))
        return 0
    if mode == "cli-ours":
        from goose_tui.cli import main as goose_tui_main

        code = goose_tui_main(args)
        sys.stdout.flush()
        _report(exit_code=code)
        return code
    if mode == "cli-wheel":
        conversation, api_base = args
        summary, _ = _wheel_compact(conversation, api_base, warm=False)
        sys.stdout.write(summary + "\n")
        sys.stdout.flush()
        _report(exit_code=0)
        return 0
    raise SystemExit(f"unknown mode {mode}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
