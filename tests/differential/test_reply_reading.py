"""Reading the reply as Goose does (docs/pipeline.md §6, issue 10 part 2): a strict parse first
and, only
when that fails, the candidate with every raw control character escaped, parsed again
(``safely_parse_json``; the goose-sdk wheel is the reference). Hand-written cases for each
consequence, then a few hundred seeded generated replies, each through the Python API
(``finish``) and through ``goose-tui compact --replay`` (the reply file written as bytes and
read without newline translation)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from goose_tui.cli import main
from goose_tui.compaction.summarize import finish
from goose_tui.compaction.templates import load_templates
from tests.differential.conftest import Script, ScriptedServer, run_reference
from tests.differential.corpus import SHORT, Case

goose = pytest.importorskip(
    "goose", reason="goose-sdk (the reference wheel, module `goose`) is not installed"
)

SESSION = Path(__file__).parents[1] / "fixtures" / "goose" / "sessions-v5.db"

# (name, reply, whether the reference ends in the raw-text fallback)
CASES = [
    # Pretty-printed, a raw newline inside a string: the strict parse fails, and escaping
    # every control character also turns the line breaks between tokens into `\n`.
    ("pretty_raw_newline", '```json\n{\n  "user_intent": ["a\nb"]\n}\n```', True),
    ("pretty_raw_tab", '{\n\t"next_step": "a\tb"\n}', True),
    ("pretty_valid", '```json\n{\n  "user_intent": ["a"],\n  "next_step": "b"\n}\n```', False),
    ("one_line_raw_newline", '{"user_intent": ["a\nb"], "next_step": "c\td"}', False),
    ("crlf_inside_string", '{"user_intent": ["a\r\nb"]}', False),
    ("crlf_pretty_valid", '{\r\n  "user_intent": ["a"]\r\n}', False),
    # A backslash then a raw control character: an invalid escape strictly; escaped, it is a
    # literal backslash followed by the control character's escape letters.
    *[
        (f"backslash_{ord(c):02x}", '{"user_intent": ["a\\' + c + 'b"]}', False)
        for c in "\x00\x01\x08\t\n\x0b\x0c\r\x1b\x1f"
    ],
    # A bad value a later duplicate key replaces: serde_json fails on the first value while
    # parsing, so the object is not a summary, although the dict would only hold the second.
    ("dup_lone_surrogate", '{"next_step": "\\ud800", "next_step": "ok"}', True),
    ("dup_surrogate_in_list", '{"user_intent": ["\\udc00"], "user_intent": ["ok"]}', True),
    ("dup_too_deep", '{"next_step": ' + "[" * 130 + "]" * 130 + ', "next_step": "ok"}', True),
    ("dup_out_of_range", '{"next_step": 1e400, "next_step": "ok"}', True),
    ("dup_raw_control_value", '{"user_intent": "a\tb", "user_intent": ["x"]}', False),
    ("dup_plain", '{"user_intent": ["first"], "user_intent": ["second"]}', False),
    # Escaping mends only control characters: a trailing comma stays broken.
    ("trailing_comma_and_newline", '{"user_intent": ["x",], "next_step": "a\nb"}', True),
    # An unknown key nested deeper than minijinja's parser takes in one literal (~73 levels),
    # within serde's 128: Goose renders the summary; we fell back to the raw reply (a seeded
    # fuzz against the wheel found it).
    ("deep_extra_arrays", '{"user_intent": ["x"], "extra": ' + "[" * 75 + "]" * 75 + "}", False),
    (
        "deep_extra_mixed",
        '{"user_intent": ["x"], "extra": ' + '{"a": [' * 50 + "1" + "]}" * 50 + "}",
        False,
    ),
    ("deep_extra_126", '{"user_intent": ["x"], "extra": ' + "[" * 126 + "]" * 126 + "}", False),
]


@pytest.fixture(scope="module")
def templates(goose_prompts_dir: Path):  # noqa: ANN201
    return load_templates(goose_prompts_dir)


def _compact_cli(reply: str, tmp_path: Path, prompts: Path, capsys: pytest.CaptureFixture) -> str:
    path = tmp_path / "reply.txt"
    path.write_bytes(reply.encode("utf-8"))
    code = main(
        ["compact", str(SESSION), "--replay", str(path), "--prompts-dir", str(prompts), "--json"]
    )
    out = capsys.readouterr().out
    assert code == 0
    return json.loads(out)["summary"]


@pytest.mark.parametrize(("name", "reply", "fallback"), CASES, ids=[c[0] for c in CASES])
def test_reply_reading_matches_reference(
    name: str,
    reply: str,
    fallback: bool,
    server: ScriptedServer,
    templates,  # noqa: ANN001
    goose_prompts_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    server.script = Script(reply=reply)
    reference = run_reference(server, Case(name, SHORT, reply)).text
    assert (reference == reply) is fallback  # the case still tests what it was written for
    assert finish(reply, templates)[1] == reference
    assert _compact_cli(reply, tmp_path, goose_prompts_dir, capsys) == reference


# Pieces a generated reply is spliced from: JSON structure, every kind of control character
# inside and outside strings, backslashes before them, duplicate keys with values serde
# rejects, line endings of both kinds.
STRUCTURE = ("{", "}", "[", "]", ",", ":", '"', "\\", "```json\n", "\n```", "</analysis>")
CONTROL = ("\n", "\t", "\r\n", "\r", "\x00", "\x01", "\x08", "\x0c", "\x1f", "\\\n", "\\\t")
VALUES = (
    '"user_intent": ["fix it"]',
    '"next_step": "run the tests"',
    '"pending_tasks": ["a", "b"]',
    '"current_work": "x\\ny"',
    '"next_step": "\\ud83d"',
    '"next_step": "\\ud83d\\ude00"',
    '"files": [{"path": "a.py", "summary": "s"}]',
    '"extra": ' + "[" * 129 + "]" * 129,
    '"user_intent": [1e-7, 0.00001, 12345678901234567890123]',
)


def _object(rng: random.Random) -> str:
    """A summary object whose keys, values and whitespace are drawn at random: sometimes
    pretty-printed, sometimes with raw control characters inside strings, sometimes with a
    field repeated."""
    fields = rng.sample(VALUES, k=rng.randint(1, 4))
    if rng.random() < 0.4:
        fields.append(rng.choice(fields))  # a duplicate key, later one wins
    if rng.random() < 0.5:
        at = rng.randrange(len(fields))
        body = fields[at]
        cut = body.rfind('"')
        fields[at] = body[:cut] + rng.choice(CONTROL) + body[cut:]  # inside the last string
    gap = rng.choice(["", " ", "\n  ", "\r\n  ", "\t"])
    closing = gap.replace("  ", "").replace("\t", "")
    return "{" + gap + ("," + gap).join(fields) + closing + "}"


def generated_replies(seed: int, count: int = 15) -> list[str]:
    rng = random.Random(seed)

    def noise() -> str:
        return "".join(rng.choices(STRUCTURE + CONTROL + ("prose ",), k=rng.randint(0, 4)))

    replies = []
    for i in range(count):
        body = _object(rng)
        if i % 3 == 0:
            body = "```json\n" + body + "\n```"
        elif i % 3 == 1:
            body = "<analysis>\nnotes" + rng.choice(CONTROL) + "</analysis>\n" + body
        replies.append(noise() + body + noise())
    return replies


SEEDS = range(20)


@pytest.mark.parametrize("seed", SEEDS)
def test_generated_replies_match_reference(
    seed: int,
    server: ScriptedServer,
    templates,  # noqa: ANN001
    goose_prompts_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    mismatches = []
    parsed = 0
    for reply in generated_replies(seed):
        server.script = Script(reply=reply)
        reference = run_reference(server, Case("generated", SHORT, reply)).text
        parsed += reference != reply
        ours = finish(reply, templates)[1]
        cli = _compact_cli(reply, tmp_path, goose_prompts_dir, capsys)
        if ours != reference or cli != reference:
            mismatches.append((reply, reference, ours, cli))
    assert mismatches == []
    assert parsed > 0  # some replies of every seed are read as summaries, not all fall back


@pytest.mark.parametrize("reply", ["", "  \n", "\r\n", "\t"], ids=["empty", "blank", "crlf", "tab"])
def test_empty_replies_are_the_summary_as_in_goose(
    reply: str,
    server: ScriptedServer,
    templates,  # noqa: ANN001
) -> None:
    """The pipeline stays Goose-identical here: the reference returns an empty or blank
    reply as the summary, unchanged, and so does finish(). (Whether the CLI or the app
    accepts such a summary is their own check, not the pipeline's.)"""
    server.script = Script(reply=reply)
    assert run_reference(server, Case("empty", SHORT, reply)).text == reply
    extraction, summary = finish(reply, templates)
    assert summary == reply and extraction.fallback
