"""Numbers in tool arguments print as serde_json prints them (issue 10): seeded generated
number literals, read from a session file and formatted by goose-tui (Python API and
``goose-tui format``), against the reference.

The wheel cannot take a tool call (its messages are role and text), so the reference text of
a literal is how it renders the same literal in a summary field: Goose's stringify writes a
JSON number with serde_json's ``Display`` for ``Number``, the same float and integer writer
its ``serde_json::to_string(&arguments)`` uses in format_message_for_compacting
(crates/goose-context-management/src/format.rs). Both read the literal with serde_json's
parser first (an integer beyond 64 bits becomes an f64)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from goose_tui.cli import main
from goose_tui.compaction.format import format_messages
from goose_tui.session.loader import load_session
from tests.differential.conftest import Script, ScriptedServer, run_reference
from tests.differential.corpus import SHORT, Case

goose = pytest.importorskip(
    "goose", reason="goose-sdk (the reference wheel, module `goose`) is not installed"
)

PER_SEED = 40


def literals(seed: int) -> list[str]:
    """JSON number literals of every shape: small and huge integers (past u64 and below
    i64), decimals with leading zeros, exponents of both signs and cases, many digits."""
    rng = random.Random(seed)
    out = []
    for _ in range(PER_SEED):
        sign = rng.choice(["", "", "-"])
        shape = rng.randrange(6)
        if shape == 0:  # an integer of 1 to 40 digits
            digits = str(rng.randint(1, 9)) + "".join(
                rng.choices("0123456789", k=rng.randint(0, 39))
            )
            out.append(sign + digits)
        elif shape == 1:  # 0.000ddd
            out.append(f"{sign}0.{'0' * rng.randint(0, 9)}{rng.randint(1, 999999)}")
        elif shape == 2:  # d.ddd with an exponent
            mantissa = f"{rng.randint(1, 9)}.{rng.randint(0, 10 ** rng.randint(1, 17))}"
            exp = rng.choice(["e", "E"]) + rng.choice(["", "+", "-"]) + str(rng.randint(0, 300))
            out.append(sign + mantissa + exp)
        elif shape == 3:  # 1e±k around where serde switches to exponent notation
            out.append(f"{sign}1e{rng.choice(['-', ''])}{rng.randint(0, 25)}")
        elif shape == 4:  # many digits on both sides of the point
            left = str(rng.randint(0, 10 ** rng.randint(1, 25)))
            right = "".join(rng.choices("0123456789", k=rng.randint(1, 25)))
            out.append(f"{sign}{left}.{right}")
        else:  # a float that prints with a trailing .0
            out.append(f"{sign}{rng.randint(0, 10**15)}.0")
    # serde reads "-0" as the float -0.0, Python as the integer 0; not a literal Goose
    # itself writes into tool arguments, and a known difference (see the report).
    return [literal for literal in out if literal.lstrip("-").strip("0") != ""]


def reference_texts(server: ScriptedServer, numbers: list[str]) -> list[str]:
    reply = '{"user_intent": [' + ", ".join(numbers) + "]}"
    server.script = Script(reply=reply)
    rendered = run_reference(server, Case("numbers", SHORT, reply)).text
    lines = [line[2:] for line in rendered.splitlines() if line.startswith("- ")]
    assert len(lines) == len(numbers), rendered[:500]
    return lines


def session_file(tmp_path: Path, numbers: list[str]) -> Path:
    arguments = "{" + ",".join(f'"n{i}":{literal}' for i, literal in enumerate(numbers)) + "}"
    request = (
        '{"type":"toolRequest","id":"c1","toolCall":{"status":"success","value":'
        f'{{"name":"calc","arguments":{arguments}}}}}}}'
    )
    path = tmp_path / "numbers.jsonl"
    path.write_text(
        '{"description":"numbers"}\n{"role":"assistant","created":1,"content":[' + request + "]}\n",
        encoding="utf-8",
    )
    return path


def our_texts(formatted: str, count: int) -> list[str]:
    prefix = "[assistant]: tool_request(calc): "
    assert formatted.startswith(prefix)
    arguments = formatted[len(prefix) :]
    # Cut the object at its commas: every value is a number, so no comma is inside one.
    parts = arguments.strip("{}").split(",")
    assert len(parts) == count
    return [part.split(":", 1)[1] for part in parts]


@pytest.mark.parametrize("seed", range(10))
def test_generated_numbers_print_as_the_reference_prints_them(
    seed: int, server: ScriptedServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    numbers = literals(seed)
    expected = reference_texts(server, numbers)
    path = session_file(tmp_path, numbers)
    ours = our_texts(format_messages(load_session(path).messages), len(numbers))
    assert main(["format", str(path)]) == 0
    cli = our_texts(capsys.readouterr().out.rstrip("\n"), len(numbers))
    mismatches = [
        (literal, want, got, shown)
        for literal, want, got, shown in zip(numbers, expected, ours, cli, strict=True)
        if not want == got == shown
    ]
    assert mismatches == []
    # Each formatted argument object is still JSON (serde's text is valid JSON).
    assert json.loads("{" + ",".join(f'"k{i}":{t}' for i, t in enumerate(ours)) + "}")
