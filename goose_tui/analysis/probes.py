"""Can the agent still act after compaction? Probes: questions about the history that the
summary alone must answer, in four kinds, weighted by what acting needs most:

- continuation (weight 0.4): the user's last request, where the work stopped, the open
  problem and the next step, taken from the assistant's last message and the last failure;
- decision (0.25): what was chosen, and the reason given for it;
- artifact (0.2): the files changed, and what was done to them;
- recall (0.15): the key facts the user gave (names, values, paths), matched exactly.

Offline probes are built from the session's structure and answered by looking for their
meaning in the summary: an error by its class and key words, a statement by the share of its
content words, a path by its file name; exact strings only for the user's values. Credit
comes only from where an answer would be: a continuation probe from a state-carrying place
(a Current Work / Next Step / Pending Tasks section, or a sentence that says "still",
"next", "to do"…), a decision or statement from prose (a list of paths, commands and error
lines answers neither). No model, deterministic, free. Probes written, answered and judged
by a model live in ``probe_model.py`` and score into the same report.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any, Literal

from pydantic import BaseModel, Field, computed_field

from goose_tui.analysis.retention import (
    _error_result_texts,
    _path_values,
    _tool_call,
    _user_texts,
    error_lines,
    format_score,
    identifiers_in_text,
    normalize,
    paths_in_text,
)
from goose_tui.compaction.format import normalize_text
from goose_tui.session.models import Message, content_type
from goose_tui.terminal import shorten

# What the probe score measures, as every view names it (retention's is EVIDENCE_NAME).
SCORE_NAME = "can the agent act"
ProbeKind = Literal["recall", "artifact", "continuation", "decision"]
PROBE_KINDS: tuple[ProbeKind, ...] = ("continuation", "decision", "artifact", "recall")
PROBE_LABELS: dict[ProbeKind, str] = {
    "recall": "user facts",
    "artifact": "artifacts",
    "continuation": "continuation",
    "decision": "decisions",
}
# Six recall probes must not outvote one continuation probe: each kind's mean counts with
# its weight, renormalized over the kinds the session has.
KIND_WEIGHTS: dict[ProbeKind, float] = {
    "continuation": 0.4,
    "decision": 0.25,
    "artifact": 0.2,
    "recall": 0.15,
}
MAX_PER_KIND = 6  # most recent first: what the agent needs next is near the end
_SNIPPET = 200


Where = Literal["anywhere", "prose", "state"]


class Evidence(BaseModel):
    """One thing a probe's answer must carry, and how it is looked for."""

    match: Literal["exact", "error", "words", "path"]
    text: str  # as the session wrote it
    terms: list[str] = Field(default_factory=list)  # what is looked for (normalized)
    need: float = 1.0  # the share of ``terms`` that counts as found
    where: Where = "anywhere"
    near: str = ""  # a term that must be in the same place (a file's name)


class Probe(BaseModel):
    kind: ProbeKind
    question: str
    expected: str
    message_index: int | None = None  # the source message, into the history, 0-based
    # The answer must give ``expected`` as it is (a value the user gave, an identifier);
    # otherwise its meaning is what counts.
    exact: bool = False
    evidence: list[Evidence] = Field(default_factory=list)  # offline only


class ProbeResult(BaseModel):
    probe: Probe
    answer: str  # what the summary answered (offline: the place holding the evidence)
    score: float | None  # 0..1; None: unscored (a judge's reply could not be read)
    verdict: str = ""  # why: what was found, or the judge's reason

    @computed_field  # type: ignore[prop-decorator]
    @property
    def outcome(self) -> Literal["found", "partial", "missing", "unscored"]:
        if self.score is None:
            return "unscored"
        return "found" if self.score >= 0.75 else ("missing" if self.score < 0.25 else "partial")


