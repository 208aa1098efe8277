"""Compact many sessions with one model and one pair of templates, and report on all of them:
for checking a prompt change across a corpus before shipping it. With several template
folders, the same sessions are compacted with each, one report per folder, to choose one.

One failing session (a broken file, a model error, a ladder that gives up) is recorded in its
row and the batch goes on.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from goose_tui.analysis.failures import failure_text
from goose_tui.analysis.probes import (
    SCORE_NAME,
    KindScore,
    found_by_kind,
    offline_report,
)
from goose_tui.analysis.retention import EVIDENCE_NAME, format_score, retention_report
from goose_tui.compaction.reply_check import require_usable
from goose_tui.compaction.summarize import summarize
from goose_tui.compaction.templates import Templates, load_templates
from goose_tui.files import open_regular
from goose_tui.llm.base import Summarizer
from goose_tui.session.loader import detect_format, list_sessions, load_session
from goose_tui.session.models import LoadWarning, warning_count
from goose_tui.tokens import TokenCounter, not_smaller

SESSION_SUFFIXES = (".jsonl", ".json")
DB_SUFFIXES = (".db", ".sqlite", ".sqlite3")
DEFAULT_CONCURRENCY = 4


class BatchJob(BaseModel):
    """One session to compact: a file, or one session of a database."""

    path: Path
    session_id: str | None = None

    @property
    def source(self) -> str:
        return f"{self.path}#{self.session_id}" if self.session_id else str(self.path)


class BatchEntry(BaseModel):
    source: str
    session_id: str | None = None
    title: str | None = None
    messages: int | None = None
    tokens_before: int | None = None
    summary_tokens: int | None = None
    # The summary is not smaller than the history it replaces: compacting did not help.
    not_smaller: bool | None = None
    fallback: bool | None = None
    retention: float | None = None  # evidence found: the overall retention score
    missing: int | None = None  # retention items not found
    probes: float | None = None  # can the agent act: the overall offline probe score
    # Each probe kind: its score, and how many probes were found, partial and missing.
    probe_kinds: list[KindScore] | None = None
    attempts: int = 0
    seconds: float = 0.0
    error: str | None = None
    # What loading the session reported (a line skipped, a value kept as it could be).
    warnings: list[LoadWarning] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error is None


class BatchTotals(BaseModel):
    sessions: int
    succeeded: int
    failed: int
    fallbacks: int
    not_smaller: int = 0  # summaries at least as big as what they replace
    tokens_before: int
    summary_tokens: int
    mean_retention: float | None
    mean_probes: float | None = None


class BatchReport(BaseModel):
    model: str
    prompts_dir: str | None = None
    entries: list[BatchEntry] = Field(default_factory=list)
    totals: BatchTotals
    # Sub-folders of a folder given: batch reads the folder itself, as Goose keeps its
    # sessions in one, and names what it did not read.
    skipped: list[str] = Field(default_factory=list)

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


class TemplateBatches(BaseModel):
    """The same sessions compacted with each of several template folders, one report each
    (in the order given; None: the templates in use without an override folder)."""

    model: str
    reports: list[BatchReport]

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def _is_sqlite(path: Path) -> bool:
    try:
        return detect_format(path) == "sqlite"
    except Exception:  # noqa: BLE001 - an unreadable file becomes its own failing job
        return False


def _targets(target: Path | Sequence[Path]) -> list[Path]:
    """What ``collect_jobs`` and the ``skipped_*`` functions are given, as a list of paths."""
    return [Path(target)] if isinstance(target, (str, Path)) else [Path(t) for t in target]


def _session_files(folder: Path) -> list[Path]:
    """The files of a folder given that may hold sessions, by their names."""
    suffixes = SESSION_SUFFIXES + DB_SUFFIXES
    return [e for e in sorted(folder.iterdir()) if e.is_file() and e.suffix.lower() in suffixes]


def collect_jobs(target: Path | Sequence[Path], *, all_sessions: bool = False) -> list[BatchJob]:
    """A folder: every session file in it and every session of any database in it (not
    recursive, like Goose's own sessions folder; not a batch report written there); a
    database: every session in it (those `goose session list` shows, or all with
    ``all_sessions``); a file: itself. A database that cannot be listed becomes one job, so
    its error is reported."""
    jobs: list[BatchJob] = []
    for path in _targets(target):
        if path.is_dir():
            for entry in _session_files(path):
                if not is_batch_report(entry):
                    jobs.extend(_file_jobs(entry, all_sessions))
        else:
            jobs.extend(_file_jobs(path, all_sessions))
    return jobs


def skipped_folders(target: Path | Sequence[Path]) -> list[Path]:
    """The sub-folders ``collect_jobs`` does not read."""
    return [
        entry
        for path in _targets(target)
        if path.is_dir()
        for entry in sorted(path.iterdir())
        if entry.is_dir()
    ]


def skipped_reports(target: Path | Sequence[Path]) -> list[Path]:
    """The batch reports in a folder given, which ``collect_jobs`` does not read."""
    return [
        entry
        for path in _targets(target)
        if path.is_dir()
        for entry in _session_files(path)
        if is_batch_report(entry)
    ]


# How a report written by ``batch -o`` opens (``BatchReport`` dumped: ``model`` comes first).
# Only a file that opens so is read further, and only one that reads as a whole report is one.
_REPORT_OPENING = re.compile(rb'\s*\{\s*"model"\s*:')


def is_batch_report(path: Path) -> bool:
    """Whether ``path`` is a report an earlier ``batch -o`` wrote (into the folder it read,
    say): a batch's own output is never one of its inputs, and no session fails on it."""
    try:
        with open_regular(path) as handle:
            opening = handle.read(64)
            if not _REPORT_OPENING.match(opening):
                return False
            text = opening + handle.read()
        try:
            BatchReport.model_validate_json(text)
        except ValueError:
            TemplateBatches.model_validate_json(text)
    except (OSError, ValueError):  # pydantic's ValidationError is a ValueError
        return False
    return True


def _file_jobs(path: Path, all_sessions: bool) -> list[BatchJob]:
    if path.suffix.lower() in DB_SUFFIXES or _is_sqlite(path):
        try:
            infos = list_sessions(path, all_sessions=all_sessions)
            return [BatchJob(path=path, session_id=info.id) for info in infos]
        except Exception:  # noqa: BLE001 - reported when the job runs
            return [BatchJob(path=path)]
    return [BatchJob(path=path)]


async def compact_one(
    job: BatchJob, summarizer: Summarizer, templates: Templates, counter: TokenCounter
) -> BatchEntry:
    entry = BatchEntry(source=job.source, session_id=job.session_id)
    started = time.monotonic()
    try:
        # Loading is blocking file I/O; a big session must not stall the other jobs.
        session = await asyncio.to_thread(load_session, job.path, job.session_id)
        entry.session_id = session.id or job.session_id
        entry.title = session.title
        entry.warnings = list(session.warnings)
        entry.messages = len(session.messages)
        entry.tokens_before = counter.total(session.messages)
        result = await summarize(session.messages, summarizer, templates)
        entry.attempts = len(result.attempts)
        require_usable(result)
        # As the history is counted, and as the app projects it: the message that replaces it.
        entry.summary_tokens = counter.total([result.summary_message])
        entry.not_smaller = not_smaller(entry.tokens_before, entry.summary_tokens)
        entry.fallback = result.extraction.fallback
        report = retention_report(result.summary, session.messages)
        entry.retention = report.overall
        entry.missing = report.total - report.found
        probes = offline_report(session.messages, result.summary, session.working_dir)
        entry.probes = probes.overall
        entry.probe_kinds = probes.kinds
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # noqa: BLE001 - one session's failure never stops the batch
        entry.error = failure_text(exc)
        entry.attempts = len(getattr(exc, "attempts", []) or []) or entry.attempts
    entry.seconds = round(time.monotonic() - started, 3)
    return entry


def totals(entries: Sequence[BatchEntry]) -> BatchTotals:
    ok = [e for e in entries if e.ok]
    scores = [e.retention for e in ok if e.retention is not None]
    probe_scores = [e.probes for e in ok if e.probes is not None]
    return BatchTotals(
        sessions=len(entries),
        succeeded=len(ok),
        failed=len(entries) - len(ok),
        fallbacks=sum(1 for e in ok if e.fallback),
        not_smaller=sum(1 for e in ok if e.not_smaller),
        tokens_before=sum(e.tokens_before or 0 for e in ok),
        summary_tokens=sum(e.summary_tokens or 0 for e in ok),
        mean_retention=sum(scores) / len(scores) if scores else None,
        mean_probes=sum(probe_scores) / len(probe_scores) if probe_scores else None,
    )


async def run_batch(
    paths_or_db: Path | Sequence[Path],
    summarizer: Summarizer,
    concurrency: int = DEFAULT_CONCURRENCY,
    prompts_dir: Path | None = None,
    *,
    all_sessions: bool = False,
    on_entry: Callable[[BatchEntry], None] | None = None,
) -> BatchReport:
    """Compact every session under ``paths_or_db`` with ``summarizer`` (the report names it
    by its ``name``), at most ``concurrency`` at a time. Rows come back in input order;
    ``on_entry`` hears of each as it finishes (for a progress bar). Raises only for a problem
    that would fail every session: bad templates. ``all_sessions``: a database's every
    session, not only those `goose session list` shows."""
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    templates = load_templates(prompts_dir)
    jobs = collect_jobs(paths_or_db, all_sessions=all_sessions)
    gate = asyncio.Semaphore(concurrency)
    counter = TokenCounter()

    async def run(job: BatchJob) -> BatchEntry:
        async with gate:
            entry = await compact_one(job, summarizer, templates, counter)
        if on_entry is not None:
            on_entry(entry)
        return entry

    entries = list(await asyncio.gather(*(run(job) for job in jobs)))
    return BatchReport(
        model=summarizer.name,
        prompts_dir=str(prompts_dir) if prompts_dir else None,
        entries=entries,
        totals=totals(entries),
        skipped=[str(path) for path in skipped_folders(paths_or_db)],
    )


async def run_template_batches(
    paths_or_db: Path | Sequence[Path],
    summarizer: Summarizer,
    prompts_dirs: Sequence[Path | None],
    concurrency: int = DEFAULT_CONCURRENCY,
    *,
    all_sessions: bool = False,
    on_entry: Callable[[Path | None, BatchEntry], None] | None = None,
) -> TemplateBatches:
    """``run_batch`` once per template folder, one after the other (each with its
    ``concurrency``); ``on_entry`` hears of each row with its folder."""
    reports = []
    for folder in prompts_dirs:
        heard = None if on_entry is None else (lambda e, f=folder: on_entry(f, e))
        reports.append(
            await run_batch(
                paths_or_db,
                summarizer,
                concurrency,
                folder,
                all_sessions=all_sessions,
                on_entry=heard,
            )
        )
    return TemplateBatches(model=summarizer.name, reports=reports)


def templates_label(report: BatchReport) -> str:
    return report.prompts_dir or "(no --prompts-dir)"


def template_rows(batches: TemplateBatches) -> list[list[str]]:
    """One row per template folder: what choosing it would give across the sessions."""
    rows = [["TEMPLATES", "COMPACTED", "FAILED", "FALLBACKS", "SUMMARY", "RETENTION", "PROBES"]]
    for report in batches.reports:
        t = report.totals
        rows.append(
            [
                templates_label(report),
                str(t.succeeded),
                str(t.failed),
                str(t.fallbacks),
                f"{t.summary_tokens:,}",
                format_score(t.mean_retention),
                format_score(t.mean_probes),
            ]
        )
    return rows


def not_smaller_note(count: int) -> str:
    if count == 1:
        return "1 summary is not smaller than the history it replaces"
    return f"{count} summaries are not smaller than the histories they replace"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def to_markdown(report: BatchReport, title: str | None = None) -> str:
    lines = [
        title or f"# Batch compaction: {report.model}",
        "",
        "| session | messages | tokens before | summary tokens | fallback "
        f"| {EVIDENCE_NAME} (retention) | {SCORE_NAME} (probes) | probes found per kind "
        "| attempts | warnings | error |",
        "|---|---:|---:|---:|---|---:|---:|---|---:|---:|---|",
        # A summary not smaller than its history is marked "(not smaller)" in its row.
    ]
    for e in report.entries:
        fallback = "-" if e.fallback is None else ("yes" if e.fallback else "no")
        score = format_score(e.retention) if e.ok else "-"
        probes = format_score(e.probes) if e.ok else "-"
        kinds = found_by_kind(e.probe_kinds) if e.ok and e.probe_kinds else "-"
        lines.append(
            f"| {_cell(e.source)} | {_num(e.messages)} | {_num(e.tokens_before)} "
            f"| {_num(e.summary_tokens)}{' (not smaller)' if e.not_smaller else ''} "
            f"| {fallback} | {score} | {probes} | {kinds}"
            f" | {e.attempts} | {warning_count(e.warnings)} | {_cell(e.error or '')} |"
        )
    t = report.totals
    lines += [
        "",
        f"{t.sessions} sessions: {t.succeeded} compacted, {t.failed} failed, "
        f"{t.fallbacks} raw-text fallbacks; {t.tokens_before:,} tokens → "
        f"{t.summary_tokens:,} summary tokens; mean {EVIDENCE_NAME} (retention) "
        f"{format_score(t.mean_retention)}; mean {SCORE_NAME} (probes) "
        f"{format_score(t.mean_probes)}.",
    ]
    if t.not_smaller:
        lines.append(
            f"{not_smaller_note(t.not_smaller)} (marked): compacting them frees no context."
        )
    for folder in report.skipped:
        lines.append(f"Skipped the sub-folder {_cell(folder)} (not read: pass it to include it).")
    return "\n".join(lines) + "\n"


def templates_markdown(batches: TemplateBatches) -> str:
    """The template folders side by side, then each one's table."""
    rows = template_rows(batches)
    lines = [
        f"# Batch compaction: {batches.model}, {len(batches.reports)} template folders",
        "",
        "| " + " | ".join(cell.lower() for cell in rows[0]) + " |",
        "|---|" + "---:|" * (len(rows[0]) - 1),
    ]
    lines += ["| " + " | ".join(_cell(cell) for cell in row) + " |" for row in rows[1:]]
    for report in batches.reports:
        lines += ["", to_markdown(report, f"## Templates: {_cell(templates_label(report))}")]
    return "\n".join(lines).rstrip("\n") + "\n"


def _num(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"
