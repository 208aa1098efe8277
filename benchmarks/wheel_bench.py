"""goose-tui side by side with the goose-sdk wheel (Goose's compiled Rust pipeline), issue 12.

Each row is a ratio measured in one run, the two sides alternated (A B A B ...), the best of
each side taken. Both sides compact the same text conversation with Goose's own templates
against one loopback server that streams the same ~8 KB summary reply.

- API: the compaction call alone, in a fresh interpreter (ours: ``summarize`` with the
  litellm backend, litellm imported before the clock; the wheel: ``Provider.compact``).
- CLI: whole processes, start-up included: ``goose-tui compact SESSION --prompts-dir DIR``
  with ``--replay REPLY`` or with ``--model openai/gpt-4o --api-base URL``, against a script
  that loads the same conversation, calls the wheel and prints the summary.
- background: SIGINT ignored and output to a file (as ``cmd &`` from a shell); pty: output to
  a pseudo-terminal and Python's own SIGINT handler (as typed at a prompt).

Peak memory is each process's own VmHWM (benchmarks/_wheel_child.py); goose-tui's with
``--model`` adds its litellm worker process's.
"""

from __future__ import annotations

import json
import os
import pty
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CHILD = HERE / "_wheel_child.py"
MB = 1_000_000
ABORTS: list[str] = []  # modes whose process aborted at exit after reporting


def conversation(n_messages: int, seed: int = 5) -> list[tuple[str, str]]:
    """Alternating user / assistant text messages, ~2 KB each (2.3 MB at 1,250)."""
    sys.path.insert(0, str(HERE))
    import gen_session

    rng = random.Random(seed)
    roles = ("user", "assistant")
    return [
        (roles[i % 2], gen_session._prose(rng, rng.randint(1200, 2500))) for i in range(n_messages)
    ]


def write_inputs(folder: Path, pairs: list[tuple[str, str]]) -> tuple[Path, Path]:
    """The conversation as a Goose JSONL session (ours) and as JSON pairs (the wheel's)."""
    session = folder / f"conversation-{len(pairs)}.jsonl"
    lines = [json.dumps({"description": f"bench {len(pairs)}", "message_count": len(pairs)})]
    for i, (role, text) in enumerate(pairs):
        message = {
            "id": f"m{i}",
            "role": role,
            "created": 1_700_000_000 + i,
            "content": [{"type": "text", "text": text}],
        }
        lines.append(json.dumps(message, ensure_ascii=False))
    session.write_text("\n".join(lines) + "\n", encoding="utf-8")
    pairs_path = folder / f"conversation-{len(pairs)}.json"
    pairs_path.write_text(json.dumps(pairs, ensure_ascii=False), encoding="utf-8")
    return session, pairs_path


def summary_reply(n_bytes: int = 8_000) -> str:
    """An ~8 KB reply with an analysis and a summary block, as a model writes it."""
    files = []
    i = 0
    while len(json.dumps(files)) < n_bytes - 1_500:
        files.append(
            {"path": f"src/module_{i}.py", "summary": f"handles part {i} of the pipeline " * 3}
        )
        i += 1
    summary = {
        "user_intent": ["compact the benchmark conversation"],
        "files": files,
        "current_work": "measuring compaction side by side with the wheel",
        "next_step": "read the table",
    }
    analysis = "The conversation is a generated benchmark. " * 20
    return f"<analysis>\n{analysis}\n</analysis>\n\n```json\n{json.dumps(summary, indent=1)}\n```\n"