class KindScore(BaseModel):
    kind: ProbeKind
    probes: int
    score: float | None  # mean over the probes that have a score
    found: int = 0
    partial: int = 0
    missing: int = 0
    unscored: int = 0
    weight: float = 0.0


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
    writer: str | None = None  # the model that wrote the probes
    answerer: str | None = None  # the model that answered them from the summary
    judge: str | None = None
    results: list[ProbeResult] = Field(default_factory=list)
    kinds: list[KindScore] = Field(default_factory=list)
    calls: list[ProbeCall] = Field(default_factory=list)

    @property
    def overall(self) -> float | None:
        """Can the agent act: the kinds' scores weighted by ``KIND_WEIGHTS``."""
        scored = [k for k in self.kinds if k.score is not None]
        total = sum(KIND_WEIGHTS[k.kind] for k in scored)
        if not total:
            return None
        return sum(KIND_WEIGHTS[k.kind] * (k.score or 0.0) for k in scored) / total

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
        outcomes = [r.outcome for r in mine]
        out.append(
            KindScore(
                kind=kind,
                probes=len(mine),
                score=sum(scores) / len(scores) if scores else None,
                found=outcomes.count("found"),
                partial=outcomes.count("partial"),
                missing=outcomes.count("missing"),
                unscored=outcomes.count("unscored"),
                weight=KIND_WEIGHTS[kind],
            )
        )
    return out


# --- words and meaning --------------------------------------------------------------------

_STOP = frozenset(
    """a an the and or but nor so to of in on at by for with from into onto as is are was were
    be been being it its this that these those there here then than too very can could will
    would should shall may might must do does did done have has had having not no yes i we
    you he she they them their our your my me us his her what which who whom when where why
    how all any each both some such only own same also just now still again once more most
    other about after before over under up down out off if else while until because since
    though although per via let lets i'll we'll it's that's don't can't won't ll ve re one
    two get got make made use used using see need needs like ill ive id im youll lets dont
    cant wont thats""".split()
)
_PLAIN_WORD = re.compile(r"(?<![\w./\\-])[^\W\d_][^\W\d_A-Z]+(?![\w/\\-]|\.\w)")
_WORDS = re.compile(r"[^\W_]+(?:[.'][^\W_]+)*", re.U)
_CODEISH = re.compile(r"`[^`\n]*`|\S*[/=_\\]\S*|\S+\(\S*|\S+\.\w+\S*|--?\w[\w-]*")
_SENTENCE_END = re.compile(r"(?<=[.!?:])\s+(?=[A-Z`\"'(])|\n+")  # "0.475" is not an end
_ERROR_CLASS = re.compile(r"\b[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Failure|Warning)\b")
_GENERIC = frozenset(
    "error errors exception traceback file line lines recent call last failed fail failure "
    "fatal raise raised most".split()
)


def _stem(word: str) -> str:
    word = word.casefold()
    for suffix in ("ing", "ies", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def _normal(text: str) -> str:
    """As the summarizer read it (NFC, tag characters gone), then case-folded and stripped of
    punctuation, so a file name macOS wrote decomposed matches its composed form."""
    return normalize(normalize_text(text))


def _stems(text: str) -> set[str]:
    return {_stem(w) for w in _WORDS.findall(_normal(text))}


def content_terms(text: str, limit: int = 14) -> list[str]:
    """The words that carry a statement's meaning: names, numbers and content words, not
    function words; stemmed, in the order written."""
    out: list[str] = []
    for word in _WORDS.findall(_normal(text)):
        stem = _stem(word)
        if (len(word) >= 3 or word.isdigit()) and word not in _STOP and stem not in out:
            out.append(stem)
    return out[:limit]


def error_terms(line: str) -> tuple[str | None, list[str]]:
    """(the error's class, its key words): what a paraphrase of the error still says."""
    classes = _ERROR_CLASS.findall(line)
    name = classes[-1] if classes else None
    rest = line.replace(name, " ") if name else line
    words = [w for w in content_terms(rest, limit=10) if w not in _GENERIC]
    return name, words


def _file_name(path: str) -> str:
    return PurePosixPath(path).name or path


# --- the summary, as places an answer can be ----------------------------------------------

_STATE_TITLE = re.compile(
    r"current work|next step|pending|to ?do|open (?:problem|issue|question)s?|status|"
    r"remaining|blocker|where things stand|state",
    re.I,
)
_STATE_CUE = re.compile(
    r"\b(?:still (?:fail|fails|failing|broken|open|to do|missing|needs?|crash\w*|dies|"
    r"reports?|pending|not|raises?)|next|remain\w*|pending|to do|todo|left to|not yet|until|"
    r"otherwise|or else|"
    r"unresolved|open|outstanding|blocked|waiting|then)\b",
    re.I,
)
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*)$")


