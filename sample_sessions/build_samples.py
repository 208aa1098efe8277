"""(Re)create the bundled sample sessions, deterministically: same bytes on every run.

    python sample_sessions/build_samples.py

Writes short.jsonl, long_session.jsonl, export.json and sessions.db next to this file and
checks that the long session is over 0.8 of its model's window (SPEC §8 estimate). The
sessions are written for this project in Goose's own shapes; the long one replays real
tool output captured from a small invoicing project (see invoicer_transcript.py).
"""

from __future__ import annotations

import base64
import json
import sqlite3
import struct
import sys
import uuid
import zlib
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import invoicer_transcript as T  # noqa: E402

from goose_tui.session.schema import create_schema, insert_session  # noqa: E402

Item = dict[str, Any]
NAMESPACE = uuid.UUID("6f1c2d8e-3b7a-4e55-9a0c-1d2e3f405162")
PROJECT = "/home/sam/src/invoicer"


class Conversation:
    """Builds Goose messages with stable ids and a clock that moves forward."""

    def __init__(self, key: str, start: int) -> None:
        self.key = key
        self.clock = start
        self.count = 0
        self.messages: list[dict[str, Any]] = []

    def _id(self, kind: str) -> str:
        self.count += 1
        return str(uuid.uuid5(NAMESPACE, f"{self.key}:{kind}:{self.count}"))

    def call_id(self) -> str:
        return "toolu_" + self._id("call").replace("-", "")[:24]

    def add(self, role: str, *items: Item, wait: int = 5, **metadata: bool) -> None:
        self.clock += wait
        self.messages.append(
            {
                "id": f"msg_{self._id('msg')}",
                "role": role,
                "created": self.clock,
                "content": list(items),
                "metadata": {"userVisible": True, "agentVisible": True, **metadata},
            }
        )

    def user(self, text_: str, *extra: Item, wait: int = 40) -> None:
        self.add("user", text(text_), *extra, wait=wait)

    def tool(self, name: str, wait: int = 6, **arguments: Any) -> str:
        """A tool call in the last assistant message; returns its id."""
        call = self.call_id()
        self.messages[-1]["content"].append(
            {
                "type": "toolRequest",
                "id": call,
                "toolCall": {"status": "success", "value": {"name": name, "arguments": arguments}},
            }
        )
        return call

    def results(self, *pairs: tuple[str, str, bool], wait: int = 3) -> None:
        self.add("user", *(tool_response(c, out, err) for c, out, err in pairs), wait=wait)


def text(value: str) -> Item:
    return {"type": "text", "text": value}


def thinking(value: str) -> Item:
    # The signature is opaque provider data; a fixed-looking token is enough here.
    digest = base64.b64encode(uuid.uuid5(NAMESPACE, value).bytes * 3).decode()
    return {"type": "thinking", "thinking": value, "signature": digest}


def tool_response(call: str, output: str, is_error: bool = False) -> Item:
    return {
        "type": "toolResponse",
        "id": call,
        "toolResult": {
            "status": "success",
            "value": {
                "content": [
                    {"type": "text", "text": output, "annotations": {"audience": ["assistant"]}}
                ],
                "isError": is_error,
            },
        },
    }


def png(width: int, height: int) -> str:
    """A small real PNG: a grey 'screenshot' with a dark band where the total line is."""
    rows = b"".join(
        b"\x00" + bytes(40 if 10 <= y <= 13 and 8 <= x <= 56 else 235 for x in range(width))
        for y in range(height)
    )

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9))
    return base64.b64encode(data + chunk(b"IEND", b"")).decode()


def viewed(path: str, content: str) -> str:
    language = "python" if path.endswith(".py") else ""
    return f"{path}\n```{language}\n{content.rstrip()}\n```"


def edited(path: str, snippet: str) -> str:
    return (
        f"The file {path} has been edited, and the section now reads:\n"
        f"```python\n{snippet.rstrip()}\n```\n"
        "Review the changes and make sure they are as expected."
    )


