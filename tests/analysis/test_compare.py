"""Compare: field diff, Markdown diff, tokens, retention of each side, price-map cost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goose_tui.analysis.compare import (
    SummarySide,
    compare_summaries,
    cost_usd,
    diff_fields,
    model_prices,
)
from goose_tui.compaction.structured import FIELD_ORDER, FileEntry, StructuredSummary
from goose_tui.compaction.summarize import summary_message
from goose_tui.llm.base import TokenUsage
from goose_tui.tokens import MODEL_MAP_FILE, TokenCounter, count_tokens, litellm_package_dir
from tests.analysis.test_retention import HISTORY

LEFT = StructuredSummary(
    user_intent=["fix the division bug", "add div_safe"],
    files=[FileEntry(path="calc.py", summary="div divides")],
    errors_and_fixes=["ZeroDivisionError: division by zero"],
    current_work="editing calc.py",
    extras={"confidence": "high"},
)
RIGHT = StructuredSummary(
    user_intent=["fix the division bug", "write tests"],
    errors_and_fixes=["ZeroDivisionError: division by zero"],
    current_work="running pytest",
    next_step="run pytest -q",
    extras={"model_notes": ["short"]},
)


def test_field_by_field_diff() -> None:
    diffs = {d.field: d for d in diff_fields(LEFT, RIGHT)}
    assert list(diffs) == [*FIELD_ORDER, "confidence", "model_notes"]
    intent = diffs["user_intent"]
    assert intent.status == "changed"
    assert intent.added == ["write tests"] and intent.removed == ["add div_safe"]
    assert diffs["files"].status == "only_left"
    assert diffs["files"].left == ["calc.py: div divides"]
    assert diffs["errors_and_fixes"].status == "same"
    assert diffs["current_work"].status == "changed"
    assert diffs["current_work"].removed == ["editing calc.py"]
    assert diffs["next_step"].status == "only_right"
    assert diffs["pending_tasks"].status == "same" and diffs["pending_tasks"].left == []
    assert diffs["confidence"].status == "only_left"
    assert diffs["model_notes"].right == ["short"]


def test_comparison_sizes_retention_and_markdown_diff() -> None:
    left_text = "# Conversation Summary\n- ZeroDivisionError: division by zero\n- calc.py\n"
    right_text = "# Conversation Summary\n- a division error\n- calc.py\n"
    comparison = compare_summaries(
        [
            SummarySide(label="a", summary=left_text, structured=LEFT),
            SummarySide(label="b", summary=right_text, structured=RIGHT),
        ],
        HISTORY,
    )
    # As batch and the app's gauge count a summary: the message that replaces the history
    # (a walk-through: compare said 383 where batch said 390 for one summary).
    counter = TokenCounter()
    assert comparison.sides[0].tokens == counter.total([summary_message(left_text)])
    assert comparison.sides[1].tokens == counter.total([summary_message(right_text)])
    assert comparison.sides[0].tokens > count_tokens(left_text)
    missing_right = {i.text for i in comparison.sides[1].retention.missing("errors")}
    missing_left = {i.text for i in comparison.sides[0].retention.missing("errors")}
    assert "ZeroDivisionError: division by zero" in missing_right - missing_left
    assert comparison.sides[0].retention.found > comparison.sides[1].retention.found
    diff = comparison.diffs[0].markdown_diff.splitlines()
    assert diff[:2] == ["--- a", "+++ b"]
    assert "-- ZeroDivisionError: division by zero" in diff
    assert "+- a division error" in diff
    assert " - calc.py" in diff
    # No model, no usage: no cost, said as such.
    assert comparison.sides[0].cost_usd is None
    data = comparison.to_json_dict()
    assert data["sides"][0]["retention"]["found"] == comparison.sides[0].retention.found
    json.dumps(data)  # the CLI prints it


def test_raw_text_side_has_no_field_diff() -> None:
    comparison = compare_summaries(
        [
            SummarySide(label="saved.md", summary="just text"),
            SummarySide(label="b", summary="# Conversation Summary", structured=RIGHT),
        ]
    )
    assert comparison.diffs[0].fields == []
    assert comparison.diffs[0].note is not None and "saved.md" in comparison.diffs[0].note
    assert comparison.sides[0].fallback and not comparison.sides[1].fallback
    assert comparison.sides[0].retention is None


def _map_prices(key: str) -> tuple[float, float]:
    package = litellm_package_dir()
    assert package is not None
    entry = json.loads((package / MODEL_MAP_FILE).read_text(encoding="utf-8"))[key]
    return entry["input_cost_per_token"], entry["output_cost_per_token"]


def test_cost_from_the_price_map_file() -> None:
    cost_in, cost_out = _map_prices("gpt-4o-mini")
    usage = TokenUsage(input_tokens=12_000, output_tokens=800, total_tokens=12_800)
    assert cost_usd("gpt-4o-mini", usage) == pytest.approx(12_000 * cost_in + 800 * cost_out)
    # A provider prefix that the map does not use is stripped.
    assert model_prices("openai/gpt-4o-mini") == (cost_in, cost_out)


@pytest.mark.parametrize("model", ["offline", "replay:reply.txt", "nobody/unknown-model-x", None])
def test_no_cost_without_a_priced_model(model: str | None) -> None:
    usage = TokenUsage(input_tokens=10, output_tokens=10)
    assert cost_usd(model, usage) is None


def test_no_cost_with_unknown_usage() -> None:
    assert cost_usd("gpt-4o-mini", TokenUsage(input_tokens=10)) is None
    assert cost_usd("gpt-4o-mini", None) is None


def test_pricing_does_not_import_litellm() -> None:
    from goose_tui.analysis.compare import model_prices
    from tests.conftest import litellm_refused_here

    with litellm_refused_here() as attempts:
        assert model_prices("gpt-4o-mini") is not None
    assert attempts == []


def test_compare_two_replays_through_the_pipeline(tmp_path: Path) -> None:
    """Two saved replies go through the real summarize: A keeps the error, B drops it."""
    import asyncio

    from goose_tui.analysis.compare import side_from_result
    from goose_tui.compaction.summarize import summarize
    from goose_tui.compaction.templates import load_templates
    from goose_tui.llm import make_summarizer

    def reply(errors: list[str], name: str) -> Path:
        body = {"user_intent": ["fix calc.py"], "errors_and_fixes": errors}
        path = tmp_path / name
        path.write_text("<analysis>x</analysis>\n```json\n" + json.dumps(body) + "\n```\n")
        return path

    a = reply(["ZeroDivisionError: division by zero"], "a.txt")
    b = reply(["a test failed"], "b.txt")
    templates = load_templates(None)

    async def run(path: Path):
        return await summarize(HISTORY, make_summarizer(f"replay:{path}"), templates)

    left = side_from_result("A", asyncio.run(run(a)))
    right = side_from_result("B", asyncio.run(run(b)))
    comparison = compare_summaries([left, right], HISTORY)
    errors = next(d for d in comparison.diffs[0].fields if d.field == "errors_and_fixes")
    assert errors.status == "changed"
    assert errors.removed == ["ZeroDivisionError: division by zero"]
    assert next(d for d in comparison.diffs[0].fields if d.field == "user_intent").status == "same"
    assert comparison.sides[0].cost_usd is None  # replay: no price
    assert comparison.sides[0].usage is not None and comparison.sides[0].usage.input_tokens
    assert "ZeroDivisionError" in comparison.diffs[0].markdown_diff


def test_cli_compare_saved_summary_against_a_replay(tmp_path: Path, capsys) -> None:
    from tests.analysis.test_retention import run_command, write_session

    session = write_session(tmp_path / "s.jsonl", HISTORY)
    saved = tmp_path / "before.md"
    saved.write_text("# Conversation Summary\n\n- fixed calc.py\n")
    reply = tmp_path / "reply.txt"
    reply.write_text(
        "<analysis>a</analysis>\n```json\n"
        + json.dumps({"user_intent": ["fix calc.py"], "errors_and_fixes": ["ZeroDivisionError"]})
        + "\n```\n"
    )
    argv = ["compare", str(session), "--a", f"summary:{saved}", "--b", f"replay:{reply}"]
    assert run_command(argv) == 0
    out = capsys.readouterr().out
    assert "no field diff" in out  # the saved Markdown has no structure to line up
    cost = next(line for line in out.splitlines() if line.startswith("cost"))
    assert cost.split()[1:] == ["n/a", "n/a"]
    assert "+- ZeroDivisionError" in out
    assert run_command([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["sides"][0]["fallback"] is True and data["sides"][1]["fallback"] is False
    assert data["sides"][1]["retention"]["found"] > data["sides"][0]["retention"]["found"]


def test_cli_compare_two_structured_sides(tmp_path: Path, capsys) -> None:
    from tests.analysis.test_retention import run_command, write_session

    session = write_session(tmp_path / "s.jsonl", HISTORY)
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps({"user_intent": ["x"], "pending_tasks": ["p1"]}))
    b.write_text(json.dumps({"user_intent": ["x", "y"]}))
    argv = ["compare", str(session), "--a", f"summary:{a}", "--b", f"summary:{b}", "--json"]
    assert run_command(argv) == 0
    fields = {f["field"]: f for f in json.loads(capsys.readouterr().out)["diffs"][0]["fields"]}
    assert fields["user_intent"]["status"] == "changed"
    assert fields["user_intent"]["added"] == ["y"]
    assert fields["pending_tasks"]["status"] == "only_left"


def test_cli_compare_missing_replay_is_unusable(tmp_path: Path, capsys) -> None:
    from tests.analysis.test_retention import run_command, write_session

    session = write_session(tmp_path / "s.jsonl", HISTORY)
    argv = ["compare", str(session), "--a", "offline", "--b", f"replay:{tmp_path / 'nope.txt'}"]
    assert run_command(argv) == 2
    assert "nope.txt" in capsys.readouterr().err


def _compare(cli, *args: str):
    from tests.conftest import SAMPLES

    return cli("compare", str(SAMPLES / "short.jsonl"), *args)


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "internal error" not in err, err
    return lines[0]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("REPLAY:r.txt", "REPLAY:r.txt: did you mean replay:r.txt? (the prefix is lower case)"),
        ("offline:x", "offline:x: did you mean offline? (the built-in model takes no argument)"),
        ("Offline", "Offline: did you mean offline? (the built-in model takes no argument)"),
        ("replay:", "replay: needs a file, as in replay:reply.txt"),
        # Was ".: is a folder, not a regular file" (Path("") is ".").
        ("summary:", "summary: needs a file, as in summary:summary.md"),
        # Went to litellm ("knows no provider") where REPLAY:x was asked about.
        ("SUMMARY:s.md", "SUMMARY:s.md: did you mean summary:s.md? (the prefix is lower case)"),
    ],
)
def test_compare_an_unusable_side_is_named_and_exits_2(cli, spec: str, message: str) -> None:
    # REPLAY:r.txt and offline:x must not go to litellm ("knows no provider", exit 1), and
    # the message says which side it was.
    out = _compare(cli, "--a", "offline", "--b", spec)
    assert (out.returncode, _one_line(out.stderr), out.stdout) == (
        2,
        f"goose-tui: B: {message}",
        "",
    )
    out = _compare(cli, "--a", spec, "--b", "offline")
    assert (out.returncode, _one_line(out.stderr)) == (2, f"goose-tui: A: {message}")


# A model litellm does not know: tests/cli/test_litellm_in_process.py.


def test_compare_a_side_that_fails_is_named(cli, tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    out = _compare(cli, "--a", "offline", "--b", f"replay:{empty}")
    assert (out.returncode, _one_line(out.stderr)) == (
        1,
        "goose-tui: B: the model sent an empty reply: no summary, so the history was not compacted",
    )