@dataclass(frozen=True)
class _Place:
    text: str
    state: bool
    prose: bool
    normalized: str
    stems: frozenset[str]


def _is_prose(text: str) -> bool:
    """A statement, not a list of strings: at least five plain words, two of them function
    words, once code spans, paths, flags and identifiers are taken out."""
    words = [w.casefold() for w in _PLAIN_WORD.findall(_CODEISH.sub(" ", text))]
    return len(words) >= 5 and len({w for w in words if w in _STOP}) >= 2


def _place(text: str, state: bool) -> _Place:
    return _Place(
        text=text,
        state=state,
        prose=_is_prose(text),
        normalized=f" {normalize(text)} ",
        stems=frozenset(_stems(text)),
    )


class SummaryPlaces:
    """A summary cut into the places an answer can be: each Markdown section whole, and
    each of its lines (free text has one untitled section). A place carries state when its
    section's title says so or when the line itself does ("still", "next", …)."""

    def __init__(self, summary: str):
        self.text = normalize_text(summary)
        self.places: list[_Place] = []
        title, lines = "", []
        for line in [*self.text.splitlines(), "# end"]:
            heading = _HEADING.match(line)
            if heading is None:
                lines.append(line)
                continue
            self._section(title, lines)
            title, lines = heading.group(1), []

    def _section(self, title: str, lines: list[str]) -> None:
        body = [line.strip() for line in lines if line.strip()]
        if not body:
            return
        state = bool(_STATE_TITLE.search(title))
        places = [_place(line, state or bool(_STATE_CUE.search(line))) for line in body]
        if title:
            # The section whole answers too (an entry and its explanation on the next line),
            # as prose only when one of its lines is.
            whole = _place("\n".join(body), state)  # a title's words answer nothing
            whole = _Place(**{**whole.__dict__, "prose": any(p.prose for p in places)})
            self.places.append(whole)
        self.places += places

    def candidates(self, where: Where, near: str = "") -> Iterator[_Place]:
        for place in self.places:
            if where == "state" and not (place.state and place.prose):
                continue
            if where == "prose" and not place.prose:
                continue
            if near and f" {_normal(near)} " not in place.normalized:
                continue
            yield place


def _has(place: _Place, term: str) -> bool:
    norm = _normal(term)
    if " " in norm or not norm:
        return bool(norm) and f" {norm} " in place.normalized
    return _stem(norm) in place.stems


def _evidence_score(evidence: Evidence, summary: SummaryPlaces) -> tuple[float, str]:
    """How well the best place answers one piece of evidence (0..1), and that place."""
    best, where = 0.0, ""
    for place in summary.candidates(evidence.where, evidence.near):
        if evidence.match == "exact":
            norm = _normal(evidence.text)
            score = 1.0 if norm and f" {norm} " in place.normalized else 0.0
        elif evidence.match == "error":
            name, words = evidence.terms[0], evidence.terms[1:]
            share = sum(_has(place, w) for w in words) / len(words) if words else 1.0
            words_score = min(1.0, share / evidence.need)
            score = 0.5 * _has(place, name) + 0.5 * words_score if name else words_score
        else:
            terms = evidence.terms
            share = sum(_has(place, t) for t in terms) / len(terms) if terms else 0.0
            score = min(1.0, share / evidence.need)
        # Prefer the smallest place that answers as well: it is what a reader would quote.
        if score > best + 1e-9 or (
            score > 0 and abs(score - best) < 1e-9 and len(place.text) < len(where)
        ):
            best, where = score, place.text
    return best, where


