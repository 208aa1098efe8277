"""Can the agent still act after compaction? Probes: questions about the history that the
summary alone must answer, in four kinds:

- recall: an exact error text, a command that was run, a value the user gave;
- artifact: which files were created or changed, and how;
- continuation: what the user asked for last, what is still failing, the last action;
- decision: how an error was fixed, what was chosen instead of what.

Offline probes are built from the session's structure and answered by looking their
evidence up in the summary (exact, or normalized as in the retention report): a probe whose
evidence is all there scores 1, half of it 0.5. No model, deterministic, free. Probes
written, answered and judged by a model live in ``probe_model.py`` and score into the same
report.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import PurePosixPath
from typing import Any, Literal

from pydantic import BaseModel, Field

from goose_tui.analysis.retention import (
    SummaryIndex,
    _commands,
    _error_result_texts,
    _path_values,
    _tool_call,
    _user_texts,
    error_lines,
    identifiers_in_text,
    paths_in_text,
)
from goose_tui.session.models import Message, content_type

ProbeKind = Literal["recall", "artifact", "continuation", "decision"]
PROBE_KINDS: tuple[ProbeKind, ...] = ("recall", "artifact", "continuation", "decision")
PROBE_LABELS: dict[ProbeKind, str] = {
    "recall": "recall",
    "artifact": "artifacts",
    "continuation": "continuation",
    "decision": "decisions",
}
MAX_PER_KIND = 6  # most recent first: what the agent needs next is near the end
_SNIPPET = 200

# Editor sub-commands and tool names that change a file (Goose's text editor uses
# write / str_replace / insert; other tools name what they do).
_WRITE_COMMANDS = frozenset({"write", "create", "str_replace", "insert", "append", "edit"})
_WRITE_TOOL = re.compile(r"(?:write|edit|create|patch|replace|insert|append)", re.I)
_HOW = {"write": "written", "create": "created", "str_replace": "edited", "insert": "edited"}
_CHOICE = re.compile(r"\b(?:instead of|rather than|in favou?r of|over using)\b", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")  # "0.475" is not a sentence end
_NUMBERISH = re.compile(r"(?<![\w.])\d[\w.,:/-]*\d(?![\w])|\b\w*\d\w*\b")
_ALLCAPS = re.compile(r"\b[A-Z][A-Z0-9_]{2,}\b")


class Probe(BaseModel):
    kind: ProbeKind
    question: str
    expected: str
    message_index: int | None = None  # the source message, into the history, 0-based
    # Offline only: each requirement is a list of alternatives, any one of which in the
    # summary satisfies it.
    evidence: list[list[str]] = Field(default_factory=list)


class ProbeResult(BaseModel):
    probe: Probe
    answer: str  # what the summary answered (offline: the lines holding the evidence)
    score: float | None  # 0..1; None when a judge's reply could not be read
    verdict: str = ""  # why: "2 of 2 found", or the judge's reason


class KindScore(BaseModel):
    kind: ProbeKind
    probes: int
    score: float | None  # mean over the probes that have a score


class ProbeCall(BaseModel):
    """One model call of a probe run, for the cost and tokens shown to the user."""

    stage: Literal["write", "answer", "judge"]
    model: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    cost_usd: float | None = None
    cached: bool = False  # answered from the cache: nothing was sent, nothing spent


class ProbeReport(BaseModel):
    mode: Literal["offline", "model"]
    writer: str | None = None  # the model that wrote and answered the probes
    judge: str | None = None
    results: list[ProbeResult] = Field(default_factory=list)
    kinds: list[KindScore] = Field(default_factory=list)
    calls: list[ProbeCall] = Field(default_factory=list)

    @property
    def overall(self) -> float | None:
        scores = [r.score for r in self.results if r.score is not None]
        return sum(scores) / len(scores) if scores else None

    def kind(self, kind: ProbeKind) -> KindScore:
        return next(k for k in self.kinds if k.kind == kind)

    @property
    def cost_usd(self) -> float | None:
        costs = [c.cost_usd for c in self.calls if c.cost_usd is not None]
        return sum(costs) if costs else None

    @property
    def tokens(self) -> int:
        return sum(c.total_tokens or 0 for c in self.calls if not c.cached)

    def to_json_dict(self) -> dict[str, Any]:
        data = self.model_dump(mode="json")
        data["overall"] = self.overall
        data["cost_usd"] = self.cost_usd
        data["tokens"] = self.tokens
        data["calls_made"] = sum(1 for c in self.calls if not c.cached)
        data["calls_cached"] = sum(1 for c in self.calls if c.cached)
        return data


def kind_scores(results: Sequence[ProbeResult]) -> list[KindScore]:
    out = []
    for kind in PROBE_KINDS:
        mine = [r for r in results if r.probe.kind == kind]
        scores = [r.score for r in mine if r.score is not None]
        out.append(
            KindScore(
                kind=kind, probes=len(mine), score=sum(scores) / len(scores) if scores else None
            )
        )
    return out


# --- offline probes from the session's structure -----------------------------------------


def _short(text: str, width: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _path_alternatives(path: str, working_dir: str | None) -> list[str]:
    """A path as a summary may write it: whole, relative to the working folder, or its name."""
    alts = [path]
    if working_dir and path.startswith(working_dir.rstrip("/") + "/"):
        alts.append(path[len(working_dir.rstrip("/")) + 1 :])
    name = PurePosixPath(path).name
    if name and name not in alts:
        alts.append(name)
    return alts


def salient_terms(text: str, limit: int = 6) -> list[str]:
    """What a paraphrase must still carry: paths, identifiers, numbers and versions,
    ALL-CAPS names; in the order written."""
    found: list[str] = []
    for term in (
        paths_in_text(text)
        + identifiers_in_text(text)
        + [m.group(0) for m in _NUMBERISH.finditer(text)]
        + _ALLCAPS.findall(text)
    ):
        term = term.strip(".,;:")
        if len(term) >= 2 and term not in found:
            found.append(term)
    order = {t: text.find(t) for t in found}
    return sorted(found, key=lambda t: order[t])[:limit]


class _Event(BaseModel):
    """One step of the session the probes are built from."""

    kind: Literal["command", "write", "error", "ok"]
    index: int
    text: str  # the command, the path, the error line
    how: str = ""  # for a write: the editor command
    command: str = ""  # for an error or ok: the command whose response it is


def _events(messages: Sequence[Message]) -> Iterator[_Event]:
    pending: dict[str, str] = {}  # tool-request id -> its command (or tool name)
    for index, message in enumerate(messages):
        for item in message.content:
            kind = content_type(item)
            if kind == "toolRequest":
                call = _tool_call(item)
                if call is None:
                    continue
                name, arguments = call
                commands = list(_commands(arguments))
                for command in commands:
                    yield _Event(kind="command", index=index, text=command)
                sub = arguments.get("command")
                writes = (isinstance(sub, str) and sub in _WRITE_COMMANDS) or (
                    not isinstance(sub, str) and _WRITE_TOOL.search(name)
                )
                if writes:
                    for path in _path_values(arguments):
                        yield _Event(kind="write", index=index, text=path, how=str(sub or name))
                pending[str(item.get("id"))] = commands[0] if commands else name
            elif kind == "toolResponse":
                failed, texts = _error_result_texts(item)
                command = pending.get(str(item.get("id")), "")
                lines = [line for t in texts for line in error_lines(t, failed=failed)]
                for line in lines:
                    yield _Event(kind="error", index=index, text=line, command=command)
                if not lines:
                    yield _Event(kind="ok", index=index, text="", command=command)


def _requirement(text: str) -> list[list[str]]:
    return [[text]]


def offline_probes(messages: Sequence[Message], working_dir: str | None = None) -> list[Probe]:
    """Probes of every kind, built from what the session did; most recent first per kind,
    at most ``MAX_PER_KIND`` each."""
    events = list(_events(messages))
    probes: dict[ProbeKind, list[Probe]] = {k: [] for k in PROBE_KINDS}

    def add(probe: Probe) -> None:
        bucket = probes[probe.kind]
        if len(bucket) < MAX_PER_KIND and all(p.expected != probe.expected for p in bucket):
            bucket.append(probe)

    # recall: errors (newest first), then commands, then values the user typed
    for e in reversed([e for e in events if e.kind == "error"]):
        where = f"`{_short(e.command, 80)}`" if e.command else f"message #{e.index + 1}"
        add(
            Probe(
                kind="recall",
                question=f"What exact error did {where} report?",
                expected=e.text,
                message_index=e.index,
                evidence=_requirement(e.text),
            )
        )
    for e in reversed([e for e in events if e.kind == "command"]):
        add(
            Probe(
                kind="recall",
                question=f"Which command was run at message #{e.index + 1}?",
                expected=e.text,
                message_index=e.index,
                evidence=_requirement(e.text),
            )
        )
    user = [(i, t) for i, m in enumerate(messages) for t in _user_texts(m)]
    for index, text in reversed(user):
        for value in identifiers_in_text(text)[:2]:
            add(
                Probe(
                    kind="recall",
                    question=f"What value did the user give in message #{index + 1}?",
                    expected=value,
                    message_index=index,
                    evidence=_requirement(value),
                )
            )

    # artifact: each file changed, by its last change
    last_write: dict[str, _Event] = {}
    for e in events:
        if e.kind == "write":
            last_write.pop(e.text, None)
            last_write[e.text] = e
    for e in reversed(list(last_write.values())):
        how = _HOW.get(e.how, e.how)
        add(
            Probe(
                kind="artifact",
                question="Which file was changed last in this session, and how?"
                if not probes["artifact"]
                else f"Which file was {how} at message #{e.index + 1}?",
                expected=f"{e.text} ({how})",
                message_index=e.index,
                evidence=[_path_alternatives(e.text, working_dir)],
            )
        )

    # continuation: the last request, what is still failing, the last action
    if user:
        index, text = user[-1]
        terms = salient_terms(text)
        add(
            Probe(
                kind="continuation",
                question="What did the user ask for last?",
                expected=text,
                message_index=index,
                evidence=[[text, t] for t in terms] if terms else _requirement(text),
            )
        )
    # Still failing: the errors of the last tool response, when it failed (an earlier
    # failure may have been fixed by a differently written run; only the end is certain).
    responses = [e for e in events if e.kind in ("error", "ok")]
    if responses and responses[-1].kind == "error":
        last = responses[-1].index
        for e in (r for r in responses if r.index == last and r.kind == "error"):
            where = f" in `{_short(e.command, 80)}`" if e.command else ""
            add(
                Probe(
                    kind="continuation",
                    question=f"What is still failing{where}?",
                    expected=e.text,
                    message_index=e.index,
                    evidence=_requirement(e.text),
                )
            )
    actions = [e for e in events if e.kind in ("command", "write")]
    if actions:
        e = actions[-1]
        alts = _path_alternatives(e.text, working_dir) if e.kind == "write" else [e.text]
        add(
            Probe(
                kind="continuation",
                question="What was the last action taken before the summary?",
                expected=e.text,
                message_index=e.index,
                evidence=[alts],
            )
        )

    # decision: how each error was fixed (the first write after it), choices stated in words
    for n, e in reversed(list(enumerate(events))):
        if e.kind != "error":
            continue
        fix = next((w for w in events[n + 1 :] if w.kind == "write"), None)
        if fix is None:
            continue
        add(
            Probe(
                kind="decision",
                question=f"How was `{_short(e.text, 80)}` fixed?",
                expected=f"by changing {fix.text}",
                message_index=fix.index,
                evidence=[[e.text], _path_alternatives(fix.text, working_dir)],
            )
        )
    for index, message in reversed(list(enumerate(messages))):
        if message.role != "assistant":
            continue
        for item in message.content:
            if content_type(item) != "text" or not isinstance(item.get("text"), str):
                continue
            for sentence in _SENTENCE_END.split(item["text"]):
                sentence = sentence.strip()
                if not _CHOICE.search(sentence):
                    continue
                terms = salient_terms(sentence)
                if terms:
                    add(
                        Probe(
                            kind="decision",
                            question=f"What was chosen at message #{index + 1}, and over what?",
                            expected=sentence,
                            message_index=index,
                            evidence=[[sentence, t] for t in terms],
                        )
                    )
    return [p for kind in PROBE_KINDS for p in probes[kind]]


# --- offline answering --------------------------------------------------------------------


def _line_with(index: SummaryIndex, term: str) -> str:
    line = index.line_with(term)
    # None: found only after normalizing; show what was looked for.
    return _short(term if line is None else line.strip(), _SNIPPET)


def answer_offline(probe: Probe, index: SummaryIndex) -> ProbeResult:
    found_lines: list[str] = []
    found = 0
    for alternatives in probe.evidence:
        hit = next((a for a in alternatives if index.status(a) != "missing"), None)
        if hit is not None:
            found += 1
            line = _line_with(index, hit)
            if line not in found_lines:
                found_lines.append(line)
    total = len(probe.evidence)
    return ProbeResult(
        probe=probe,
        answer=" … ".join(found_lines),
        score=found / total if total else None,
        verdict=f"{found} of {total} found in the summary",
    )


def score_offline(probes: Sequence[Probe], summary: str) -> ProbeReport:
    index = SummaryIndex(summary)
    results = [answer_offline(p, index) for p in probes]
    return ProbeReport(mode="offline", results=results, kinds=kind_scores(results))


def offline_report(
    messages: Sequence[Message], summary: str, working_dir: str | None = None
) -> ProbeReport:
    return score_offline(offline_probes(messages, working_dir), summary)


def format_probe_score(score: float | None) -> str:
    return "n/a" if score is None else f"{score:.0%}"