def section(source: str, start: str, end: str) -> str:
    return source[source.index(start) : source.index(end)]


SHELL = "developer__shell"
EDITOR = "developer__text_editor"
LS_OUTPUT = """c1c76ff CSV import and CLI
a41e09b Initial import
.:
README.md
data
pyproject.toml
src
tests

./data:
march_2024.csv

./src:
invoicer

./src/invoicer:
__init__.py
__main__.py
csv_import.py
formatting.py
models.py
render.py
totals.py

./tests:
conftest.py
test_render.py
test_totals.py"""


def long_session() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    c = Conversation("long", 1_760_511_600)
    p = PROJECT
    c.user(
        "Our accountant flagged a problem with the March invoices: several totals are one "
        "cent off compared with her spreadsheet. Her note:\n\n"
        "> 2024-0117: you billed 25,27 €, I get 25,26 €\n"
        "> 2024-0130: 25,76 € vs 25,75 €\n"
        "> 2024-0133: 360,39 € vs 360,38 €\n"
        "> Rounding has to be commercial (half up) and VAT is rounded once on the total per "
        "rate, not per line.\n\n"
        f"The project is in {p}. `tests/test_totals.py::test_bulk_discount` fails too. Please "
        "fix the rounding, keep the public API, and then check every invoice in "
        "data/march_2024.csv so I can tell her which ones change.",
        wait=0,
    )
    c.add(
        "assistant",
        thinking(
            "The user reports one-cent differences. Likely float arithmetic plus Python's "
            "round() (banker's rounding on binary floats) and per-line VAT rounding. First "
            "look at the layout and the totals code, then reproduce with the tests."
        ),
        text("I'll start by looking at the project layout and recent history."),
    )
    ls = c.tool(SHELL, command=f"cd {p} && git log --oneline -5 && ls -R")
    c.results((ls, LS_OUTPUT, False))
    c.add("assistant", text("Let me read the totals module, where the rounding happens."))
    view = c.tool(EDITOR, command="view", path=f"{p}/src/invoicer/totals.py")
    c.results((view, viewed(f"{p}/src/invoicer/totals.py", T.TOTALS_PY_BEFORE), False))
    c.add("assistant", text("Now the tests and their fixtures, to see what is expected."))
    tests = c.tool(EDITOR, command="view", path=f"{p}/tests/test_totals.py")
    fixtures = c.tool(EDITOR, command="view", path=f"{p}/tests/conftest.py")
    models = c.tool(EDITOR, command="view", path=f"{p}/src/invoicer/models.py")
    c.results(
        (tests, viewed(f"{p}/tests/test_totals.py", T.TEST_TOTALS_BEFORE), False),
        (fixtures, viewed(f"{p}/tests/conftest.py", T.CONFTEST_PY), False),
        (models, viewed(f"{p}/src/invoicer/models.py", T.MODELS_PY), False),
    )
    c.add("assistant", text("Running the test suite to reproduce the failure."))
    run1 = c.tool(SHELL, command=f"cd {p} && python -m pytest")
    c.results((run1, T.PYTEST_RUN1, True), wait=4)
    c.add(
        "assistant",
        thinking(
            "Three failures, all the same root cause:\n"
            "1. test_bulk_discount: VAT 13.01 instead of 13.02. line_tax rounds every line "
            "(0.18 + 1.41 + 11.42 = 13.01) while the exact VAT on the discounted net is "
            "68.53325 * 0.19 = 13.0213... -> 13.02.\n"
            "2. test_half_cent_rounds_up: 2.50 * 0.19 = 0.475 exactly in decimal, but the float "
            "is 0.47499999..., so round() gives 0.47.\n"
            "3. test_render_total_matches_totals: render recomputes the total from floats.\n"
            "Fix: Decimal everywhere inside totals, quantize with ROUND_HALF_UP once per total, "
            "group VAT by rate. Totals fields become Decimal; format_money uses format(), which "
            "accepts Decimal, so render keeps working."
        ),
        text(
            "Found it. Two separate problems in `totals.py`:\n\n"
            "1. **VAT is rounded per line** (`line_tax` rounds each line, then sums), so the "
            "rounding errors add up: 0.18 + 1.41 + 11.42 = 13.01, while VAT on the discounted "
            "net is 13.0213 → 13.02.\n"
            "2. **Floats and `round()`**: 2.50 × 0.19 is 0.475 exactly, but as a float it is "
            "0.47499…, and `round()` gives 0.47 instead of the commercial 0.48.\n\n"
            "I'll rewrite the arithmetic with `Decimal`, rounding half up once per total and "
            "computing VAT per tax-rate group."
        ),
    )
    write = c.tool(
        EDITOR, command="write", path=f"{p}/src/invoicer/totals.py", file_text=T.TOTALS_PY_AFTER
    )
    c.results((write, f"Successfully wrote to {p}/src/invoicer/totals.py", False))
    c.add("assistant")
    run2 = c.tool(SHELL, command=f"cd {p} && python -m pytest")
    c.results((run2, T.PYTEST_RUN2, True), wait=4)
    c.add(
        "assistant",
        text(
            "The values are right now (74.09 / 5.56 / 13.02 / 81.55, and 0.48), but the tests "
            "compare `Decimal` results with float literals, and `Decimal('74.09') != 74.09`. "
            "The totals are money, so the tests should state the expected amounts as `Decimal` "
            "strings too. Updating them."
        ),
    )
    write = c.tool(
        EDITOR, command="write", path=f"{p}/tests/test_totals.py", file_text=T.TEST_TOTALS_AFTER
    )
    c.results((write, f"Successfully wrote to {p}/tests/test_totals.py", False))
    c.add("assistant")
    run3 = c.tool(SHELL, command=f"cd {p} && python -m pytest -v")
    c.results((run3, T.PYTEST_RUN3, False), wait=4)
    c.add(
        "assistant",
        text(
            "All six tests pass, the render test included. Before touching the export I'll "
            "check how the renderer and the CLI use the totals, since `Totals` now holds "
            "`Decimal` values."
        ),
    )
    render = c.tool(EDITOR, command="view", path=f"{p}/src/invoicer/render.py")
    cli = c.tool(EDITOR, command="view", path=f"{p}/src/invoicer/__main__.py")
    c.results(
        (render, viewed(f"{p}/src/invoicer/render.py", T.RENDER_PY), False),
        (cli, viewed(f"{p}/src/invoicer/__main__.py", T.MAIN_PY), False),
    )
    c.add(
        "assistant",
        text(
            "Both only pass the amounts to `format_money`, which formats with `:.2f` and "
            "works for `Decimal` as well. Now the March export: first a look at the file."
        ),
    )
    head = c.tool(
        SHELL, command=f"cd {p} && head -40 data/march_2024.csv && wc -l data/march_2024.csv"
    )
    csv_head = "\n".join(T.MARCH_CSV.splitlines()[:40])
    c.results((head, f"{csv_head}\n94 data/march_2024.csv", False))
    c.add("assistant")
    totals = c.tool(SHELL, command=f"cd {p} && python -m invoicer totals data/march_2024.csv")
    c.results((totals, T.TOTALS_TRACEBACK, True), wait=2)
    c.add(
        "assistant",
        thinking(
            "The export has quantities written as '10.0' on a few rows (2024-0117, 0121, "
            "0133). int('10.0') raises. Parse via Decimal, require an integral value, and read "
            "prices as Decimal too so the new totals code gets exact inputs."
        ),
        text(
            "The CSV import chokes on quantities written as `10.0` (rows of 2024-0117, "
            "2024-0121 and 2024-0133). Let me look at the importer."
        ),
    )
    view = c.tool(EDITOR, command="view", path=f"{p}/src/invoicer/csv_import.py")
    c.results((view, viewed(f"{p}/src/invoicer/csv_import.py", T.CSV_IMPORT_BEFORE), False))
    old = section(T.CSV_IMPORT_BEFORE, "def parse_item", "def read_invoices").rstrip()
    new = section(T.CSV_IMPORT_AFTER, "def _quantity", "def read_invoices").rstrip()
    c.add(
        "assistant",
        text(
            "I'll accept whole-number quantities like `10.0` (and reject `2.5`), and read "
            "prices and tax rates as `Decimal`, also with a decimal comma."
        ),
    )
    edit1 = c.tool(
        EDITOR,
        command="str_replace",
        path=f"{p}/src/invoicer/csv_import.py",
        old_str=old,
        new_str=new,
    )
    edit2 = c.tool(
        EDITOR,
        command="str_replace",
        path=f"{p}/src/invoicer/csv_import.py",
        old_str="from datetime import date\n",
        new_str="from datetime import date\nfrom decimal import Decimal\n",
    )
    c.results(
        (edit1, edited(f"{p}/src/invoicer/csv_import.py", new), False),
        (
            edit2,
            edited(
                f"{p}/src/invoicer/csv_import.py",
                "from datetime import date\nfrom decimal import Decimal",
            ),
            False,
        ),
    )
    c.add("assistant")
    totals = c.tool(
        SHELL,
        command=f"cd {p} && python -m invoicer totals data/march_2024.csv | tee /tmp/after.txt",
    )
    c.results((totals, T.TOTALS_AFTER, False), wait=2)
    c.add(
        "assistant",
        text(
            "To tell which invoices change, I'll compute the old totals (stashing my changes, "
            "with only the `10.0` parsing patched in so the old code can read the file) and "
            "diff them against the new ones."
        ),
    )
    compare = c.tool(
        SHELL,
        command=(
            f'cd {p} && git stash && sed -i \'s/int(row\\["qty"\\])/int(float(row["qty"]))/\' '
            "src/invoicer/csv_import.py && python -m invoicer totals data/march_2024.csv > "
            "/tmp/before.txt; git checkout src/invoicer/csv_import.py && git stash pop && "
            "diff /tmp/before.txt /tmp/after.txt"
        ),
    )
    c.results(
        (
            compare,
            "Saved working directory and index state WIP on main: c1c76ff CSV import and CLI\n"
            "Updated 1 path from the index\nOn branch main\nChanges not staged for commit:\n"
            "\tmodified:   src/invoicer/csv_import.py\n\tmodified:   src/invoicer/totals.py\n"
            "\tmodified:   tests/test_totals.py\n\nDropped refs/stash@{0}\n" + T.TOTALS_DIFF,
            False,
        ),
        wait=3,
    )
    c.add(
        "assistant",
        text(
            "Done. Summary:\n\n"
            "- `totals.py` now computes in `Decimal`, rounds half up once per total and "
            "computes VAT per tax rate on the discounted net.\n"
            "- `csv_import.py` accepts `10.0`-style quantities and decimal commas.\n"
            "- Tests updated to compare `Decimal` amounts; all 6 pass.\n\n"
            "**Invoices in March whose total changes** (old → new):\n\n"
            "| invoice | old | new |\n|---|---|---|\n"
            "| 2024-0101 | 39,36 € | 39,35 € |\n| 2024-0104 | 50,08 € | 50,09 € |\n"
            "| 2024-0109 | 50,44 € | 50,43 € |\n| 2024-0111 | 746,53 € | 746,54 € |\n"
            "| 2024-0115 | 109,90 € | 109,91 € |\n| 2024-0117 | 25,27 € | 25,26 € |\n"
            "| 2024-0126 | 865,30 € | 865,31 € |\n| 2024-0130 | 25,76 € | 25,75 € |\n"
            "| 2024-0132 | 5,29 € | 5,30 € |\n| 2024-0133 | 360,39 € | 360,38 € |\n\n"
            "The three your accountant named all match her figures now."
        ),
        wait=8,
    )
    c.user(
        "Great, thanks! One more: a customer sent this screenshot of invoice 2024-0142 "
        "(April, not in the export yet). The discount line reads 0,48 € without a minus, so "
        "it looks like a surcharge.",
        {"type": "image", "data": png(64, 24), "mimeType": "image/png"},
        wait=300,
    )
    c.add(
        "assistant",
        thinking(
            "A discount under one euro loses its sign. format_money splits f'{amount:.2f}' at "
            "the dot and runs int() on the whole part: int('-0') == 0, so the minus vanishes. "
            "Reproduce first."
        ),
        {
            "type": "redactedThinking",
            "data": base64.b64encode(b"redacted:" + b"\x17" * 48).decode(),
        },
        text("That looks like a sign bug for amounts between -1 and 0. Reproducing:"),
    )
    repro = c.tool(
        SHELL,
        command=(
            f'cd {p} && python -c "from invoicer.formatting import format_money; '
            "print(format_money(-0.48)); print(format_money(-5.56)); "
            'print(format_money(-1234.5))"'
        ),
    )
    c.results((repro, T.FORMAT_REPRO, False))
    c.add("assistant", text("Confirmed: `-0.48` prints as `0,48 €`. Looking at the formatter."))
    view = c.tool(EDITOR, command="view", path=f"{p}/src/invoicer/formatting.py")
    c.results((view, viewed(f"{p}/src/invoicer/formatting.py", T.FORMATTING_BEFORE), False))
    old = section(T.FORMATTING_BEFORE, "    whole, cents", "\n\n\ndef format_date")
    new = section(T.FORMATTING_AFTER, "    # Split the sign", "\n\n\ndef format_date")
    c.add(
        "assistant",
        text(
            '`int("-0")` is `0`, so the sign of anything between -1 and 0 is dropped. I\'ll '
            "format the absolute value and put the sign in front, and add a regression test."
        ),
    )
    edit = c.tool(
        EDITOR,
        command="str_replace",
        path=f"{p}/src/invoicer/formatting.py",
        old_str=old,
        new_str=new,
    )
    test_old = "def test_render_total"
    test_new = section(T.TEST_RENDER_AFTER, "def test_format_money_keeps", "def test_render_total")
    test_edit = c.tool(
        EDITOR,
        command="str_replace",
        path=f"{p}/tests/test_render.py",
        old_str=test_old,
        new_str=test_new + test_old,
    )
    c.results(
        (edit, edited(f"{p}/src/invoicer/formatting.py", new), False),
        (test_edit, edited(f"{p}/tests/test_render.py", test_new + test_old), False),
    )
    c.add("assistant")
    run4 = c.tool(SHELL, command=f"cd {p} && python -m pytest -v && git diff --stat")
    c.results((run4, T.PYTEST_RUN4 + T.DIFFSTAT, False), wait=4)
    c.add(
        "assistant",
        text(
            "Fixed. `format_money` now keeps the sign for amounts below one euro "
            "(`-0,48 €`), with a regression test; all 7 tests pass. Changed files: "
            "`csv_import.py`, `formatting.py`, `totals.py`, `tests/test_render.py`, "
            "`tests/test_totals.py`. Nothing is committed yet."
        ),
    )
    c.user(
        "Perfect. Next: add a CHANGELOG entry for 0.4.2 describing both fixes, add a "
        "regression test for the 0.475 case going through the CSV import as well, then commit "
        "on a branch fix/rounding and draft the PR description listing the March invoices "
        "that change.",
        wait=120,
    )
    metadata = {
        "working_dir": p,
        "description": "Fix cent rounding in invoice totals",
        "schedule_id": None,
        "message_count": len(c.messages),
        "total_tokens": None,
        "input_tokens": None,
        "output_tokens": None,
        "accumulated_total_tokens": None,
        "accumulated_input_tokens": None,
        "accumulated_output_tokens": None,
        # A local model with a 16k window (Ollama's num_ctx), as many Goose users run.
        "provider_name": "ollama",
        "model_config": {"model_name": "qwen2.5-coder:14b", "context_limit": 16384},
    }
    return metadata, c.messages