def run_process(
    argv: list[str], *, mode: str, workdir: Path, timeout: float = 600
) -> tuple[float, dict[str, Any]]:
    """(wall seconds, the child's JSON report) of one process started ``mode``
    ("background" or "pty")."""
    result = workdir / "child-result.json"
    result.unlink(missing_ok=True)
    env = {**os.environ, "BENCH_RESULT": str(result), "TERM": "xterm-256color"}
    env = {k: v for k, v in env.items() if not k.startswith(("GOOSE_", "OPENAI_"))}
    env["XDG_CONFIG_HOME"] = str(workdir / "xdg")
    ignore = mode == "background"

    def prepare() -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN if ignore else signal.SIG_DFL)

    first_byte: list[float] = []

    def drain(fd: int) -> None:
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            if not first_byte:
                first_byte.append(time.perf_counter())

    if mode == "pty":
        read_fd, write_fd = pty.openpty()
        stdin: Any = write_fd
    else:
        read_fd, write_fd = os.pipe()
        stdin = subprocess.DEVNULL
    reader = threading.Thread(target=drain, args=(read_fd,), daemon=True)
    reader.start()
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdin=stdin, stdout=write_fd, stderr=write_fd, cwd=ROOT, env=env, preexec_fn=prepare
    )
    os.close(write_fd)
    proc.wait(timeout=timeout)
    wall = time.perf_counter() - start
    reader.join(timeout=10)
    os.close(read_fd)
    report = json.loads(result.read_text()) if result.exists() else {}
    # The wheel's process sometimes aborts while exiting ("FATAL: exception not rethrown",
    # SIGABRT, after its work is done and reported): counted as a run, the abort noted.
    aborted_after_work = proc.returncode == -signal.SIGABRT and report
    if proc.returncode != 0 and not aborted_after_work:
        raise RuntimeError(f"{argv[1:3]} exited {proc.returncode}")
    if aborted_after_work:
        ABORTS.append(argv[-1])
    report["first_byte"] = first_byte[0] - start if first_byte else wall
    return wall, report


def paired(
    ours: Callable[[], tuple[float, dict]], wheel: Callable[[], tuple[float, dict]], runs: int
) -> tuple[float, float, int, int]:
    """Alternate the two sides ``runs`` times: (best ours, best wheel, peak ours, peak wheel)."""
    best_o = best_w = float("inf")
    peak_o = peak_w = 0
    for _ in range(runs):
        t, rep = ours()
        best_o, peak_o = min(best_o, t), max(peak_o, rep.get("peak_bytes", 0))
        t, rep = wheel()
        best_w, peak_w = min(best_w, t), max(peak_w, rep.get("peak_bytes", 0))
    return best_o, best_w, peak_o, peak_w


def wheel_rows(
    add: Callable[..., None], workdir: Path, sizes: tuple[int, ...], runs: int = 2
) -> None:
    """Add the rows (figure, measured, target, ok) through ``add``."""
    try:
        import goose
    except ImportError as exc:
        add("wheel rows", f"n/a: goose-sdk not installed ({exc})", "-", False)
        return
    sys.path.insert(0, str(ROOT))
    from tests.loopback import LoopbackServer, Reply

    prompts = workdir / "goose-prompts"
    prompts.mkdir(exist_ok=True)
    defaults = goose.default_compaction_templates()
    (prompts / "compaction.md").write_bytes(defaults.compaction.encode())
    (prompts / "compaction_summary.md").write_bytes(defaults.summary.encode())
    reply_text = summary_reply()
    reply = workdir / "reply.md"
    reply.write_text(reply_text, encoding="utf-8")
    py = sys.executable

    with LoopbackServer([Reply.sse(reply_text, chunk_size=64)]) as server:
        base = server.url
        startup_rows(add, workdir, prompts, reply, base, runs + 1)
        for n in sizes:
            session, pairs = write_inputs(workdir, conversation(n))
            size = session.stat().st_size / MB
            target = 1.5 if n < 5_000 else 1.0
            label = f"{n:,} messages ({size:.1f} MB)"

            def one(argv: list[str], mode: str) -> Callable[[], tuple[float, dict]]:
                def run() -> tuple[float, dict]:
                    wall, report = run_process(argv, mode=mode, workdir=workdir)
                    server.requests.clear()  # each holds the whole prompt
                    return (report.get("seconds", wall), report)

                return run

            wheel_api = [py, str(CHILD), "api-wheel", str(pairs), base]
            ours_api = [py, str(CHILD), "api-ours", str(session), str(prompts), base]
            wheel_cli = [py, str(CHILD), "cli-wheel", str(pairs), base]
            common = [py, str(CHILD), "cli-ours", "compact", str(session), "--prompts-dir"]
            replay_cli = [*common, str(prompts), "--replay", str(reply)]
            model_cli = [*common, str(prompts), "--model", "openai/gpt-4o", "--api-base", base]
            rows = [
                ("API summarize / wheel compact", ours_api, wheel_api),
                ("CLI compact --replay / wheel script", replay_cli, wheel_cli),
                ("CLI compact --model (litellm) / wheel script", model_cli, wheel_cli),
            ]
            for what, ours_argv, wheel_argv in rows:
                for mode in ("background", "pty"):
                    figure = f"{what}, {label}, {mode}"
                    try:
                        t_o, t_w, p_o, p_w = paired(
                            one(ours_argv, mode), one(wheel_argv, mode), runs
                        )
                    except Exception as exc:  # noqa: BLE001 - report, keep benchmarking
                        add(figure, f"n/a: {exc!r}"[:120], f"<= {target}x", False)
                        continue
                    ratio = t_o / t_w
                    add(
                        figure,
                        f"{ratio:.2f}x ({t_o:.2f} s / {t_w:.2f} s; peak {p_o / MB:.0f} MB / "
                        f"{p_w / MB:.0f} MB)",
                        f"<= {target}x",
                        ratio <= target,
                    )
                    if n == max(sizes) and what.startswith("CLI compact --model"):
                        add(
                            f"peak RSS (with the litellm worker's), {figure}",
                            f"{p_o / p_w:.2f}x ({p_o / MB:.0f} MB / {p_w / MB:.0f} MB)",
                            "<= 1.0x",
                            p_o <= p_w,
                        )


