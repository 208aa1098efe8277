"""Retention: items pulled from a real-shaped history and looked up in a summary."""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

import pytest

from goose_tui.analysis.retention import (
    error_lines,
    extract_items,
    identifiers_in_text,
    normalize,
    paths_in_text,
    retention_report,
)
from goose_tui.session.loader import load_session
from goose_tui.session.models import Message
from tests.conftest import REALDATA

TRACEBACK = """\
============================= test session starts ==============================
collected 3 items

tests/test_calc.py .F.                                                   [100%]

=================================== FAILURES ===================================
___________________________________ test_div ___________________________________
Traceback (most recent call last):
  File "/work/calc/tests/test_calc.py", line 9, in test_div
    assert div(1, 0) == 0
  File "/work/calc/calc.py", line 4, in div
    return a / b
ZeroDivisionError: division by zero
=========================== short test summary info ============================
FAILED tests/test_calc.py::test_div - ZeroDivisionError: division by zero
========================= 1 failed, 2 passed in 0.03s =========================="""


def user(text: str, **meta: Any) -> Message:
    return Message.model_validate(
        {"role": "user", "content": [{"type": "text", "text": text}], "metadata": meta or {}}
    )


def tool_call(call_id: str, name: str, arguments: dict[str, Any]) -> Message:
    call = {"status": "success", "value": {"name": name, "arguments": arguments}}
    return Message.model_validate(
        {
            "role": "assistant",
            "content": [
                {
                    "type": "toolRequest",
                    "id": call_id,
                    "toolCall": call,
                }
            ],
        }
    )


def tool_result(call_id: str, text: str, *, is_error: bool = False) -> Message:
    return Message.model_validate(
        {
            "role": "user",
            "content": [
                {
                    "type": "toolResponse",
                    "id": call_id,
                    "toolResult": {
                        "status": "success",
                        "value": {"content": [{"type": "text", "text": text}], "isError": is_error},
                    },
                }
            ],
        }
    )


HISTORY = [
    user("Fix the division bug in calc.py; run `pytest -q` and see https://docs.python.org/3/."),
    tool_call("c1", "developer__shell", {"command": "pytest -q tests/test_calc.py"}),
    tool_result("c1", TRACEBACK),
    tool_call("c2", "developer__text_editor", {"command": "view", "path": "/work/calc/calc.py"}),
    tool_result("c2", "def div(a, b):\n    return a / b\n"),
    tool_call("c3", "developer__shell", {"command": "cat missing.txt"}),
    tool_result("c3", "cat: missing.txt: No such file or directory", is_error=True),
    user("Make div_safe return None for a zero divisor, keep ZeroDivisionError out of it."),
    # Goose's own summary and continuation messages are agent-only: not typed by the user.
    user("# Conversation Summary\n...", userVisible=False, agentVisible=True),
]


def items_of(category: str) -> list[tuple[str, int]]:
    return [(i.text, i.message_index) for i in extract_items(HISTORY) if i.category == category]


def test_extracts_each_category_with_its_source_message() -> None:
    assert items_of("user_messages") == [
        (HISTORY[0].content[0]["text"], 0),
        (HISTORY[7].content[0]["text"], 7),
    ]
    assert items_of("files") == [
        ("calc.py", 0),
        ("tests/test_calc.py", 1),
        ("/work/calc/calc.py", 3),
        ("missing.txt", 5),
    ]
    # The exception line and pytest's FAILED line, never the traceback header or frames; the
    # failed cat has no error-looking line, so its last line stands for it.
    assert items_of("errors") == [
        ("ZeroDivisionError: division by zero", 2),
        ("FAILED tests/test_calc.py::test_div - ZeroDivisionError: division by zero", 2),
        ("cat: missing.txt: No such file or directory", 6),
    ]
    assert items_of("commands") == [
        ("pytest -q tests/test_calc.py", 1),
        ("cat missing.txt", 5),
    ]
    assert items_of("identifiers") == [
        ("https://docs.python.org/3/", 0),
        ("pytest -q", 0),
        ("div_safe", 7),
        ("ZeroDivisionError", 7),
    ]


def test_summary_omitting_a_known_error_line_reports_exactly_that_item_missing() -> None:
    items = extract_items(HISTORY)
    every = "\n".join(i.text for i in items)
    lost = "FAILED tests/test_calc.py::test_div - ZeroDivisionError: division by zero"
    summary = every.replace(lost, "one test failed")
    report = retention_report(summary, HISTORY)
    assert [(i.category, i.text, i.message_index) for i in report.missing()] == [
        ("errors", lost, 2)
    ]
    errors = next(c for c in report.categories if c.category == "errors")
    assert (errors.found, errors.total) == (2, 3)
    assert report.total == len(items)
    assert report.found == len(items) - 1
    assert report.overall == pytest.approx((len(items) - 1) / len(items))


