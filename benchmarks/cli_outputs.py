"""Every CLI command's output on the bundled samples, written to a folder; or two folders compared.

    python benchmarks/cli_outputs.py OUT_DIR [--root TREE]   # run every case, write OUT_DIR
    python benchmarks/cli_outputs.py DIR_A DIR_B             # compare two runs byte for byte

A refactoring that should not change behaviour is checked by running this on the tree before
and after it and comparing the two folders. Each case runs `python -m goose_tui ARGS` in a
fresh folder holding a copy of the samples (with one fixed mtime, since `sessions` prints it),
with the offline summarizer, a private HOME/XDG and a fixed terminal width; its stdout, stderr,
exit code and every file it wrote are saved under OUT_DIR/CASE/, with what changes from run to
run put as a placeholder: the temporary folder, uuids, elapsed seconds, and times within a day
of now (a saved session's new messages and updated_at). Batches run one session at a time so
their progress lines keep one order. `--root` runs another tree's
goose_tui (put first on PYTHONPATH) with this interpreter; the inputs are always this tree's
samples, so two runs differ only in the code.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
SAMPLES = HERE / "sample_sessions"
INPUTS = ("short.jsonl", "long_session.jsonl", "export.json", "sessions.db")
MTIME = 1_760_000_000  # 2025-10-09, any fixed time
UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
SECONDS = re.compile(rb'"seconds": [0-9.]+')
EPOCH = re.compile(rb"\b1[0-9]{9}\b")
ISO = re.compile(rb"\b(\d{4}-\d{2}-\d{2})[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?Z?")

SUMMARY = {
    "user_intent": "Fix the rounding of cents in invoice totals.",
    "important_context": ["totals are Decimal", "tests in tests/test_totals.py"],
    "files": ["invoicer/totals.py"],
    "next_steps": ["run the tests"],
}
REPLY_JSON = (
    "<analysis>The user wants the cents fixed.</analysis>\n```json\n"
    + json.dumps(SUMMARY, indent=2)
    + "\n```\n"
)
REPLY_PROSE = "I could not produce JSON, but the user wants the invoice totals rounded.\n"
TEMPLATE = "Summarize the conversation below in one paragraph.\n\n{{ messages }}\n"


def cases() -> dict[str, list[str]]:
    """Name -> arguments. Names are folder names; inputs are relative to the case's folder."""
    c: dict[str, list[str]] = {
        "help": ["--help"],
        "version": ["--version"],
        "no_args_bad_option": ["--no-such-option"],
    }
    subs = "format prompt parse render usage sessions compact retention probe compare timeline"
    for sub in [*subs.split(), "batch", "schema"]:
        c[f"{sub}_help"] = [sub, "--help"]
    sessions = {
        "short": ["short.jsonl"],
        "long": ["long_session.jsonl"],
        "export": ["export.json"],
        "db": ["sessions.db", "--session", "20251015_1"],
    }
    for name, s in sessions.items():
        c[f"format_{name}"] = ["format", *s]
        c[f"format_{name}_main"] = ["format", *s, "--goose-profile", "goose-main"]
        c[f"prompt_{name}"] = ["prompt", *s]
        c[f"usage_{name}"] = ["usage", *s]
        c[f"usage_{name}_json"] = ["usage", *s, "--json"]
        c[f"compact_{name}"] = ["compact", *s]
        c[f"compact_{name}_json"] = ["compact", *s, "--json"]
        c[f"retention_{name}"] = ["retention", *s]
        c[f"retention_{name}_json"] = ["retention", *s, "--json"]
        c[f"probe_{name}"] = ["probe", *s]
        c[f"probe_{name}_json"] = ["probe", *s, "--json"]
        c[f"timeline_{name}"] = ["timeline", *s]
        c[f"timeline_{name}_json"] = ["timeline", *s, "--json"]
        c[f"compare_{name}"] = ["compare", *s, "--a", "offline", "--b", "offline"]
    c.update(
        {
            "prompt_focus": ["prompt", "short.jsonl", "--focus", "keep the file names"],
            "prompt_override": ["prompt", "short.jsonl", "--prompts-dir", "prompts"],
            "usage_limits": [
                "usage",
                "long_session.jsonl",
                "--context-limit",
                "8000",
                "--threshold",
                "0.5",
            ],
            "usage_model": ["usage", "short.jsonl", "--model", "gpt-4o"],
            "timeline_limits": [
                "timeline",
                "long_session.jsonl",
                "--context-limit",
                "8000",
                "--threshold",
                "0.5",
            ],
            "timeline_threshold_off": ["timeline", "short.jsonl", "--threshold", "0"],
            "compact_focus_json": [
                "compact",
                "short.jsonl",
                "--focus",
                "keep the file names",
                "--json",
            ],
            "compact_override": ["compact", "short.jsonl", "--prompts-dir", "prompts"],
            "compact_main": [
                "compact",
                "long_session.jsonl",
                "--goose-profile",
                "goose-main",
                "--json",
            ],
            "compact_replay": ["compact", "short.jsonl", "--replay", "reply.txt", "--json"],
            "compact_replay_prose": ["compact", "short.jsonl", "--replay", "prose.txt", "--json"],
            "compact_ladder": [
                "compact",
                "long_session.jsonl",
                "--offline-context-limit",
                "3000",
                "--json",
            ],
            "compact_o": ["compact", "short.jsonl", "-o", "out.md"],
            "compact_o_exists": ["compact", "short.jsonl", "-o", "short.jsonl"],
            "compact_save_jsonl": ["compact", "short.jsonl", "--save-session", "saved.jsonl"],
            "compact_save_json": [
                "compact",
                "export.json",
                "--save-session",
                "saved.json",
                "--save-format",
                "json",
            ],
            "compact_raw": ["compact", "short.jsonl", "--raw"],
            "parse_json_reply": ["parse", "reply.txt"],
            "parse_json_reply_json": ["parse", "reply.txt", "--json"],
            "parse_prose_json": ["parse", "prose.txt", "--json"],
            "parse_override": ["parse", "reply.txt", "--prompts-dir", "prompts"],
            "render_summary": ["render", "summary.json"],
            "render_bad": ["render", "prose.txt"],
            "sessions_db": ["sessions", "sessions.db"],
            "sessions_db_json": ["sessions", "sessions.db", "--json"],
            "sessions_db_all": ["sessions", "sessions.db", "--all-sessions"],
            "sessions_folder": ["sessions", "."],
            "sessions_folder_all_json": ["sessions", ".", "--all-sessions", "--json"],
            "sessions_db_pick_missing": ["format", "sessions.db", "--session", "nope"],
            "retention_summary": ["retention", "short.jsonl", "--summary", "prose.txt", "--json"],
            "retention_replay": ["retention", "short.jsonl", "--replay", "reply.txt"],
            "probe_summary": ["probe", "short.jsonl", "--summary", "prose.txt", "--json"],
            "compare_templates": [
                "compare",
                "short.jsonl",
                "--a",
                "offline",
                "--b",
                "offline",
                "--b-prompts-dir",
                "prompts",
            ],
            "compare_replay_json": [
                "compare",
                "short.jsonl",
                "--a",
                "offline",
                "--b",
                "replay:reply.txt",
                "--json",
            ],
            "batch_folder": ["batch", ".", "--model", "offline", "--concurrency", "1"],
            "batch_folder_json": [
                "batch",
                ".",
                "--model",
                "offline",
                "--json",
                "--concurrency",
                "1",
            ],
            "batch_db_all": [
                "batch",
                "sessions.db",
                "--model",
                "offline",
                "--all-sessions",
                "--concurrency",
                "1",
            ],
            "batch_o": [
                "batch",
                ".",
                "--model",
                "offline",
                "-o",
                "report.md",
                "--concurrency",
                "1",
            ],
            "batch_o_json": [
                "batch",
                ".",
                "--model",
                "offline",
                "-o",
                "report.json",
                "--concurrency",
                "1",
            ],
            "schema": ["schema"],
            "missing_file": ["format", "nope.jsonl"],
            "not_a_session": ["usage", "summary.json"],
            "bad_threshold": ["usage", "short.jsonl", "--threshold", "abc"],
            "unknown_schema": ["schema", "nope"],
        }
    )
    for name in (
        "parse",
        "usage",
        "sessions",
        "compact",
        "retention",
        "probe",
        "compare",
        "timeline",
        "batch",
    ):
        c[f"schema_{name}"] = ["schema", name]
    return c


