"""Probes with real models: one call writes probes from the full history, one call per probe
answers it from the summary alone, and one call per answer has a judge score it 0-1. The
judge sees the question, the expected answer, the answer and the summary: it scores meaning,
exact strings only for the probes the writer marked ``exact`` (a value the user gave, an
identifier), and no credit for an answer the summary does not back up. Writer, answerer and
judge can be three models. The prompts are templates (``probe_write.md``,
``probe_answer.md``, ``probe_judge.md``) found like the compaction ones.

Every call is cached on disk by the hash of everything that went into it (model, template,
history or summary, question, answer), so a rerun after a hand edit of the summary writes no
probes again (the history did not change) and asks and judges again only what the summary
is part of. Every call, cached or not, is reported with its tokens and cost.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from pydantic import BaseModel, ValidationError

from goose_tui.analysis.compare import cost_usd
from goose_tui.analysis.probes import (
    MAX_PER_KIND,
    PROBE_KINDS,
    Probe,
    ProbeCall,
    ProbeReport,
    ProbeResult,
    kind_scores,
)
from goose_tui.compaction.format import format_message_for_compacting
from goose_tui.compaction.templates import Template, load_template, render_template
from goose_tui.compaction.visibility import summarizer_messages
from goose_tui.dirs import own_dir
from goose_tui.files import atomic_write_text, read_regular
from goose_tui.llm.base import ChatMessage, Summarizer, TokenUsage
from goose_tui.llm.spec import ModelSpec
from goose_tui.session.models import Message
from goose_tui.terminal import shorten
from goose_tui.tokens import count_tokens

WRITE: Final = "probe_write.md"
ANSWER: Final = "probe_answer.md"
JUDGE: Final = "probe_judge.md"
CONCURRENCY = 4
_REQUESTS = {
    "write": "Write the probes for the session in the system prompt.",
    "answer": "Answer the question in the system prompt.",
    "judge": "Score the answer in the system prompt.",
}
_FENCED_JSON = re.compile(r"```(?:json)?\s*\n(.*?)```", re.S)


class ProbeError(Exception):
    """The probe writer's reply held no usable probes."""


class ProbeTemplates(BaseModel):
    write: Template
    answer: Template
    judge: Template


def load_probe_templates(prompts_dir: Path | None = None) -> ProbeTemplates:
    return ProbeTemplates(
        write=load_template(WRITE, prompts_dir)[0],
        answer=load_template(ANSWER, prompts_dir)[0],
        judge=load_template(JUDGE, prompts_dir)[0],
    )


# --- the cache ------------------------------------------------------------------------------


def default_cache_dir() -> Path:
    return own_dir("cache") / "probes"


class ProbeCache:
    """One small JSON file per call, named by the hash of its inputs, written atomically
    (two runs at once at worst both write the same content)."""

    def __init__(self, folder: Path | None = None):
        self.folder = Path(folder) if folder is not None else default_cache_dir()

    @staticmethod
    def key(*parts: str) -> str:
        digest = hashlib.sha256()
        for part in parts:
            digest.update(part.encode("utf-8", "surrogatepass"))
            digest.update(b"\x00")
        return digest.hexdigest()

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        try:
            value = json.loads(read_regular(self._path(key)).decode("utf-8"))
        except (OSError, ValueError):
            return None  # missing or damaged: ask again
        return value if isinstance(value, dict) else None

    def put(self, key: str, value: dict[str, Any]) -> None:
        try:
            atomic_write_text(self._path(key), json.dumps(value, ensure_ascii=False))
        except OSError:
            pass  # a read-only cache costs a rerun, never the result


# --- one call ---------------------------------------------------------------------------


async def _call(
    stage: str,
    model: Summarizer,
    template: Template,
    context: dict[str, Any],
    cache: ProbeCache | None,
    key_parts: Sequence[str],
) -> tuple[str, ProbeCall]:
    """The model's reply text and the call's record; from the cache when it has it."""
    key = ProbeCache.key(stage, model.name, template.text, *key_parts)
    cached = _cached_reply(cache.get(key)) if cache is not None else None
    if cached is not None:
        text, usage = cached
        return text, _record(stage, model.name, usage, cached=True)
    system = render_template(template, context)
    request = _REQUESTS[stage]
    completion = await model.complete(
        [ChatMessage(role="system", content=system), ChatMessage(role="user", content=request)]
    )
    usage = _filled(completion.usage, system + request, completion.text)
    if cache is not None:
        cache.put(key, {"text": completion.text, "usage": usage.model_dump()})
    return completion.text, _record(stage, model.name, usage, cached=False)


