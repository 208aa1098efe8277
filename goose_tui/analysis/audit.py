"""Goose's own past compactions, scored: for each summary Goose wrote into a session, the
history it summarized then and the summary itself, so retention, probes and compare judge
what Goose actually wrote.

After a compaction Goose keeps the old messages with ``agentVisible: false``, then its
summary (a user message only the agent sees), then its continuation note (``compact_messages``
in crates/goose/src/context_mgmt/mod.rs). The history Goose summarized at summary ``i`` is
the context the agent had just before ``i``: the previous summary and its note (if any) and
every message between them and ``i``. Those were agent-visible when Goose read them; the
compaction hid them, so they are given back their agent visibility here (user visibility
unchanged), as the summarizer saw them. Messages hidden from the agent for another reason
(a notification only the user sees) cannot be told apart afterwards and are counted in, as
the timeline counts them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from goose_tui.analysis.compare import Comparison
from goose_tui.analysis.probes import ProbeReport, offline_report
from goose_tui.analysis.retention import RetentionReport, retention_report
from goose_tui.analysis.timeline import is_summary_message, message_texts
from goose_tui.session.models import Message, Session


class PastCompaction(BaseModel):
    number: int  # 1-based, in the session's order
    summary_index: int  # the summary message's index in the session
    history: list[Message]  # what Goose summarized, agent-visible again
    summary: str  # Goose's summary text

    @property
    def history_range(self) -> tuple[int, int]:
        """The session's message indices (first, last) the history spans."""
        return self.summary_index - len(self.history), self.summary_index - 1


class AuditScore(BaseModel):
    compaction: PastCompaction
    retention: RetentionReport
    probes: ProbeReport
    # The same history compacted again with the user's model, compared with Goose's summary
    # (side A); None unless asked for, as it costs a model call per compaction.
    recompacted: Comparison | None = None

    def to_json_dict(self) -> dict[str, Any]:
        first, last = self.compaction.history_range
        return {
            "number": self.compaction.number,
            "summary_message": self.compaction.summary_index + 1,
            "history_messages": [first + 1, last + 1] if self.compaction.history else [],
            "summary_chars": len(self.compaction.summary),
            "retention": self.retention.to_json_dict(),
            "probes": self.probes.to_json_dict(),
            "recompacted": None if self.recompacted is None else self.recompacted.to_json_dict(),
        }


def _as_summarized(message: Message) -> Message:
    metadata = message.metadata.model_copy(update={"agent_visible": True})
    return message.model_copy(update={"metadata": metadata})


def past_compactions(messages: Sequence[Message]) -> list[PastCompaction]:
    """Every summary Goose wrote into ``messages``, with the history it summarized."""
    summaries = [i for i, m in enumerate(messages) if is_summary_message(m)]
    found = []
    start = 0
    for number, index in enumerate(summaries, start=1):
        history = [_as_summarized(m) for m in messages[start:index]]
        found.append(
            PastCompaction(
                number=number,
                summary_index=index,
                history=history,
                summary="\n".join(message_texts(messages[index])),
            )
        )
        start = index
    return found


def compaction_at(messages: Sequence[Message], number: int) -> PastCompaction:
    """Past compaction ``number`` (1-based); ``LookupError`` names how many there are."""
    found = past_compactions(messages)
    if not 1 <= number <= len(found):
        have = f"{len(found)} past compaction(s)" if found else "no past compaction"
        raise LookupError(f"no compaction {number}: the session has {have}")
    return found[number - 1]


def audit_session(session: Session) -> list[AuditScore]:
    """Every past compaction of ``session`` with its retention and offline probe scores."""
    return [
        score_compaction(compaction, session.working_dir)
        for compaction in past_compactions(session.messages)
    ]


def score_compaction(compaction: PastCompaction, working_dir: str | None = None) -> AuditScore:
    return AuditScore(
        compaction=compaction,
        retention=retention_report(compaction.summary, compaction.history),
        probes=offline_report(compaction.history, compaction.summary, working_dir),
    )


def history_session(session: Session, compaction: PastCompaction) -> Session:
    """The session as it stood when Goose compacted: the history it summarized, to load in
    the inspector with Goose's summary as the current one."""
    return session.model_copy(update={"messages": list(compaction.history), "warnings": []})