def short_session() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    c = Conversation("short", 1_760_430_000)
    c.user(
        "In ~/src/blog, `make serve` fails with 'hugo: command not found' since I switched "
        "to the new laptop. Can you find out what it expects and fix the Makefile so it "
        "uses the hugo from our tools/ folder?",
        wait=0,
    )
    c.add("assistant", text("Let me check the Makefile and what is in tools/."))
    call = c.tool(SHELL, command="cd ~/src/blog && cat Makefile && ls -l tools/")
    c.results(
        (
            call,
            "serve:\n\thugo server -D --bind 127.0.0.1\n\nbuild:\n\thugo --minify\n\n"
            "total 81244\n-rwxr-xr-x 1 sam sam 83189760 Sep 30 11:02 hugo-0.134.2\n"
            "-rw-r--r-- 1 sam sam      214 Sep 30 11:02 README.md",
            False,
        )
    )
    c.add(
        "assistant",
        text(
            "The Makefile calls a `hugo` on PATH, but the project ships a pinned binary "
            "`tools/hugo-0.134.2`. I'll point the Makefile at it through a variable, so "
            "`make HUGO=hugo serve` still works for anyone with a system install."
        ),
    )
    call = c.tool(
        EDITOR,
        command="write",
        path="/home/sam/src/blog/Makefile",
        file_text="HUGO ?= ./tools/hugo-0.134.2\n\nserve:\n\t$(HUGO) server -D --bind "
        "127.0.0.1\n\nbuild:\n\t$(HUGO) --minify\n",
    )
    c.results((call, "Successfully wrote to /home/sam/src/blog/Makefile", False))
    c.add("assistant")
    call = c.tool(SHELL, command="cd ~/src/blog && timeout 5 make serve | head -5")
    c.results(
        (
            call,
            "./tools/hugo-0.134.2 server -D --bind 127.0.0.1\nStart building sites … \n"
            "hugo v0.134.2-1c74abd2 linux/amd64 BuildDate=2024-09-10T10:46:33Z\n\n"
            "Built in 212 ms\nWeb Server is available at http://localhost:1313/ (bind "
            "address 127.0.0.1)",
            False,
        )
    )
    c.add(
        "assistant",
        text(
            "Fixed: `make serve` now runs the pinned `tools/hugo-0.134.2` (override with "
            "`make HUGO=hugo serve`). The server starts and builds the site in about 200 ms."
        ),
    )
    metadata = {
        "working_dir": "/home/sam/src/blog",
        "description": "Makefile uses pinned hugo",
        "schedule_id": None,
        "message_count": len(c.messages),
        "total_tokens": 6120,
        "input_tokens": 5874,
        "output_tokens": 246,
        "accumulated_total_tokens": 21433,
        "accumulated_input_tokens": 20611,
        "accumulated_output_tokens": 822,
    }
    return metadata, c.messages