def _cached_reply(entry: dict[str, Any] | None) -> tuple[str, TokenUsage] | None:
    """A cache entry's reply and usage; None (ask again) for an entry of the wrong shape."""
    if entry is None or not isinstance(entry.get("text"), str):
        return None
    try:
        return entry["text"], TokenUsage.model_validate(entry.get("usage") or {})
    except ValidationError:
        return None


def _filled(reported: TokenUsage, sent: str, reply: str) -> TokenUsage:
    # As the compaction does (docs/pipeline.md §7): keep what the provider said, estimate the rest.
    inp = reported.input_tokens if reported.input_tokens is not None else count_tokens(sent)
    out = reported.output_tokens if reported.output_tokens is not None else count_tokens(reply)
    total = reported.total_tokens if reported.total_tokens is not None else inp + out
    return TokenUsage(input_tokens=inp, output_tokens=out, total_tokens=total)


def _record(stage: str, model: str, usage: TokenUsage, *, cached: bool) -> ProbeCall:
    return ProbeCall(
        stage=stage,
        model=model,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        total_tokens=usage.total_tokens,
        cost_usd=0.0 if cached else cost_usd(model, usage),
        cached=cached,
    )


# --- reading the replies -------------------------------------------------------------------


def _json_value(text: str, opener: str) -> Any:
    """The first JSON value starting with ``opener`` in a fenced block, else in the text."""
    decoder = json.JSONDecoder()
    for chunk in [*_FENCED_JSON.findall(text), text]:
        start = chunk.find(opener)
        while start != -1:
            try:
                return decoder.raw_decode(chunk[start:])[0]
            except ValueError:
                start = chunk.find(opener, start + 1)
    return None


def parse_probes(text: str, history_length: int) -> list[Probe]:
    """Probes from the writer's reply: a JSON array of objects (an object holding one array
    is accepted too). Items of an unknown kind, or without question and answer, are dropped;
    a message number outside the history becomes no source."""
    value = _json_value(text, "[")
    if value is None:
        obj = _json_value(text, "{")
        if isinstance(obj, dict):
            value = next((v for v in obj.values() if isinstance(v, list)), None)
    probes: list[Probe] = []
    counts = dict.fromkeys(PROBE_KINDS, 0)
    for item in value if isinstance(value, list) else []:
        if not isinstance(item, dict):
            continue
        kind = str(item.get("kind", "")).strip().lower()
        question = item.get("question")
        expected = item.get("expected")
        if kind not in counts or not isinstance(question, str) or expected is None:
            continue
        if counts[kind] >= MAX_PER_KIND or not question.strip():
            continue
        counts[kind] += 1
        number = item.get("message")
        index = None
        if (
            isinstance(number, int)
            and not isinstance(number, bool)
            and 1 <= number <= history_length
        ):
            index = number - 1
        probes.append(
            Probe(
                kind=kind,
                question=question.strip(),
                expected=expected if isinstance(expected, str) else json.dumps(expected),
                message_index=index,
                exact=item.get("exact") is True,
            )
        )
    return probes


def parse_judgement(text: str) -> tuple[float | None, str]:
    """(score clamped to 0..1, reason) from ``{"score": x, "reason": ...}``; (None, why) for
    any other reply: a number read out of prose ("1 of 2", "0.5 or 1") is no judgement."""
    obj = _json_value(text, "{")
    score = obj.get("score") if isinstance(obj, dict) else None
    if isinstance(score, (int, float)) and not isinstance(score, bool) and score == score:
        reason = str(obj.get("reason") or "").strip() if isinstance(obj, dict) else ""
        return max(0.0, min(1.0, float(score))), reason
    return None, "unscored: the judge's reply held no JSON score (" + shorten(text, 120) + ")"


# --- the run -----------------------------------------------------------------------------