def startup_rows(
    add: Callable[..., None], workdir: Path, prompts: Path, reply: Path, base: str, runs: int
) -> None:
    """CLI start-up: first byte of ``compact --model … --api-base`` / ``compact --replay``
    on a 100-message conversation (what the user waits for before any output)."""
    session, _ = write_inputs(workdir, conversation(100))
    py = sys.executable
    common = [py, str(CHILD), "cli-ours", "compact", str(session), "--prompts-dir", str(prompts)]
    replay_cli = [*common, "--replay", str(reply)]
    model_cli = [*common, "--model", "openai/gpt-4o", "--api-base", base]
    # The floor: litellm's own import in a fresh interpreter, nothing of ours.
    import_only = [
        py,
        "-c",
        "import os; os.environ['LITELLM_LOCAL_MODEL_COST_MAP']='True'; import litellm",
    ]
    for mode in ("background", "pty"):
        figure = f"CLI start-up to first byte, --model (litellm) / --replay, 100 messages, {mode}"
        if mode == "pty":  # stderr on the terminal too: compact's status line comes first
            figure += " (the first byte: compact's status line on stderr)"
        best_m = best_r = best_i = float("inf")
        try:
            for _ in range(runs):
                best_m = min(
                    best_m, run_process(model_cli, mode=mode, workdir=workdir)[1]["first_byte"]
                )
                best_r = min(
                    best_r, run_process(replay_cli, mode=mode, workdir=workdir)[1]["first_byte"]
                )
                best_i = min(best_i, run_process(import_only, mode=mode, workdir=workdir)[0])
        except Exception as exc:  # noqa: BLE001
            add(figure, f"n/a: {exc!r}"[:120], "<= 1.5x", False)
            continue
        ratio = best_m / best_r
        add(
            figure,
            f"{ratio:.2f}x ({best_m:.2f} s / {best_r:.2f} s; `python -c 'import litellm'` "
            f"alone: {best_i:.2f} s)",
            "<= 1.5x",
            ratio <= 1.5,
        )


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description="goose-tui vs the goose-sdk wheel")
    parser.add_argument("--sizes", default="1250,5000,20000")
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args(argv)
    sizes = tuple(int(s) for s in args.sizes.split(","))
    failed = 0

    def add(figure: str, measured: str, target: str, ok: bool) -> None:
        nonlocal failed
        failed += not ok
        print(f"| {figure} | {measured} | {target} | {'pass' if ok else '**FAIL**'} |", flush=True)

    with tempfile.TemporaryDirectory(prefix="goose-tui-wheel-") as tmp:
        wheel_rows(add, Path(tmp), sizes, args.runs)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
