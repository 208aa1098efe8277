"""The machinery of the probe validity sets: Goose-shaped messages, the six summaries of a
session in the order a careful reader sets, and Kendall's tau between that order and the
offline probe score.

A complete summary is written once with two kinds of marked spans, ``[[R: …]]`` around the
reasons of decisions and ``[[N: …]]`` around the last error and the next step; the
"missing reasons" and "missing next step" summaries drop those spans. The string dump is
built from the session itself (its paths, commands and error lines, with no state).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from goose_tui.analysis.probes import ProbeReport, offline_report
from goose_tui.analysis.retention import extract_items
from goose_tui.compaction.summarize import summarize
from goose_tui.compaction.templates import load_templates
from goose_tui.llm import make_summarizer
from goose_tui.session.loader import load_session
from goose_tui.session.models import Message

# The reader's ranks: lower is better; pairs of equal rank are left out of tau. The offline
# summarizer's rank is set per session by reading its output (``Case.offline_rank``): on a
# short session it quotes every user message and the last reply and is as good as the
# complete summary; on a long one it cuts the reasons and the results.
READER_RANK = {
    "complete": 0,
    "missing_reasons": 1,
    "missing_next_step": 2,
    "dump": 4,
    "one_line": 5,
}
_SPAN = re.compile(r"\[\[([RN]):(.*?)\]\]", re.S)


def text(role: str, body: str) -> Message:
    return Message(role=role, content=[{"type": "text", "text": body}])


class Conversation:
    """Goose messages with tool calls and their responses paired by id."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self._ids = 0

    def user(self, body: str) -> None:
        self.messages.append(text("user", body))

    def say(self, body: str) -> None:
        self.messages.append(text("assistant", body))

    def run(self, tool: str, output: str, *, error: bool = False, say: str = "", **args: str):
        self._ids += 1
        call_id = f"toolu_{self._ids:04d}"
        content: list[dict] = [{"type": "text", "text": say}] if say else []
        content.append(
            {
                "type": "toolRequest",
                "id": call_id,
                "toolCall": {"status": "success", "value": {"name": tool, "arguments": args}},
            }
        )
        self.messages.append(Message(role="assistant", content=content))
        value = {"content": [{"type": "text", "text": output}], "isError": error}
        response = {
            "type": "toolResponse",
            "id": call_id,
            "toolResult": {"status": "success", "value": value},
        }
        self.messages.append(Message(role="user", content=[response]))

    def shell(self, command: str, output: str, *, error: bool = False, say: str = "") -> None:
        self.run("developer__shell", output, error=error, say=say, command=command)

    def edit(self, how: str, path: str, output: str, *, say: str = "", **args: str) -> None:
        self.run("developer__text_editor", output, say=say, command=how, path=path, **args)


def variant(complete: str, drop: str) -> str:
    """The complete summary without the spans of kind ``drop`` ("" keeps every span), and
    without headings left with nothing under them."""
    kept = _SPAN.sub(lambda m: "" if m.group(1) == drop else m.group(2), complete)
    lines = [line.rstrip() for line in kept.splitlines()]
    out: list[str] = []
    for n, line in enumerate(lines):
        if line.startswith("#"):
            rest = next((x for x in lines[n + 1 :] if x.strip()), "")
            if not rest or (rest.startswith("#") and rest.count("#") <= line.count("#")):
                continue
        if line.strip() in ("-", "") and out and out[-1] == "":
            continue
        if line.strip() == "-":
            continue
        out.append(line)
    return "\n".join(out).strip() + "\n"


def string_dump(messages: Sequence[Message]) -> str:
    """Paths, commands and error lines of the session, and nothing else."""
    items = extract_items(messages)
    out = []
    for category, title in (("files", "Files"), ("commands", "Commands"), ("errors", "Errors")):
        found = [i.text for i in items if i.category == category]
        if found:
            out += [f"{title}:", *(f"- {t}" for t in found), ""]
    return "\n".join(out)


def offline_summary(messages: Sequence[Message]) -> str:
    result = asyncio.run(summarize(messages, make_summarizer("offline"), load_templates()))
    return result.summary


@dataclass
class Case:
    name: str
    messages: list[Message]
    complete: str  # with [[R: …]] and [[N: …]] spans
    one_line: str
    working_dir: str | None = None
    has_reasons: bool = True
    offline_rank: int = 2
    summaries: dict[str, str] = field(default_factory=dict)

    def build(self) -> Case:
        self.summaries = {
            "complete": variant(self.complete, ""),
            "missing_reasons": variant(self.complete, "R"),
            "missing_next_step": variant(self.complete, "N"),
            "offline": offline_summary(self.messages),
            "dump": string_dump(self.messages),
            "one_line": self.one_line,
        }
        return self

    def reports(self) -> dict[str, ProbeReport]:
        return {
            name: offline_report(self.messages, summary, self.working_dir)
            for name, summary in self.summaries.items()
        }


def sample(path: Path) -> tuple[list[Message], str | None]:
    session = load_session(path)
    return session.messages, session.working_dir


def kendall_tau(scores: dict[str, float | None], offline_rank: int) -> float:
    """Kendall's tau between the reader's order and ``scores`` over the pairs the reader
    orders: +1 when every such pair is scored the same way round, -1 when every one is
    reversed; a tie in score counts as neither."""
    ranks = {**READER_RANK, "offline": offline_rank}
    names = list(ranks)
    agree = disagree = pairs = 0
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if ranks[a] == ranks[b]:
                continue
            pairs += 1
            better, worse = (a, b) if ranks[a] < ranks[b] else (b, a)
            diff = (scores[better] or 0.0) - (scores[worse] or 0.0)
            agree += diff > 1e-9
            disagree += diff < -1e-9
    return (agree - disagree) / pairs


def tau_by_session(
    cases: Sequence[Case], reports: dict[str, dict[str, ProbeReport]]
) -> dict[str, float]:
    return {
        case.name: kendall_tau(
            {k: r.overall for k, r in reports[case.name].items()}, case.offline_rank
        )
        for case in cases
    }