def answer_offline(probe: Probe, summary: SummaryPlaces) -> ProbeResult:
    scores, places = [], []
    for evidence in probe.evidence:
        score, place = _evidence_score(evidence, summary)
        scores.append(score)
        line = shorten(place, _SNIPPET) if place else ""
        if line and line not in places:
            places.append(line)
    total = len(probe.evidence)
    found = sum(1 for s in scores if s >= 0.75)
    return ProbeResult(
        probe=probe,
        answer=" … ".join(places),
        score=sum(scores) / total if total else None,
        verdict=f"{found} of {total} found in the summary",
    )


def score_offline(probes: Sequence[Probe], summary: str) -> ProbeReport:
    places = SummaryPlaces(summary)
    results = [answer_offline(p, places) for p in probes]
    return ProbeReport(mode="offline", results=results, kinds=kind_scores(results))


def offline_report(
    messages: Sequence[Message], summary: str, working_dir: str | None = None
) -> ProbeReport:
    return score_offline(offline_probes(messages, working_dir), summary)


def probe_kind_rows(report: ProbeReport) -> list[list[str]]:
    """The probe table as ``probe`` and the report show it, one row a kind and the total:
    label, probes, found, partial, missing, score (the caller adds its own header)."""
    rows = [
        [PROBE_LABELS[k.kind], *map(str, (k.probes, k.found, k.partial, k.missing))]
        + [format_score(k.score)]
        for k in report.kinds
    ]
    rows.append([SCORE_NAME, str(len(report.results)), "", "", "", format_score(report.overall)])
    return rows


def kind_outcomes(kind: KindScore) -> str:
    """What one kind found and what it missed: ``2/3 found, 1 missing``."""
    if not kind.probes:
        return "no probes"
    counts = ((kind.partial, "partial"), (kind.missing, "missing"), (kind.unscored, "unscored"))
    return ", ".join([f"{kind.found}/{kind.probes} found", *(f"{n} {w}" for n, w in counts if n)])


def found_by_kind(kinds: Sequence[KindScore]) -> str:
    """Each kind that has probes, found of its probes, on one line (a batch row):
    ``continuation 1/3, decisions 0/1, artifacts 2/2``."""
    return ", ".join(f"{PROBE_LABELS[k.kind]} {k.found}/{k.probes}" for k in kinds if k.probes)


# --- offline probes from the session's structure -----------------------------------------

_WRITE_COMMANDS = frozenset({"write", "create", "str_replace", "insert", "append", "edit"})
_WRITE_TOOL = re.compile(r"(?:write|edit|create|patch|replace|insert|append)", re.I)
_HOW = {"write": "written", "create": "created", "str_replace": "edited", "insert": "edited"}
# A decision is said by someone acting or advising, with a choice or a reason; "round()
# gives 0.47 instead of 0.48" describes a bug and says neither.
_AGENT = re.compile(
    r"\b(?:I['’]ll|I will|I['’]d|I['’]m going to|we['’]ll|we will|we should|let['’]s|"
    r"recommend\w*|cho(?:se|ose|sen)|went with|go(?:ing)? with|decided|opted|prefer\w*|"
    r"pick\w*|keep|should)\b",
    re.I,
)
_CHOICE = re.compile(
    r"\b(?:recommend\w*|cho(?:se|ose|sen)|went with|go(?:ing)? with|decided|opted|"
    r"prefer\w*|instead of|rather than|in favou?r of|\w+ over \w+)\b",
    re.I,
)
# Looking around before acting ("I'll check how the renderer uses it") decides nothing.
_LOOKING = re.compile(
    r"\b(?:I['’]ll|we['’]ll|let['’]s|I will)\s+(?:first\s+|now\s+)?(?:check|look|read|run|see|"
    r"verify|inspect|reproduce|start|compute|view|try|note|test)\b",
    re.I,
)
_REASON = re.compile(r"\b(?:because|since|so that|so|as it|otherwise|which means)\b|:\s", re.I)
# A reason runs to the end of its clause: ", and give nginx the group" after "since the
# socket is not reachable" is the next thing done, not part of why.
_CLAUSE_END = re.compile(r",\s+(?:and|but|then|while)\s+|;\s+|\s[—–-]\s")
_NEXT = re.compile(
    r"\b(?:next|then|still to do|to do|todo|remaining|left|need(?:s)? to|must|I['’]ll|"
    r"we['’]ll|will|should|or else|otherwise|until)\b",
    re.I,
)