def numbered_history(messages: Sequence[Message]) -> str:
    """The history as the probe writer sees it: each record numbered as goose-tui numbers
    messages (``#1`` first), so a probe can name its source."""
    return "\n".join(
        f"#{n} {format_message_for_compacting(m)}" for n, m in enumerate(messages, start=1)
    )


async def model_probe_report(
    messages: Sequence[Message],
    summary: str,
    writer: Summarizer,
    judge: Summarizer | None = None,
    templates: ProbeTemplates | None = None,
    cache: ProbeCache | None = None,
    concurrency: int = CONCURRENCY,
    *,
    answerer: Summarizer | None = None,
) -> ProbeReport:
    """Write probes for the agent-visible history with ``writer``, answer each from
    ``summary`` with ``answerer`` and score each answer with ``judge`` (both default to the
    writer)."""
    import asyncio  # here, not at the top: the core imports without it (docs/performance.md)

    templates = templates or load_probe_templates()
    answerer = answerer or writer
    judge = judge or writer
    history = summarizer_messages(messages)
    history_text = numbered_history(history)
    calls: list[ProbeCall] = []
    text, call = await _call(
        "write",
        writer,
        templates.write,
        {"messages": history_text, "per_kind": MAX_PER_KIND},
        cache,
        [history_text, str(MAX_PER_KIND)],
    )
    calls.append(call)
    probes = parse_probes(text, len(history))
    if not probes:
        raise ProbeError(f"{writer.name} wrote no usable probes (expected a JSON array)")
    # Sources are numbered in the agent-visible history; map them back to the session's.
    positions = [i for i, m in enumerate(messages) if m.metadata.agent_visible]
    probes = [
        p.model_copy(update={"message_index": positions[p.message_index]})
        if p.message_index is not None
        else p
        for p in probes
    ]
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(probe: Probe) -> tuple[ProbeResult, list[ProbeCall]]:
        async with gate:
            answer, asked = await _call(
                "answer",
                answerer,
                templates.answer,
                {"summary": summary, "question": probe.question},
                cache,
                [summary, probe.question],
            )
            answer = answer.strip()
            verdict, judged = await _call(
                "judge",
                judge,
                templates.judge,
                {
                    "question": probe.question,
                    "expected": probe.expected,
                    "answer": answer,
                    "summary": summary,
                    "exact": probe.exact,
                },
                cache,
                [probe.question, probe.expected, answer, summary, str(probe.exact)],
            )
        score, reason = parse_judgement(verdict)
        return ProbeResult(probe=probe, answer=answer, score=score, verdict=reason), [asked, judged]

    done = await asyncio.gather(*(one(p) for p in probes))
    results = [r for r, _ in done]
    for _, pair in done:
        calls += pair
    return ProbeReport(
        mode="model",
        writer=writer.name,
        answerer=answerer.name,
        judge=judge.name,
        results=results,
        kinds=kind_scores(results),
        calls=calls,
    )


def uses_a_model(spec: ModelSpec | None) -> bool:
    """A model that can answer questions: not ``offline`` and not a replayed reply."""
    return spec is not None and spec.is_litellm


async def run_probes(
    messages: Sequence[Message],
    summary: str,
    model: ModelSpec | None = None,
    judge: ModelSpec | None = None,
    *,
    answerer: ModelSpec | None = None,
    prompts_dir: Path | None = None,
    cache: ProbeCache | None = None,
    working_dir: str | None = None,
) -> ProbeReport:
    """Offline probes without a model that can answer (none, ``offline``, a replay); written
    by ``model``, answered by ``answerer`` and judged by ``judge`` otherwise (both default to
    ``model``)."""
    from goose_tui.analysis.probes import offline_report

    if not uses_a_model(model):
        if judge is not None or answerer is not None:
            raise ValueError("an answerer or a judge needs a real --model to write the probes")
        return offline_report(messages, summary, working_dir)
    for role, spec in (("answer questions", answerer), ("judge answers", judge)):
        if spec is not None and not uses_a_model(spec):
            raise ValueError(f"{spec} cannot {role}: give a real model")
    assert model is not None  # uses_a_model said so
    return await model_probe_report(
        messages,
        summary,
        model.summarizer(),
        judge.summarizer() if judge is not None else None,
        templates=load_probe_templates(prompts_dir),
        cache=cache,
        answerer=answerer.summarizer() if answerer is not None else None,
    )
