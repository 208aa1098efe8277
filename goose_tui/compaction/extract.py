"""SPEC §6: find the summary JSON in a model reply, linear in the reply's length.
STUB (issue 2, part 4)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from goose_tui.compaction.structured import StructuredSummary

CandidateKind = Literal["json_fence", "tail_start", "text_start"]


class Candidate(BaseModel):
    """Where the chosen JSON object was found: ``start``/``end`` are offsets into the reply
    (end exclusive); ``cut`` is the offset just after the ``</analysis>`` it follows (0 for
    the start of text)."""

    kind: CandidateKind
    start: int
    end: int
    cut: int

    def describe(self) -> str:
        raise NotImplementedError


class Extraction(BaseModel):
    reply: str
    analysis: str | None = None
    structured: StructuredSummary | None = None  # normalized, usable; None on fallback
    candidate: Candidate | None = None
    fallback_reason: str | None = None  # set exactly when structured is None

    @property
    def fallback(self) -> bool:
        return self.structured is None


def extract_summary(reply: str) -> Extraction:
    raise NotImplementedError