def export_session() -> dict[str, Any]:
    c = Conversation("export", 1_760_598_000)
    c.user(
        "Write a Dockerfile for the Flask app in app.py; it uses gunicorn in production.", wait=0
    )
    c.add("assistant", text("I'll check the app's dependencies first."))
    call = c.tool(SHELL, command="cd ~/src/shortlinks && cat requirements.txt && head -20 app.py")
    c.results(
        (
            call,
            "flask==3.0.3\ngunicorn==22.0.0\nredis==5.0.8\n"
            "from flask import Flask, redirect\nimport redis\n\n"
            "app = Flask(__name__)\nstore = redis.Redis.from_url(os.environ['REDIS_URL'])",
            False,
        )
    )
    c.add("assistant", text("`app.py` reads `os` without importing it; I'll note that too."))
    call = c.tool(
        EDITOR,
        command="write",
        path="/home/sam/src/shortlinks/Dockerfile",
        file_text="FROM python:3.12-slim\nWORKDIR /app\nCOPY requirements.txt .\n"
        "RUN pip install --no-cache-dir -r requirements.txt\nCOPY . .\n"
        'CMD ["gunicorn", "--bind", "0.0.0.0:8000", "app:app"]\n',
    )
    c.results((call, "Successfully wrote to /home/sam/src/shortlinks/Dockerfile", False))
    c.add(
        "assistant",
        text(
            "Added a `Dockerfile` (python:3.12-slim, gunicorn on port 8000). Note: `app.py` "
            "uses `os.environ` but never imports `os`; add `import os` at the top or the "
            "container will crash on start."
        ),
    )
    return {
        "id": "20251016_2",
        "working_dir": "/home/sam/src/shortlinks",
        "name": "Dockerfile for Flask app",
        "created_at": "2025-10-16T07:00:00Z",
        "updated_at": "2025-10-16T07:01:12Z",
        "provider_name": "anthropic",
        "model_config": {
            "model_name": "claude-sonnet-4-5",
            "context_limit": None,
            "temperature": None,
            "max_tokens": None,
            "toolshim": False,
            "toolshim_model": None,
        },
        "goose_mode": "auto",
        "usage": {
            "input_tokens": 7012,
            "output_tokens": 301,
            "total_tokens": 7313,
            "cache_read_input_tokens": None,
            "cache_write_input_tokens": None,
        },
        "accumulated_usage": {
            "input_tokens": 19840,
            "output_tokens": 655,
            "total_tokens": 20495,
            "cache_read_input_tokens": None,
            "cache_write_input_tokens": None,
        },
        "accumulated_cost": None,
        "message_count": len(c.messages),
        "conversation": c.messages,
    }


