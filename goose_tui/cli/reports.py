"""What the sub-commands print with ``--json``: one pydantic model per command, dumped with
``model_dump(mode="json")``, its JSON Schema printed by ``goose-tui schema``.

The parts several outputs share are one model each: ``ExtractionReport`` (how the summary
was read from a reply: ``parse``, and the middle of ``compact``), ``AttemptReport`` (one rung
of the ladder), ``TokenUsage`` (usage), ``RetentionScores`` (``retention``, and each side
of ``compare``), ``ProbeScores`` (``probe``, and each side of ``compare``). A model that adds
fields ahead of a shared part lists the shared part first among its bases: pydantic orders
fields from the last base to the first, so the keys come out in the order they always had.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol, Self

from pydantic import BaseModel, Field, RootModel

from goose_tui.analysis.audit import AuditScore
from goose_tui.analysis.batch import BatchReport, TemplateBatches
from goose_tui.analysis.breakdown import ContextBreakdown
from goose_tui.analysis.compare import SideDiff, cost_usd, input_cost_usd
from goose_tui.analysis.probes import KIND_WEIGHTS, KindScore, ProbeCall, ProbeResult
from goose_tui.analysis.retention import Category, RetentionItem
from goose_tui.analysis.timeline import Timeline
from goose_tui.compaction.extract import Extraction
from goose_tui.compaction.summarize import Attempt, CompactionResult
from goose_tui.llm.base import ChatMessage, TokenUsage
from goose_tui.session.models import SessionInfo
from goose_tui.tokens import ContextUsage, LimitSource, RequestFit, ThresholdSource, UsedSource

STRUCTURED = (
    "the summary JSON as read: the nine Goose fields in order, then any extra keys the "
    "model wrote; null on the raw-text fallback"
)

# --- shared parts -------------------------------------------------------------------------


class ExtractionReport(BaseModel):
    """How the summary was read from the model's reply."""

    analysis: str | None = Field(description="the <analysis> block, discarded by Goose")
    structured: dict[str, Any] | None = Field(description=STRUCTURED)
    summary: str = Field(description="the rendered Markdown, or the raw reply on fallback")
    fallback: bool
    fallback_reason: str | None
    candidate: str | None = Field(description="where the summary JSON was found in the reply")

    @staticmethod
    def fields_of(extraction: Extraction, summary: str) -> dict[str, Any]:
        return {
            "analysis": extraction.analysis,
            "structured": extraction.structured.to_json_dict() if extraction.structured else None,
            "summary": summary,
            "fallback": extraction.fallback,
            "fallback_reason": extraction.fallback_reason,
            "candidate": extraction.candidate.describe() if extraction.candidate else None,
        }


class AttemptReport(Attempt):
    """One request of the compaction ladder (docs/pipeline.md §7), without its error
    (in the message)."""

    error: str | None = Field(default=None, exclude=True)
    tokens_sent: int | None = Field(
        description=(
            "the request's estimated tokens (docs/pipeline.md §7); "
            "null if they could not be counted"
        )
    )


class CategoryReport(BaseModel):
    category: Category
    found: int
    total: int
    score: float | None


class RetentionScores(BaseModel):
    """What a summary kept of the history: every item, and the scores by category."""

    overall: float | None
    found: int
    total: int
    categories: list[CategoryReport]
    items: list[RetentionItem]


class ProbeScores(BaseModel):
    """A probe run with its totals: score, cost, tokens, calls made and from the cache."""

    mode: Literal["offline", "model"]
    writer: str | None = Field(description="the model that wrote the probes")
    answerer: str | None = Field(description="the model that answered them from the summary")
    judge: str | None = Field(description="the model that scored each answer")
    results: list[ProbeResult]
    kinds: list[KindScore]
    calls: list[ProbeCall]
    overall: float | None = Field(
        description="can the agent act: the kinds' scores weighted ("
        + ", ".join(f"{kind} {weight}" for kind, weight in KIND_WEIGHTS.items())
        + "); null when no probe was scored"
    )
    cost_usd: float | None
    tokens: int = Field(description="tokens of the calls made (not those from the cache)")
    calls_made: int
    calls_cached: int


class Analysed(Protocol):
    """An analysis's result, whose JSON the command's output carries under its head."""

    def to_json_dict(self) -> dict[str, Any]: ...


class SummaryHead(BaseModel):
    session: str = Field(description="the session's title")
    summary_source: str = Field(description="summary FILE, or model NAME when compacted now")

    @classmethod
    def of(cls, session: str, source: str, result: Analysed) -> Self:
        return cls.model_validate(
            {"session": session, "summary_source": source, **result.to_json_dict()}
        )


class SessionHead(BaseModel):
    session: str = Field(description="the session's title")

    @classmethod
    def of(cls, session: str, result: Analysed) -> Self:
        return cls.model_validate({"session": session, **result.to_json_dict()})


# --- one model per command ----------------------------------------------------------------


class ParseOutput(ExtractionReport):
    """``goose-tui parse --json``."""

    @classmethod
    def of(cls, extraction: Extraction, summary: str) -> ParseOutput:
        return cls(**cls.fields_of(extraction, summary))


class CompactRequestReport(BaseModel):
    model: str
    goose_profile: str
    focus: str | None
    system_prompt: str
    request: list[ChatMessage] = Field(description="the messages sent: [system, user]")
    raw_response: str


