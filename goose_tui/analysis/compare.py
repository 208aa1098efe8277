"""Two or more summaries of the same history side by side: size in tokens, retention against
the history, and what each call cost; and each later side read against the first (A): a
field-by-field diff and a unified diff of the rendered Markdown.

Prices come from litellm's bundled price map, read as a plain JSON file (located with
find_spec, never imported): importing litellm takes seconds and may try the network for a
fresher map.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from goose_tui.analysis.probes import (
    PROBE_LABELS,
    SCORE_NAME,
    ProbeReport,
    kind_outcomes,
    offline_report,
)
from goose_tui.analysis.retention import (
    CATEGORY_LABELS,
    EVIDENCE_NAME,
    RetentionReport,
    format_score,
    retention_report,
)
from goose_tui.compaction.structured import FIELD_ORDER, LIST_FIELDS, StructuredSummary
from goose_tui.compaction.summarize import summary_message
from goose_tui.llm.base import TokenUsage
from goose_tui.session.models import Message
from goose_tui.tokens import TokenCounter, model_map

FieldStatus = Literal["same", "changed", "only_left", "only_right"]


class SummarySide(BaseModel):
    """One summary, whichever way it was made."""

    label: str  # what the user passed: a model string, replay:FILE, summary:FILE
    summary: str  # rendered Markdown, or the raw text on fallback
    structured: StructuredSummary | None = None
    model: str | None = None  # the model that made it, for pricing; None for a saved file
    usage: TokenUsage | None = None


class FieldDiff(BaseModel):
    field: str
    status: FieldStatus
    left: list[str] = Field(default_factory=list)
    right: list[str] = Field(default_factory=list)
    added: list[str] = Field(default_factory=list)  # items only on the right
    removed: list[str] = Field(default_factory=list)  # items only on the left


class SideReport(BaseModel):
    label: str
    model: str | None
    tokens: int
    fallback: bool
    usage: TokenUsage | None
    cost_usd: float | None  # None: offline, replay, a saved file, or a model without a price
    retention: RetentionReport | None
    probes: ProbeReport | None = None  # offline probes: can the agent still act from it?


class SideDiff(BaseModel):
    """A later side against the first: field by field, and the rendered Markdown."""

    fields: list[FieldDiff]  # empty when either side is raw text (nothing to line up)
    markdown_diff: str
    note: str | None = None


class Comparison(BaseModel):
    sides: list[SideReport]  # A, B, C, ...: the first is the one the others are read against
    diffs: list[SideDiff]  # diffs[i]: sides[i + 1] against sides[0]

    def to_json_dict(self) -> dict[str, Any]:
        data = self.model_dump(mode="json", exclude={"sides"})
        data["sides"] = [_side_json(side) for side in self.sides]
        return data


def _side_json(side: SideReport) -> dict[str, Any]:
    data = side.model_dump(mode="json", exclude={"retention", "probes"})
    data["retention"] = side.retention.to_json_dict() if side.retention else None
    data["probes"] = side.probes.to_json_dict() if side.probes else None
    return data


def side_letter(index: int) -> str:
    """A, B, ... Z, then AA, AB, ...: how the sides are named in tables and errors."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


# --- prices -------------------------------------------------------------------------------


def model_prices(model: str | None) -> tuple[float, float] | None:
    """(input, output) USD per token. The map keys some models with their provider prefix
    and some without, so prefixes are stripped one at a time until a priced entry is found."""
    if not model or model == "offline" or model.startswith("replay:"):
        return None
    prices = model_map()
    candidate: str | None = model
    while candidate:
        entry = prices.get(candidate)
        if isinstance(entry, dict):
            cost_in = entry.get("input_cost_per_token")
            cost_out = entry.get("output_cost_per_token")
            if isinstance(cost_in, (int, float)) and isinstance(cost_out, (int, float)):
                return float(cost_in), float(cost_out)
        candidate = candidate.split("/", 1)[1] if "/" in candidate else None
    return None