class _Event(BaseModel):
    kind: Literal["write", "error", "ok"]
    index: int
    text: str  # the path, the error line
    how: str = ""
    command: str = ""


def _events(messages: Sequence[Message]) -> Iterator[_Event]:
    pending: dict[str, str] = {}
    for index, message in enumerate(messages):
        for item in message.content:
            kind = content_type(item)
            if kind == "toolRequest":
                call = _tool_call(item)
                if call is None:
                    continue
                name, arguments = call
                sub = arguments.get("command")
                writes = (isinstance(sub, str) and sub in _WRITE_COMMANDS) or (
                    not isinstance(sub, str) and _WRITE_TOOL.search(name)
                )
                if writes:
                    for path in _path_values(arguments):
                        yield _Event(kind="write", index=index, text=path, how=str(sub or name))
                pending[str(item.get("id"))] = sub if isinstance(sub, str) else name
            elif kind == "toolResponse":
                failed, texts = _error_result_texts(item)
                command = pending.get(str(item.get("id")), "")
                lines = [line for t in texts for line in error_lines(t, failed=failed)]
                for line in lines:
                    yield _Event(kind="error", index=index, text=line, command=command)
                if not lines:
                    yield _Event(kind="ok", index=index, text="", command=command)


def _assistant_texts(messages: Sequence[Message]) -> Iterator[tuple[int, str]]:
    for index, message in enumerate(messages):
        if message.role != "assistant":
            continue
        for item in message.content:
            if content_type(item) == "text" and isinstance(item.get("text"), str):
                if item["text"].strip():
                    yield index, item["text"].strip()


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def _words(
    text: str, need: float, where: Where, near: str = "", known: frozenset[str] = frozenset()
) -> Evidence | None:
    """A statement's content words, looked for together in one place; ``known`` words (the
    topic every summary names) prove nothing and are left out."""
    terms = [t for t in content_terms(text) if t not in known]
    if len(terms) < 2:
        return None
    return Evidence(match="words", text=text, terms=terms, need=need, where=where, near=near)


def _error(line: str, where: Where) -> Evidence:
    name, words = error_terms(line)
    return Evidence(match="error", text=line, terms=[name or "", *words], need=0.5, where=where)


def _decision(sentence: str, previous: str) -> tuple[str, str] | None:
    """(what was chosen, the reason) of a sentence that states a decision, else None."""
    agent = _AGENT.search(sentence)
    if agent is None or (_LOOKING.search(sentence) and not _CHOICE.search(sentence)):
        return None
    reason = _REASON.search(sentence)
    if reason is not None and reason.start() > 10:
        before, after = sentence[: reason.start()], sentence[reason.end() :]
        if reason.group(0).strip().casefold() == "so" and agent.start() > reason.start():
            return after, before  # "The totals are money, so the tests should …"
        return before, _CLAUSE_END.split(after, maxsplit=1)[0]
    if previous and len(content_terms(previous)) >= 3:
        return sentence, previous  # "int("-0") is 0, so … . I'll format …"
    if _CHOICE.search(sentence):
        return sentence, ""
    return None