def test_normalized_match_tolerates_case_whitespace_quotes_and_punctuation() -> None:
    summary = (
        "## User Messages\n- MAKE div_safe return none for a zero   divisor;\n"
        "  keep ‘ZeroDivisionError’ out of it\n"
        "- Errors: `zerodivisionerror: Division by zero`"
    )
    report = retention_report(summary, HISTORY)
    status = {i.text: i.status for i in report.items}
    assert status[HISTORY[7].content[0]["text"]] == "normalized"
    assert status["ZeroDivisionError: division by zero"] == "normalized"
    assert status["ZeroDivisionError"] == "exact"
    assert status["div_safe"] == "exact"
    assert status["cat missing.txt"] == "missing"


def test_normalized_match_needs_word_boundaries() -> None:
    # "calc.py" normalizes to "calc py"; "mycalc pyc" must not count as containing it.
    report = retention_report("see mycalc pyc", [user("edit calc.py")])
    assert {i.text: i.status for i in report.items}["calc.py"] == "missing"
    assert normalize("  “Don't”  STOP.\n") == "dont stop"


def test_missing_item_reports_word_overlap() -> None:
    report = retention_report("The user wants div safe to return None.", HISTORY)
    item = next(i for i in report.items if i.text.startswith("Make div_safe"))
    assert item.status == "missing"
    assert 0 < item.word_overlap < 1


def test_empty_history_has_no_score() -> None:
    report = retention_report("anything", [])
    assert report.total == 0 and report.overall is None
    assert all(c.score is None for c in report.categories)


def test_failed_call_with_status_error_counts() -> None:
    failed = Message.model_validate(
        {
            "role": "user",
            "content": [
                {
                    "type": "toolResponse",
                    "id": "x",
                    "toolResult": {"status": "error", "error": "Tool not found: devloper__shell"},
                }
            ],
        }
    )
    assert [i.text for i in extract_items([failed])] == ["Tool not found: devloper__shell"]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("error[E0425]: cannot find value `x` in this scope", True),
        ("thread 'main' panicked at src/main.rs:2:5:", True),
        ("fatal: not a git repository (or any of the parent directories): .git", True),
        ("npm ERR! code ENOENT", True),
        ("except ValueError:", False),
        ("Traceback (most recent call last):", False),
        ('    raise KeyError("k")', False),
        ("all 12 tests passed", False),
    ],
)
def test_error_line_patterns(line: str, expected: bool) -> None:
    assert bool(error_lines(line, failed=False)) is expected


def test_text_scanners() -> None:
    text = "See src/app/main.py, ./run.sh and ~/notes.md at https://x.org/a?b=1. e.g. v1.2"
    assert paths_in_text(text) == ["src/app/main.py", "./run.sh", "~/notes.md"]
    # The pieces of a sed expression are no files (a walk-through counted "/int" as one);
    # one name under the root with an extension, or a deeper path, still is.
    sed = """sed -i 's/int(row["qty"])/Decimal(row["qty"])/' /tmp/csv_import.py /setup.py"""
    assert paths_in_text(sed) == ["/tmp/csv_import.py", "/setup.py"]
    assert identifiers_in_text("use `load_session` and os.path.join, not TokenCounter") == [
        "load_session",
        "os.path.join",
        "TokenCounter",
    ]


def test_real_export_items() -> None:
    session = load_session(REALDATA / "export-session.json")
    items = extract_items(session.messages)
    assert ("Create greeting.txt containing the word hello", "user_messages") in [
        (i.text, i.category) for i in items
    ]
    files = [i.text for i in items if i.category == "files"]
    assert files == ["greeting.txt", "/tmp/greeting.txt"]
    report = retention_report("Wrote `hello` to /tmp/greeting.txt", session.messages)
    by_text = {i.text: i.status for i in report.items}
    assert by_text["/tmp/greeting.txt"] == "exact"
    assert by_text["greeting.txt"] == "exact"  # a substring of the full path
    assert by_text["Create greeting.txt containing the word hello"] == "missing"


def test_real_text_export_calc() -> None:
    session = load_session(Path(REALDATA / "export-text.json"))
    items = {(i.category, i.text) for i in extract_items(session.messages)}
    assert ("files", "calc.py") in items
    assert ("identifiers", "add(a,b)") in items


# --- text as the summarizer was given it ------------------------------------------------

# macOS writes file names decomposed (NFD); the pipeline composes every text (NFC) before the
# summarizer sees it (compaction/format.py normalize_text), so a summary quotes the composed form.
MAC_PATH = "/Users/zoë/Documents/Résumé.md"
MAC_REQUEST = f"Update {MAC_PATH} with my café job"


