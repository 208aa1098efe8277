"""The offline summarizer's reply, byte for byte, against replies recorded from its earlier
code (tests/fixtures/offline/replies.json, recorded at b5c347e, when it parsed the whole
conversation into objects before writing): it now reads one message at a time, and what it
writes must not change.

The prompts are generated from seeds here: every kind of line the offline model reads
(tool requests of each file verb, shell commands, tool output with and without errors,
fenced code, empty messages, non-ASCII, very long lines), each around the built-in
template, with a focus, after another template's prose, or glued to it without a newline.
Re-record (only for an intended change of output) with
``python -m tests.llm.test_offline_replies``.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from unittest.mock import patch

import pytest

import goose_tui.compaction.templates  # noqa: F401  # registers the built-in prompt layout
from goose_tui.llm import offline
from goose_tui.llm.prompt_layout import prompt_layout
from goose_tui.pieces import Pieces

FIXTURE = Path(__file__).parents[1] / "fixtures" / "offline" / "replies.json"
WRAPS = ("builtin", "builtin-focus", "other", "no-newline")
WORDS = (
    "fix the test",
    "in calc.py",
    "run pytest",
    "the npm build",
    "with git log",
    "a docker image",
    "sqlite and sql",
    "parse the json",
    "yaml config",
    "http server",
    "asyncio loop",
    "textual app",
    "also",
    "next",
    "later",
    "TODO",
    "ok.",
    "Done!",
    "why?",
    "naïve café",
    "日本語のテキスト",
    "emoji 🎉 here",
    "Ünïcödé ΣΑΣ",
    "K-sign \u212a",
    "zero\u200bwidth",
    "tab\there",
    "]",
    "[user]",
    "tool_response:",
)
TOOLS = (
    "developer__text_editor",
    "developer__shell",
    "write",
    "view",
    "read_file",
    "edit_file",
    "apply_patch",
    "custom__thing",
    "shell",
)
COMMANDS = ("view", "create", "str_replace", "insert", "undo_edit", "write", "frobnicate", "")
ERRORS = (
    "Traceback (most recent call last):",
    '  File "/w/x.py", line 3, in f',
    "ValueError: bad value",
    "error[E0308]: mismatched types",
    "thread 'main' panicked at src/main.rs:2:5",
    "fatal: not a git repository",
    "bash: foo: command not found",
    "exit code 2",
    "FAILED tests/test_x.py::test_y",
    "ls: cannot access 'x': No such file or directory",
    "raise RuntimeError('boom')",
    "KeyError Exception here",
)


def _prose(rng: random.Random, words: int) -> str:
    out = " ".join(rng.choice(WORDS) for _ in range(words))
    if rng.random() < 0.1:
        out += " " + "long" * rng.randint(500, 3000)  # a very long line
    return out


def _text(rng: random.Random) -> str:
    lines = [_prose(rng, rng.randint(0, 12)) for _ in range(rng.randint(1, 4))]
    if rng.random() < 0.2:
        fence = rng.choice(("```", "~~~", "```json", "```python"))
        at = rng.randint(0, len(lines))
        lines[at:at] = [fence, _prose(rng, 3), "```" if fence != "~~~" else "~~~"]
    if rng.random() < 0.1:
        lines.insert(0, "")
    return "\n".join(lines)


def _arguments(rng: random.Random, tool: str) -> str:
    roll = rng.random()
    if roll < 0.05:
        return "not json {"
    if roll < 0.1:
        return json.dumps([1, 2])
    args: dict[str, object] = {}
    if tool.endswith("shell") or rng.random() < 0.3:
        args["command"] = rng.choice(("pytest -q", "git status", "npm test", _prose(rng, 4)))
    else:
        args["command"] = rng.choice(COMMANDS)
    if rng.random() < 0.8:
        key = rng.choice(("path", "file_path", "filename", "file", "target"))
        args[key] = rng.choice(("/w/calc.py", "/w/README.md", "/w/app.rs", "/w/日本.ts", "", 7))
    if rng.random() < 0.5:
        key = rng.choice(("new_str", "file_text", "content", "insert_text", "old_str"))
        args[key] = "\n".join(_prose(rng, 3) for _ in range(rng.randint(0, 30)))
    return json.dumps(args, ensure_ascii=rng.random() < 0.5)


def _output(rng: random.Random) -> str:
    lines = [_prose(rng, rng.randint(0, 6)) for _ in range(rng.randint(0, 5))]
    for _ in range(rng.choice((0, 0, 1, 3, 9))):
        lines.insert(rng.randint(0, len(lines)), rng.choice(ERRORS))
    return "\n".join(lines)


def _body(rng: random.Random) -> str:
    if rng.random() < 0.05:
        return "<empty message>"
    lines: list[str] = []
    for _ in range(rng.randint(1, 4)):
        roll = rng.random()
        if roll < 0.35:
            lines.append(_text(rng))
        elif roll < 0.6:
            tool = rng.choice(TOOLS)
            lines.append(f"tool_request({tool}): {_arguments(rng, tool)}")
        elif roll < 0.85:
            lines.append("tool_response: " + _output(rng))
        else:
            lines.append(
                rng.choice(
                    (
                        "tool_request: [error]",
                        "tool_response: [error]",
                        "frontend_tool_request: x",
                        "[image: image/png]",
                        "tool_request(bad: {}",
                        "",
                    )
                )
            )
    return "\n".join(lines)


def conversation(seed: int, messages: int) -> str:
    """A formatted conversation (docs/pipeline.md §2's ``[role]: `` lines) of about ``messages``."""
    rng = random.Random(seed)
    roles = ("user", "assistant", "user", "assistant", "system")
    return "\n".join(f"[{rng.choice(roles)}]: {_body(rng)}" for _ in range(messages))


def wrapped(body: str, wrap: str) -> str:
    """The conversation in a prompt, as ``wrap`` (one of ``WRAPS``) lays it out."""
    layout = prompt_layout()
    assert layout is not None
    return {
        "builtin": layout.prefix + body + layout.suffix,
        "builtin-focus": layout.prefix + body + layout.suffix + "\n\n" + layout.focus_heading,
        "other": "Summarize this:\n" + body + "\nThanks",
        "no-newline": "Summarize:" + body,
    }[wrap]


def cases() -> dict[str, str]:
    """Name -> prompt: seeded conversations of a few sizes and every wrap, and edge cases."""
    out = {
        f"seed{seed}-{wrap}": wrapped(conversation(seed, messages), wrap)
        for seed, messages in [(s, 1 + s * 3) for s in range(24)]
        for wrap in WRAPS
        if wrap == "builtin" or seed % 4 == 0
    }
    out |= {f"empty-{wrap}": wrapped("", wrap) for wrap in WRAPS}
    out |= {
        "no-role-lines": "Summarize this:\nnothing here [user] at all\n",
        "only-a-role": wrapped("[user]: ", "builtin"),
        "role-without-newline-before": "prose[user]: hi\n[assistant]: ok",
        "big": wrapped(conversation(99, 500), "builtin"),  # 2.7 MB: past 1 MiB windows
    }
    return out


def _recorded() -> dict[str, str]:
    return dict(json.loads(FIXTURE.read_text(encoding="utf-8")))


def _digest(reply: str) -> str:
    return hashlib.sha256(reply.encode("utf-8")).hexdigest()


CASES = cases()


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_reply_is_the_recorded_one(name: str) -> None:
    assert _digest(offline._reply_for(CASES[name])) == _recorded()[name]


@pytest.mark.parametrize("window", [1, 7, 64, 4096])
@pytest.mark.parametrize("seed", [3, 8, 20])
def test_the_reply_is_the_same_read_through_small_windows_and_pieces(
    seed: int, window: int
) -> None:
    # Role lines split across the windows the prompt is read in, and across its pieces.
    name = f"seed{seed}-builtin"
    prompt = CASES[name]
    rng = random.Random(seed * 1000 + window)
    bounds = [0, *sorted(rng.randrange(len(prompt) + 1) for _ in range(40)), len(prompt)]
    cut = Pieces(prompt[a:b] for a, b in zip(bounds, bounds[1:], strict=False))
    with patch.object(offline, "WINDOW_CHARS", window):
        assert _digest(offline._reply_for(cut)) == _recorded()[name]


def test_the_cases_cover_what_the_summary_reads() -> None:
    # The generator is worth its fixture only if the replies it records say something.
    reply = offline._reply_for(CASES["big"])
    fields = json.loads(reply.split("```json\n", 1)[1].removesuffix("\n```\n"))
    assert all(fields[k] for k in ("files", "errors_and_fixes", "pending_tasks", "user_intent"))
    assert any("Fix that followed" in error for error in fields["errors_and_fixes"])
    assert any("key_code" in entry for entry in fields["files"])
    assert len(CASES["big"]) > 2 * offline.WINDOW_CHARS


if __name__ == "__main__":
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    replies = {name: _digest(offline._reply_for(prompt)) for name, prompt in sorted(CASES.items())}
    FIXTURE.write_text(json.dumps(replies, indent=1) + "\n", encoding="utf-8")