def lay_out(folder: Path) -> None:
    """The inputs a case sees: the samples, a reply, a prose reply, a summary, an override."""
    for name in INPUTS:
        shutil.copyfile(SAMPLES / name, folder / name)
    (folder / "reply.txt").write_text(REPLY_JSON)
    (folder / "prose.txt").write_text(REPLY_PROSE)
    (folder / "summary.json").write_text(json.dumps(SUMMARY))
    (folder / "prompts").mkdir()
    (folder / "prompts" / "compaction.md").write_text(TEMPLATE)
    for p in folder.rglob("*"):
        os.utime(p, (MTIME, MTIME))
    os.utime(folder, (MTIME, MTIME))


def normalized(data: bytes, tmp: str) -> bytes:
    now = time.time()
    today = {time.strftime("%Y-%m-%d", time.gmtime(now + d)).encode() for d in (-86400, 0, 86400)}
    data = data.replace(tmp.encode(), b"$TMP")
    data = UUID.sub(b"$UUID", data)
    data = SECONDS.sub(b'"seconds": $S', data)
    data = EPOCH.sub(lambda m: b"$NOW" if abs(int(m[0]) - now) < 86400 else m[0], data)
    return ISO.sub(lambda m: b"$NOW" if m[1] in today else m[0], data)