def db_sessions() -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    out = []
    c = Conversation("db1", 1_760_340_000)
    c.user("Why does the CI job 'lint' fail on main? Logs are in ci.log.", wait=0)
    c.add("assistant")
    call = c.tool(SHELL, command="cd ~/src/api && tail -8 ci.log")
    c.results(
        (
            call,
            "src/api/routes.py:41:5: F841 local variable 'user' is assigned to but "
            "never used\nFound 1 error.\nError: Process completed with exit code 1.",
            True,
        )
    )
    c.add(
        "assistant",
        text(
            "ruff reports an unused variable `user` at `src/api/routes.py:41`. "
            "Remove it or use it; that is the only lint error."
        ),
    )
    out.append(
        (
            {
                "id": "20251013_1",
                "name": "CI lint failure",
                "working_dir": "/home/sam/src/api",
                "created_at": "2025-10-13 07:20:00",
                "updated_at": "2025-10-13 07:21:30",
                "total_tokens": 3410,
                "input_tokens": 3302,
                "output_tokens": 108,
                "accumulated_total_tokens": 6650,
                "accumulated_input_tokens": 6480,
                "accumulated_output_tokens": 170,
                "provider_name": "openai",
                "model_config": {"model_name": "gpt-4o", "context_limit": 128000},
            },
            c.messages,
        )
    )
    c = Conversation("db2", 1_760_520_000)
    c.user("Add type hints to utils/dates.py and run mypy.", wait=0)
    c.add("assistant", text("Viewing the file first."))
    call = c.tool(EDITOR, command="view", path="/home/sam/src/api/utils/dates.py")
    c.results(
        (
            call,
            "/home/sam/src/api/utils/dates.py\n```python\nfrom datetime import date, "
            "timedelta\n\n\ndef next_workday(day):\n    day += timedelta(days=1)\n    while "
            "day.weekday() >= 5:\n        day += timedelta(days=1)\n    return day\n```",
            False,
        )
    )
    c.add("assistant")
    call = c.tool(
        EDITOR,
        command="str_replace",
        path="/home/sam/src/api/utils/dates.py",
        old_str="def next_workday(day):",
        new_str="def next_workday(day: date) -> date:",
    )
    c.results((call, "The file /home/sam/src/api/utils/dates.py has been edited.", False))
    c.add("assistant")
    call = c.tool(SHELL, command="cd ~/src/api && mypy utils/dates.py")
    c.results((call, "Success: no issues found in 1 source file", False))
    c.add("assistant", text("Typed `next_workday(day: date) -> date`; mypy is clean."))
    out.append(
        (
            {
                "id": "20251015_1",
                "name": "Type hints for dates.py",
                "working_dir": "/home/sam/src/api",
                "created_at": "2025-10-15 09:20:00",
                "updated_at": "2025-10-15 09:23:05",
                "total_tokens": 4120,
                "input_tokens": 3980,
                "output_tokens": 140,
                "accumulated_total_tokens": 15210,
                "accumulated_input_tokens": 14800,
                "accumulated_output_tokens": 410,
                "provider_name": "anthropic",
                "model_config": {"model_name": "claude-sonnet-4-5", "context_limit": 200000},
            },
            c.messages,
        )
    )
    c = Conversation("db3", 1_760_000_000)
    c.user("What does the retry decorator in net/retry.py do when the timeout is 0?", wait=0)
    c.add("assistant")
    call = c.tool(SHELL, command="cd ~/src/api && grep -n 'timeout' net/retry.py")
    c.results((call, "12:    if timeout <= 0:\n13:        return func(*args, **kwargs)", False))
    c.add("assistant", text("With `timeout <= 0` it skips retrying and calls the function once."))
    c.add(
        "user",
        {
            "type": "systemNotification",
            "notificationType": "inlineMessage",
            "msg": "Session resumed",
        },
        wait=60,
        agentVisible=False,
    )
    out.append(
        (
            {
                "id": "20251009_3",
                "name": "",
                "description": "retry decorator question",
                "working_dir": "/home/sam/src/api",
                "created_at": "2025-10-09 08:53:20",
                "updated_at": "2025-10-09 08:55:00",
                "total_tokens": None,
                "provider_name": "ollama",
                "model_config": {"model_name": "qwen2.5-coder:7b", "context_limit": 32768},
            },
            c.messages,
        )
    )
    return out