def offline_probes(messages: Sequence[Message], working_dir: str | None = None) -> list[Probe]:
    """Probes of every kind, built from what the session did; most recent first per kind,
    at most ``MAX_PER_KIND`` each."""
    events = list(_events(messages))
    said = list(_assistant_texts(messages))
    probes: dict[ProbeKind, list[Probe]] = {k: [] for k in PROBE_KINDS}

    def add(probe: Probe) -> None:
        bucket = probes[probe.kind]
        if not probe.evidence or len(bucket) >= MAX_PER_KIND:
            return
        if all(p.expected != probe.expected for p in bucket):
            bucket.append(probe)

    # continuation: the last request, the open problem, where the work stopped, what is next
    user = [(i, t) for i, m in enumerate(messages) for t in _user_texts(m)]
    if user:
        index, text = user[-1]
        request = _words(text, 0.6, "prose")
        add(
            Probe(
                kind="continuation",
                question="What did the user ask for last?",
                expected=text,
                message_index=index,
                evidence=[request] if request else [],
            )
        )
    responses = [e for e in events if e.kind in ("error", "ok")]
    if responses and responses[-1].kind == "error":
        last = responses[-1]
        add(
            Probe(
                kind="continuation",
                question="What is still failing?",
                expected=last.text,
                message_index=last.index,
                evidence=[_error(last.text, "state")],
            )
        )
    if said:
        index, text = said[-1]
        parts = sentences(text)
        nexts = [s for s in parts if _NEXT.search(s)]
        stands = [s for s in parts if s not in nexts]
        # Where the work stopped may be told anywhere, but it counts in full only where the
        # summary states the state; the next step only there.
        steps: tuple[tuple[str, list[str], tuple[Where, ...]], ...] = (
            ("Where did the work stop?", stands, ("prose", "state")),
            ("What is the next step?", nexts, ("state",)),
        )
        for question, chosen, places in steps:
            stated = [_words(" ".join(chosen), 0.5, where) for where in places]
            add(
                Probe(
                    kind="continuation",
                    question=question,
                    expected=" ".join(chosen),
                    message_index=index,
                    evidence=[e for e in stated if e is not None],
                )
            )

    # decision: what was chosen and why, newest first
    topic = frozenset(t for _, text in user for t in content_terms(text, limit=1000))
    for index, text in reversed(said):
        parts = sentences(text)
        for n in range(len(parts) - 1, -1, -1):
            found = _decision(parts[n], parts[n - 1] if n else "")
            if found is None:
                continue
            choice, why = found
            # Words the choice already says ("socket" in "keep the socket … since the
            # socket is …") prove the choice was kept, not its reason.
            said_in_choice = frozenset(content_terms(choice, limit=1000))
            reason = _words(why, 0.5, "prose", known=topic | said_in_choice)
            evidence = [e for e in (_words(choice, 0.4, "prose"), reason) if e]
            add(
                Probe(
                    kind="decision",
                    question=f"What was decided at message #{index + 1}, and why?",
                    expected=parts[n] if why in parts[n] else f"{parts[n]} ({why})",
                    message_index=index,
                    evidence=evidence if why else evidence[:1],
                )
            )

    # artifact: each file changed, by its last change, with what was said about it
    last_write: dict[str, _Event] = {}
    for e in events:
        if e.kind == "write":
            last_write.pop(e.text, None)
            last_write[e.text] = e
    for e in reversed(list(last_write.values())):
        how = _HOW.get(e.how, e.how)
        name = _file_name(e.text)
        about = next((t for i, t in reversed(said) if e.index - 2 <= i <= e.index), "")
        evidence = [Evidence(match="path", text=e.text, terms=[name])]
        what = _words(about, 0.4, "anywhere", near=name)
        if what is not None:
            evidence.append(what)
        add(
            Probe(
                kind="artifact",
                question=f"Which file was {how} at message #{e.index + 1}, and what was done?",
                expected=f"{e.text} ({how})" + (f": {shorten(about, 160)}" if about else ""),
                message_index=e.index,
                evidence=evidence,
            )
        )

    # recall: the values the user gave (names, numbers, paths), exactly
    for index, text in reversed(user):
        values = paths_in_text(text) + identifiers_in_text(text)
        values += [m.group(0) for m in _NUMBERISH.finditer(text)]
        for value in dict.fromkeys(v.strip(".,;:") for v in values):
            if len(value) >= 2:
                add(
                    Probe(
                        kind="recall",
                        question=f"What value did the user give in message #{index + 1}?",
                        expected=value,
                        message_index=index,
                        exact=True,
                        evidence=[Evidence(match="exact", text=value)],
                    )
                )
    return [p for kind in PROBE_KINDS for p in probes[kind]]


_NUMBERISH = re.compile(r"(?<![\w.])\d[\w.,:/-]*\d(?![\w])")