def cost_usd(model: str | None, usage: TokenUsage | None) -> float | None:
    prices = model_prices(model)
    if prices is None or usage is None:
        return None
    if usage.input_tokens is None or usage.output_tokens is None:
        return None
    return usage.input_tokens * prices[0] + usage.output_tokens * prices[1]


def input_cost_usd(model: str | None, input_tokens: int | None) -> float | None:
    """What sending ``input_tokens`` to ``model`` costs by litellm's price map, before any
    call (the reply's tokens are not known yet); None for a model without a price."""
    prices = model_prices(model)
    if prices is None or input_tokens is None:
        return None
    return input_tokens * prices[0]


def estimate_note(model: str | None, input_tokens: int | None) -> str:
    """The status line's word on a priced model before a call: its estimated input cost (at
    litellm's prices, which the line says where there is room)."""
    cost = input_cost_usd(model, input_tokens)
    if cost is None:
        return ""
    return f"est. {input_tokens:,} tokens in ≈ {format_cost(cost)}"


def format_cost(cost: float | None) -> str:
    return "n/a" if cost is None else f"${cost:.6f}"


def side_rows(sides: Sequence[SideReport]) -> list[list[str]]:
    """The sides as ``compare`` and the app's compare screen show them: size, cost, evidence
    found (retention) by category and can the agent act (probes) by kind, found and
    missing."""
    rows = [
        ["spec", *(s.label for s in sides)],
        ["tokens", *(f"{s.tokens:,}" for s in sides)],
        ["structured", *("no (raw text)" if s.fallback else "yes" for s in sides)],
        ["cost", *(format_cost(s.cost_usd) for s in sides)],
    ]
    retentions = [s.retention for s in sides if s.retention is not None]
    if len(retentions) == len(sides):
        rows.append(
            [f"{EVIDENCE_NAME} (retention)", *(format_score(r.overall) for r in retentions)]
        )
        for categories in zip(*(r.categories for r in retentions), strict=True):
            label = "  " + CATEGORY_LABELS[categories[0].category]
            rows.append([label, *(f"{c.found}/{c.total}" for c in categories)])
    probes = [s.probes for s in sides if s.probes is not None]
    if len(probes) == len(sides):
        rows.append([f"{SCORE_NAME} (probes)", *(format_score(p.overall) for p in probes)])
        for kinds in zip(*(p.kinds for p in probes), strict=True):
            rows.append(["  " + PROBE_LABELS[kinds[0].kind], *map(kind_outcomes, kinds)])
    return rows


# --- diff ---------------------------------------------------------------------------------


def _file_item(entry: Any) -> str:
    text = f"{entry.path}: {entry.summary}" if entry.path else entry.summary
    if entry.key_code:
        text += f"\n{entry.key_code}"
    return text