class CompactOutput(ExtractionReport, CompactRequestReport):
    """``goose-tui compact --json``: every step of one compaction."""

    attempts: list[AttemptReport]
    estimated_input_tokens: int | None = Field(
        description="the first request's estimated tokens, as known before the call "
        "(docs/pipeline.md §7); null if they could not be counted"
    )
    estimated_input_cost_usd: float | None = Field(
        description="estimated_input_tokens at the model's input price in litellm's price "
        "map: what the call was expected to cost before the reply; null for offline, replay "
        "and unpriced models"
    )
    cost_usd: float | None = Field(
        description="the usage at litellm's prices (input and output); null as above"
    )
    usage: TokenUsage = Field(
        description="as reported, missing counts estimated (docs/pipeline.md §7)"
    )
    reported_usage: TokenUsage = Field(description="exactly what the provider reported")
    request_fit: RequestFit | None = Field(
        description="whether the first request fitted the model's own window (null for a "
        "model without one)"
    )

    @classmethod
    def of(
        cls, result: CompactionResult, goose_profile: str, fit: RequestFit | None = None
    ) -> CompactOutput:
        # The prompt joined once, and that one string in both fields (the request's system
        # message holds its pieces: dumped as they are, it would be joined a second time).
        prompt = result.request.system_prompt
        estimated = result.first_request_tokens
        request = [
            m.model_copy(update={"content": prompt}) if m.content is result.request.prompt else m
            for m in result.request.messages
        ]
        return cls(
            model=result.model,
            goose_profile=goose_profile,
            focus=result.focus,
            system_prompt=prompt,
            request=request,
            raw_response=result.raw_response,
            **cls.fields_of(result.extraction, result.summary),
            attempts=[AttemptReport(**dict(a)) for a in result.attempts],
            estimated_input_tokens=estimated,
            estimated_input_cost_usd=input_cost_usd(result.model, estimated),
            cost_usd=cost_usd(result.model, result.usage),
            usage=result.usage,
            reported_usage=result.reported_usage,
            request_fit=fit,
        )


class UsageOutput(BaseModel):
    """``goose-tui usage --json``: the context used against the window and the threshold."""

    used: int
    used_source: UsedSource
    limit: int
    limit_source: LimitSource
    fraction: float
    threshold: float
    threshold_source: ThresholdSource
    auto_compact_enabled: bool
    compaction_due: bool
    model: str | None = Field(description="the session's, whose window decides compaction")
    messages: int
    breakdown: ContextBreakdown
    request_fit: RequestFit | None = Field(
        description="with --model: whether the compaction request fits that model's window"
    )

    @classmethod
    def of(
        cls,
        usage: ContextUsage,
        messages: int,
        breakdown: ContextBreakdown,
        threshold_source: ThresholdSource,
        fit: RequestFit | None = None,
    ) -> UsageOutput:
        return cls(
            **dict(usage),
            fraction=usage.fraction,
            auto_compact_enabled=usage.auto_compact_enabled,
            compaction_due=usage.compaction_due,
            threshold_source=threshold_source,
            messages=messages,
            breakdown=breakdown,
            request_fit=fit,
        )


class SessionsOutput(RootModel[list[SessionInfo]]):
    """``goose-tui sessions --json``: one object per session."""


class RetentionOutput(RetentionScores, SummaryHead):
    """``goose-tui retention --json``."""


class ProbeOutput(ProbeScores, SummaryHead):
    """``goose-tui probe --json``."""


class SideOutput(BaseModel):
    label: str
    model: str | None
    tokens: int
    fallback: bool
    usage: TokenUsage | None
    cost_usd: float | None
    retention: RetentionScores | None
    probes: ProbeScores | None


class ComparedSides(BaseModel):
    """Each side (A, B, ...), and each later side against A."""

    sides: list[SideOutput]
    diffs: list[SideDiff] = Field(description="diffs[i]: sides[i + 1] against sides[0]")


class CompareOutput(ComparedSides, SessionHead):
    """``goose-tui compare --json``: each side (A, B, ...), and each later side against A."""


class TimelineOutput(Timeline, SessionHead):
    """``goose-tui timeline --json``."""


class AuditEntry(BaseModel):
    """One compaction Goose made, scored against the history it summarized."""

    number: int = Field(description="1-based, in the session's order (audit --at N)")
    summary_message: int = Field(description="the summary message's number in the session")
    history_messages: list[int] = Field(
        description="first and last message number of the history Goose summarized"
    )
    summary_chars: int
    retention: RetentionScores
    probes: ProbeScores
    recompacted: ComparedSides | None = Field(
        description="with --model: the same history compacted again with that model, "
        "compared with Goose's summary (sides[0] Goose's, sides[1] the model's); null "
        "without --model"
    )


class AuditOutput(SessionHead):
    """``goose-tui audit --json``: every past compaction of the session, with its scores."""

    compactions: list[AuditEntry]

    @classmethod
    def from_scores(cls, session: str, scores: list[AuditScore]) -> AuditOutput:
        return cls.model_validate(
            {"session": session, "compactions": [s.to_json_dict() for s in scores]}
        )


class BatchOutput(RootModel[BatchReport | TemplateBatches]):
    """``goose-tui batch --json``: one report, or with several --prompts-dir one per folder."""


# ``goose-tui schema NAME``: the command whose --json output each model describes.
OUTPUTS: dict[str, type[BaseModel]] = {
    "parse": ParseOutput,
    "compact": CompactOutput,
    "usage": UsageOutput,
    "sessions": SessionsOutput,
    "retention": RetentionOutput,
    "probe": ProbeOutput,
    "compare": CompareOutput,
    "timeline": TimelineOutput,
    "audit": AuditOutput,
    "batch": BatchOutput,
}