def run_case(name: str, args: list[str], out: Path, root: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="cli-outputs-") as tmp:
        base = Path(tmp)
        work = base / "w"
        work.mkdir()
        lay_out(work)
        before = {p: p.read_bytes() for p in work.rglob("*") if p.is_file()}
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(base / "home"),
            "XDG_CONFIG_HOME": str(base / "home" / ".config"),
            "XDG_STATE_HOME": str(base / "home" / ".local" / "state"),
            "XDG_CACHE_HOME": str(base / "home" / ".cache"),
            "XDG_DATA_HOME": str(base / "home" / ".local" / "share"),
            "PYTHONPATH": str(root),
            "PYTHONHASHSEED": "0",
            "COLUMNS": "100",
            "LINES": "40",
            "TERM": "dumb",
            "LANG": "C.UTF-8",
            "TZ": "UTC",
        }
        proc = subprocess.run(
            [sys.executable, "-m", "goose_tui", *args],
            cwd=work,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=300,
        )
        dest = out / name
        dest.mkdir(parents=True)
        (dest / "args").write_text(json.dumps(args) + "\n")
        (dest / "stdout").write_bytes(normalized(proc.stdout, tmp))
        (dest / "stderr").write_bytes(normalized(proc.stderr, tmp))
        (dest / "exit").write_text(f"{proc.returncode}\n")
        for p in sorted(work.rglob("*")):
            if p.is_file() and before.get(p) != p.read_bytes():
                target = dest / "files" / p.relative_to(work)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(normalized(p.read_bytes(), tmp))


def write(out: Path, root: Path, jobs: int) -> int:
    if out.exists() and any(out.iterdir()):
        print(f"{out}: not empty", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    all_cases = cases()
    with ThreadPoolExecutor(jobs) as pool:
        list(pool.map(lambda kv: run_case(kv[0], kv[1], out, root), all_cases.items()))
    print(f"{len(all_cases)} cases written to {out}")
    return 0


def compare(a: Path, b: Path) -> int:
    different: list[str] = []

    def walk(cmp: filecmp.dircmp[str], rel: str) -> None:
        for n in cmp.left_only:
            different.append(f"only in {a}: {rel}{n}")
        for n in cmp.right_only:
            different.append(f"only in {b}: {rel}{n}")
        for n in cmp.common_files:
            if (Path(cmp.left) / n).read_bytes() != (Path(cmp.right) / n).read_bytes():
                different.append(f"differs: {rel}{n}")
        for n, sub in cmp.subdirs.items():
            walk(sub, f"{rel}{n}/")

    walk(filecmp.dircmp(a, b), "")
    for line in different:
        print(line)
    cases_n = sum(1 for p in a.iterdir() if p.is_dir())
    print(f"{cases_n} cases, {len(different)} difference(s)")
    return 1 if different else 0


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("out", type=Path)
    ap.add_argument("other", type=Path, nargs="?", help="compare OUT with this folder")
    ap.add_argument("--root", type=Path, default=HERE, help="the tree whose goose_tui runs")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ns = ap.parse_args()
    if ns.other is not None:
        return compare(ns.out, ns.other)
    return write(ns.out, ns.root.resolve(), ns.jobs)


if __name__ == "__main__":
    sys.exit(main())
