"""A session and a model reply full of what must stay text in a report: HTML that would
load from the network or run, Markdown links and images, terminal escapes, a bidi
override, and backtick runs that would end a Markdown fence."""

from __future__ import annotations

import json
from pathlib import Path

# Where a page that leaked a request would send it; the browser test listens there.
BEACON = "http://127.0.0.1:{port}/beacon"

HOSTILE_USER = (
    'Look at <img src="{beacon}/img.png"> and <script src="{beacon}/s.js"></script> '
    '<link rel="stylesheet" href="{beacon}/c.css"> ![x]({beacon}/md.png) [click]({beacon}/a) '
    "\x1b]52;c;aGk=\x07 evil\u202egpj.exe\n```\nnot the end of a fence\n````"
)


def hostile_reply(beacon: str) -> str:
    summary = {
        "user_intent": [HOSTILE_USER.format(beacon=beacon)],
        "technical_concepts": [f"<iframe src='{beacon}/frame'></iframe>"],
        "files": [
            {
                "path": "</pre><script>alert(1)</script>",
                "summary": f"<style>@import url({beacon}/style.css);</style>",
                "key_code": "line one\nline two `` ``` ````",
            }
        ],
        "current_work": f"![beacon]({beacon}/work.png)",
    }
    return (
        f'<analysis>\n<img src="{beacon}/analysis.png"> thinking\n</analysis>\n\n'
        f"```json\n{json.dumps(summary)}\n```\n"
    )


def write_hostile_session(folder: Path, port: int) -> tuple[Path, Path]:
    """(session file, reply file) in ``folder``, naming the beacon at ``port``."""
    beacon = BEACON.format(port=port)
    session = folder / "hostile.json"
    session.write_text(
        json.dumps(
            [
                {"role": "user", "content": HOSTILE_USER.format(beacon=beacon)},
                {"role": "assistant", "content": f'<a href="{beacon}/reply">done</a>'},
            ]
        ),
        encoding="utf-8",
    )
    reply = folder / "reply.txt"
    reply.write_text(hostile_reply(beacon), encoding="utf-8")
    return session, reply