def write_jsonl(path: Path, metadata: dict[str, Any], messages: list[dict[str, Any]]) -> None:
    lines = [json.dumps(metadata, ensure_ascii=False)]
    lines += [json.dumps(m, ensure_ascii=False) for m in messages]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_db(path: Path) -> None:
    path.unlink(missing_ok=True)
    connection = sqlite3.connect(path)
    # Goose runs in WAL mode; the bundled copy uses a rollback journal so that opening it
    # never needs -wal/-shm files inside the repository.
    connection.execute("PRAGMA journal_mode=DELETE")
    create_schema(connection, applied_at="2025-10-01 08:00:00")
    for row, messages in db_sessions():
        insert_session(connection, row, messages)
    connection.commit()
    connection.execute("VACUUM")
    connection.close()


def estimated_tokens(messages: list[dict[str, Any]]) -> int:
    from goose_tui.session.models import Message
    from goose_tui.tokens import TokenCounter

    return TokenCounter().total([Message.model_validate(m) for m in messages])


def main() -> int:
    metadata, messages = long_session()
    write_jsonl(HERE / "long_session.jsonl", metadata, messages)
    write_jsonl(HERE / "short.jsonl", *short_session())
    (HERE / "export.json").write_text(
        json.dumps(export_session(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    write_db(HERE / "sessions.db")
    used = estimated_tokens(messages)
    limit = metadata["model_config"]["context_limit"]
    size = (HERE / "long_session.jsonl").stat().st_size
    print(
        f"long_session.jsonl: {len(messages)} messages, {size} bytes, "
        f"{used} tokens of {limit} ({used / limit:.2f})"
    )
    if not 0.8 < used / limit < 1.0 or size > 300_000:
        print("long session must be over 0.8 of its window, under 1.0, < 300 KB", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