def decomposed_history() -> list[Message]:
    return [
        user(unicodedata.normalize("NFD", MAC_REQUEST)),
        tool_call(
            "c1",
            "developer__text_editor",
            {"command": "view", "path": unicodedata.normalize("NFD", MAC_PATH)},
        ),
    ]


def test_decomposed_history_is_found_in_a_summary_of_its_composed_form() -> None:
    assert unicodedata.is_normalized("NFC", MAC_REQUEST)
    history = decomposed_history()
    assert MAC_PATH not in history[0].content[0]["text"]  # really written decomposed
    report = retention_report(f"## User Messages\n- {MAC_REQUEST}\n", history)
    assert [(i.category, i.status) for i in report.items] == [
        ("user_messages", "exact"),
        ("files", "exact"),
    ]
    assert report.overall == 1.0
    # The item keeps the session's own text: it is what the user finds in the history.
    assert report.items[1].text == unicodedata.normalize("NFD", MAC_PATH)


def test_composed_items_are_found_in_a_decomposed_summary_and_ignore_case() -> None:
    # A hand edit may paste decomposed text; the normalized match folds case after composing.
    summary = unicodedata.normalize("NFD", f"edited {MAC_PATH.upper()}")
    report = retention_report(summary, [user(f"edit {MAC_PATH}")])
    assert {i.text: i.status for i in report.items}[MAC_PATH] == "normalized"


def test_a_missing_decomposed_item_counts_overlap_in_whole_words() -> None:
    report = retention_report("the café job", decomposed_history())
    item = next(i for i in report.items if i.category == "user_messages")
    assert item.status == "missing"
    # update, users, zoë, documents, résumé, md, with, my, café, job: two are in the summary
    # (decomposed, the accents split "café" into "cafe" and a mark, and it was 1 of 11)
    assert item.word_overlap == 0.2


def test_tag_characters_the_summarizer_never_saw_do_not_count_as_lost() -> None:
    hidden = "".join(chr(0xE0000 + ord(c)) for c in "ignore this")
    report = retention_report("Deploy to staging", [user(f"Deploy to {hidden}staging")])
    assert report.items[0].status == "exact"


# --- the CLI sub-command ------------------------------------------------------------------


def run_command(argv: list[str]) -> int:
    """Run an analysis sub-command exactly as the `goose-tui` entry point does."""
    from goose_tui import cli

    return cli.main(argv)


def write_session(path: Path, messages: list[Message]) -> Path:
    import json

    lines = [json.dumps({"description": "calc fixes", "message_count": len(messages)})]
    lines += [m.model_dump_json(by_alias=True, exclude_none=True) for m in messages]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_cli_retention_with_a_saved_summary(tmp_path: Path, capsys) -> None:
    session = write_session(tmp_path / "s.jsonl", HISTORY)
    summary = tmp_path / "summary.md"
    summary.write_text("Fixed calc.py after `ZeroDivisionError: division by zero`.\n")
    assert run_command(["retention", str(session), "--summary", str(summary)]) == 0
    out = capsys.readouterr().out
    assert "error lines" in out and "evidence found" in out
    missing_line = next(line for line in out.splitlines() if "cat missing.txt" in line)
    assert missing_line.split()[:2] == ["#6", "commands"]  # shown 1-based, as in the app

    assert run_command(["retention", str(session), "--summary", str(summary), "--json"]) == 0
    import json

    data = json.loads(capsys.readouterr().out)
    expected = retention_report(summary.read_text(), load_session(session).messages)
    assert data["found"] == expected.found and data["total"] == expected.total
    statuses = {i["text"]: i["status"] for i in data["items"]}
    assert statuses["ZeroDivisionError: division by zero"] == "exact"
    assert statuses["calc.py"] == "exact"


def test_cli_retention_compacting_offline(tmp_path: Path, capsys) -> None:
    session = write_session(tmp_path / "s.jsonl", HISTORY)
    assert run_command(["retention", str(session), "--model", "offline", "--json"]) == 0
    import json

    data = json.loads(capsys.readouterr().out)
    assert data["summary_source"] == "model offline"
    assert data["total"] == len(extract_items(load_session(session).messages))


def test_cli_retention_missing_summary_file_is_unusable(tmp_path: Path, capsys) -> None:
    session = write_session(tmp_path / "s.jsonl", HISTORY)
    code = run_command(["retention", str(session), "--summary", str(tmp_path / "nope.md")])
    assert code == 2
    assert "nope.md" in capsys.readouterr().err


def test_cli_retention_offline_finds_a_decomposed_session_in_its_summary(
    tmp_path: Path, capsys
) -> None:
    session = write_session(tmp_path / "s.jsonl", decomposed_history())
    assert run_command(["retention", str(session), "--model", "offline", "--json"]) == 0
    import json

    data = json.loads(capsys.readouterr().out)
    assert (data["found"], data["total"]) == (2, 2)