def _stringify(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def field_items(summary: StructuredSummary, name: str) -> list[str]:
    """A field as a list of comparable strings (a scalar field is a list of zero or one)."""
    if name == "files":
        return [_file_item(f) for f in summary.files]
    if name in LIST_FIELDS:
        return list(getattr(summary, name))
    if name in FIELD_ORDER:
        value = getattr(summary, name)
        return [value] if value else []
    value = summary.extras.get(name)
    if value is None:
        return []
    return [_stringify(v) for v in value] if isinstance(value, list) else [_stringify(value)]


def diff_fields(left: StructuredSummary, right: StructuredSummary) -> list[FieldDiff]:
    names = (
        list(FIELD_ORDER)
        + [k for k in left.extras]
        + [k for k in right.extras if k not in left.extras]
    )
    diffs = []
    for name in names:
        a, b = field_items(left, name), field_items(right, name)
        if a == b:
            status: FieldStatus = "same"
        elif not b:
            status = "only_left"
        elif not a:
            status = "only_right"
        else:
            status = "changed"
        diffs.append(
            FieldDiff(
                field=name,
                status=status,
                left=a,
                right=b,
                added=[x for x in b if x not in a],
                removed=[x for x in a if x not in b],
            )
        )
    return diffs


def markdown_diff(left: str, right: str, left_label: str, right_label: str) -> str:
    return "".join(
        difflib.unified_diff(
            left.splitlines(keepends=True),
            right.splitlines(keepends=True),
            fromfile=left_label,
            tofile=right_label,
        )
    )


def _side_report(
    side: SummarySide, history: Sequence[Message] | None, working_dir: str | None = None
) -> SideReport:
    return SideReport(
        label=side.label,
        model=side.model,
        # The message that replaces the history, as the history is counted (batch, the gauge).
        tokens=TokenCounter().total([summary_message(side.summary)]),
        fallback=side.structured is None,
        usage=side.usage,
        cost_usd=cost_usd(side.model, side.usage),
        retention=retention_report(side.summary, history) if history is not None else None,
        probes=offline_report(history, side.summary, working_dir) if history is not None else None,
    )


def side_diff(left: SummarySide, right: SummarySide) -> SideDiff:
    """``right`` read against ``left``."""
    if left.structured is not None and right.structured is not None:
        fields, note = diff_fields(left.structured, right.structured), None
    else:
        raw = [s.label for s in (left, right) if s.structured is None]
        fields, note = [], f"no field diff: {' and '.join(raw)} is raw text (no structured summary)"
    return SideDiff(
        fields=fields,
        markdown_diff=markdown_diff(
            _with_newline(left.summary), _with_newline(right.summary), left.label, right.label
        ),
        note=note,
    )


def compare_summaries(
    sides: Sequence[SummarySide],
    history: Sequence[Message] | None = None,
    working_dir: str | None = None,
) -> Comparison:
    """Compare two or more summaries, each later one against the first; with ``history``,
    score each one's retention and offline probes against it."""
    if len(sides) < 2:
        raise ValueError("a comparison needs at least two sides")
    first = sides[0]
    return Comparison(
        sides=[_side_report(side, history, working_dir) for side in sides],
        diffs=[side_diff(first, other) for other in sides[1:]],
    )


def fields_by_name(c: Comparison, *, skip_empty: bool) -> list[tuple[str, list[FieldDiff | None]]]:
    """Each field, in order, with its diff against A for each later side (None where that
    pair has no field diff, a raw-text side, or neither side has the field); ``skip_empty``
    leaves out a field empty on every side."""
    by_side = [{f.field: f for f in d.fields} for d in c.diffs]
    names = dict.fromkeys(f.field for d in c.diffs for f in d.fields)
    rows = []
    for name in names:
        found = [fields.get(name) for fields in by_side]
        if skip_empty and all(f is None or (f.status == "same" and not f.left) for f in found):
            continue
        rows.append((name, found))
    return rows


def field_rows(diff: SideDiff) -> list[list[str]]:
    """One later side against A, a row a field not empty on both sides: the field, its
    status, the items added and removed (the caller adds its own header)."""
    return [
        [f.field, f.status.replace("_", " "), f"+{len(f.added)}", f"-{len(f.removed)}"]
        for f in diff.fields
        if f.status != "same" or f.left
    ]


def status_text(diff: FieldDiff | None, letter: str) -> str:
    """A field of a later side against A, in a word or three: ``changed +1 -2``."""
    if diff is None:
        return "-"
    if diff.status == "changed":
        return f"changed +{len(diff.added)} -{len(diff.removed)}"
    return {"same": "same", "only_left": "only A", "only_right": f"only {letter}"}[diff.status]


def _with_newline(text: str) -> str:
    # So that the last lines compare equal when only one file ended with a newline.
    return text if text.endswith("\n") else text + "\n"


def side_from_result(label: str, result: Any) -> SummarySide:
    """From a ``CompactionResult`` (typed loosely: summarize imports are not needed here)."""
    return SummarySide(
        label=label,
        summary=result.summary,
        structured=result.extraction.structured,
        model=result.model,
        usage=result.usage,
    )
