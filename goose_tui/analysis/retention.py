"""What a summary lost: concrete items pulled from the history it replaces, each looked up in
the summary text.

An item is *found* when it appears in the summary exactly, or after normalizing both sides
(case-folded, quotes and punctuation dropped, whitespace collapsed, matched on word
boundaries). Nothing fuzzier: a status must be explainable by pointing at the text.

"Exactly" means in the form the summarizer was given the text: both sides go through the
pipeline's own ``normalize_text`` (NFC, tag characters removed) first, so a file name macOS
wrote decomposed is found where the summary quotes it composed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from goose_tui.compaction.format import normalize_text
from goose_tui.session.content import tool_result_contents
from goose_tui.session.models import ContentItem, Message, content_type

# What the retention score measures, as every view names it: the history's strings found in
# the summary, evidence that it kept them, not that the agent can act on them.
EVIDENCE_NAME = "evidence found"
Category = Literal["user_messages", "files", "errors", "commands", "identifiers"]
Status = Literal["exact", "normalized", "missing"]
CATEGORIES: tuple[Category, ...] = ("user_messages", "files", "errors", "commands", "identifiers")
CATEGORY_LABELS: dict[Category, str] = {
    "user_messages": "user messages",
    "files": "file paths",
    "errors": "error lines",
    "commands": "commands run",
    "identifiers": "URLs and identifiers",
}


class RetentionItem(BaseModel):
    category: Category
    text: str
    message_index: int  # index into the history that was summarized, for linking back
    status: Status = "missing"
    # For a missing item: the share of its distinct words that the summary does contain, so a
    # reader can tell "paraphrased" from "gone". Informational only; it never changes status.
    word_overlap: float | None = None

    @property
    def found(self) -> bool:
        return self.status != "missing"


class CategoryScore(BaseModel):
    category: Category
    found: int
    total: int

    @property
    def score(self) -> float | None:
        return self.found / self.total if self.total else None


class RetentionReport(BaseModel):
    items: list[RetentionItem] = Field(default_factory=list)
    categories: list[CategoryScore] = Field(default_factory=list)
    found: int = 0
    total: int = 0

    @property
    def overall(self) -> float | None:
        return self.found / self.total if self.total else None

    def missing(self, category: Category | None = None) -> list[RetentionItem]:
        return [
            i for i in self.items if not i.found and (category is None or i.category == category)
        ]

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "overall": self.overall,
            "found": self.found,
            "total": self.total,
            "categories": [
                {"category": c.category, "found": c.found, "total": c.total, "score": c.score}
                for c in self.categories
            ],
            "items": [i.model_dump() for i in self.items],
        }


# --- extraction ---------------------------------------------------------------------------

# Argument names tools use for a file: Goose's developer tools use `path`; others vary.
_PATH_KEYS = frozenset({"file", "filename", "files", "target_file", "source", "destination"})
_COMMAND_KEYS = ("command", "cmd")

_URL = re.compile(r"\bhttps?://[^\s<>()\[\]{}\"'`]+")
_FENCED = re.compile(r"```.*?(?:```|\Z)", re.S)
_BACKTICKED = re.compile(r"`([^`\n]+)`")
_EXTENSIONS = (
    "py|pyi|rs|go|js|jsx|ts|tsx|mjs|cjs|java|kt|c|h|cc|cpp|hpp|cs|rb|php|swift|scala|sh|bash|"
    "zsh|ps1|sql|md|rst|txt|json|jsonl|toml|yaml|yml|ini|cfg|conf|env|lock|xml|html|css|scss|"
    "vue|svelte|ipynb|csv|tsv|log|db|sqlite|proto|graphql|tf|dockerfile|mk|gradle"
)
_BARE_FILE = re.compile(rf"^[\w-]+(?:\.[\w-]+)*\.(?:{_EXTENSIONS})$", re.I)
_TOKEN_SPLIT = re.compile(r"[\s,;()\[\]{}<>\"'`|=]+")
_TOKEN = re.compile(r"[^\s,;()\[\]{}<>\"'`|=]+")
_LINE_SUFFIX = re.compile(r"(?::\d+){1,2}$")  # src/main.rs:2:5
_ROOTED = ("/", "~/", "./", "../")
_SNAKE = re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b")
_CAMEL = re.compile(r"\b(?:[A-Z][a-z0-9]+){2,}\b|\b[a-z]+(?:[A-Z][a-z0-9]*)+\b")
_DOTTED = re.compile(r"\b[A-Za-z_]\w+(?:\.[A-Za-z_]\w+)+\b")
_CALL = re.compile(r"\b[A-Za-z_]\w*\([^()\n]{0,40}\)")

# Lines that name a failure precisely. A traceback's header says nothing; the exception line
# under it and pytest's FAILED lines do.
_ERROR_LINE = re.compile(
    r"^(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Failure)\b(?::|$)"
    r"|^(?:FAILED|ERROR)\b"
    r"|\b(?i:error)(?:\[\w+\])?:"
    r"|\b(?i:fatal):"
    r"|\bpanicked at\b"
    r"|^npm ERR!"
)
_TRACEBACK_HEADER = re.compile(r"^Traceback \(most recent call last\):?$")
_PYTEST_E_PREFIX = re.compile(r"^E\s{2,}")
_MAX_LINE = 400


def _strip_url(url: str) -> str:
    return url.rstrip(".,;:!?")


def _user_texts(message: Message) -> Iterator[str]:
    # Only what the user saw and typed: summary and continuation messages are agent-only.
    if message.role != "user" or not message.metadata.user_visible:
        return
    for item in message.content:
        if content_type(item) == "text" and isinstance(item.get("text"), str):
            text = item["text"].strip()
            if text:
                yield text


def _tool_call(item: ContentItem) -> tuple[str, dict[str, Any]] | None:
    call = item.get("toolCall")
    if not isinstance(call, dict) or call.get("status", "success") != "success":
        return None
    value = call.get("value")
    if not isinstance(value, dict):
        return None
    args = value.get("arguments")
    return str(value.get("name") or ""), args if isinstance(args, dict) else {}


def _path_values(arguments: dict[str, Any]) -> Iterator[str]:
    for key, value in arguments.items():
        if "path" not in key.lower() and key.lower() not in _PATH_KEYS:
            continue
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, str) and v.strip() and "\n" not in v:
                yield v.strip()


def _path_token(token: str) -> str | None:
    """The path in one whitespace-separated token, or None. A slash alone is not enough
    ("and/or"): the token must be rooted (/, ~/, ./, ../), have two slashes, or end in a file
    name with a known extension; a bare name needs a known extension ("e.g." and "v1.2" fail)."""
    token = _LINE_SUFFIX.sub("", token.rstrip(".:!?").lstrip(":"))
    if not re.search(r"\w", token) or "://" in token:
        return None
    if "/" not in token:
        return token if _BARE_FILE.match(token) else None
    last = token.rstrip("/").rsplit("/", 1)[-1]
    if token.startswith("/") and token.rstrip("/").count("/") == 1 and not _BARE_FILE.match(last):
        # "/int" of sed's s/int(…)/…/, "/Decimal": one name under the root, no extension,
        # is a piece of an expression far more often than a file.
        return None
    if token.startswith(_ROOTED) or token.count("/") >= 2 or _BARE_FILE.match(last):
        return token
    return None


def _commands(arguments: dict[str, Any]) -> Iterator[str]:
    """Shell commands of a tool call. An editor's sub-command (one word next to a path, as in
    Goose's text editor: {"command": "view", "path": ...}) is not a command that was run."""
    has_path = any(True for _ in _path_values(arguments))
    for key in _COMMAND_KEYS:
        value = arguments.get(key)
        if isinstance(value, str) and value.strip():
            if has_path and len(value.split()) == 1:
                continue
            yield value


def paths_in_text(text: str) -> list[str]:
    found = (_path_token(t) for t in _TOKEN_SPLIT.split(_URL.sub(" ", text)))
    return [p for p in found if p]


def identifiers_in_text(text: str) -> list[str]:
    """URLs, `backticked` spans, and snake_case / CamelCase / dotted / call-looking names."""
    found = [_strip_url(m.group(0)) for m in _URL.finditer(text)]
    rest = _URL.sub(" ", _FENCED.sub(" ", text))
    found += [m.group(1).strip() for m in _BACKTICKED.finditer(rest)]
    rest = _BACKTICKED.sub(" ", rest)
    # Paths are their own category; their pieces (greeting.txt of /tmp/greeting.txt) are not
    # identifiers.
    rest = _TOKEN.sub(lambda m: " " if _path_token(m.group(0)) else m.group(0), rest)
    for pattern in (_CALL, _DOTTED, _SNAKE, _CAMEL):
        found += [m.group(0) for m in pattern.finditer(rest)]
    return [f for f in found if f]


def _error_result_texts(item: ContentItem) -> tuple[bool, list[str]]:
    """(is the response a failure, its text parts)."""
    result = item.get("toolResult")
    if not isinstance(result, dict):
        return False, []
    if result.get("status") == "error":
        error = result.get("error")
        return True, [error if isinstance(error, str) else str(error)]
    value = result.get("value")
    is_error = isinstance(value, dict) and value.get("isError") is True
    texts = [
        part["text"]
        for part in tool_result_contents(value)
        if content_type(part) == "text" and isinstance(part.get("text"), str)
    ]
    return is_error, texts


def error_lines(text: str, *, failed: bool) -> list[str]:
    """The specific failure lines of a tool output; for a failed call without one, its last
    non-blank line (where shells and interpreters put the reason)."""
    lines = []
    nonblank = []
    for raw in text.splitlines():
        line = _PYTEST_E_PREFIX.sub("", raw.strip())
        if not line:
            continue
        nonblank.append(line)
        if _TRACEBACK_HEADER.match(line):
            continue
        if _ERROR_LINE.search(line):
            lines.append(line[:_MAX_LINE])
    if not lines and failed and nonblank:
        lines.append(nonblank[-1][:_MAX_LINE])
    return lines


def extract_items(messages: Sequence[Message]) -> list[RetentionItem]:
    """Every checkable item of the history, first occurrence only, in category order."""
    seen: set[tuple[str, str]] = set()
    items: list[RetentionItem] = []
    claimed: set[str] = set()  # a file path is not counted again as an identifier

    def add(category: Category, text: str, index: int) -> None:
        text = text.strip()
        if not text or (category, text) in seen:
            return
        if category == "identifiers" and text in claimed:
            return
        seen.add((category, text))
        if category == "files":
            claimed.add(text)
        items.append(RetentionItem(category=category, text=text, message_index=index))

    for index, message in enumerate(messages):
        for text in _user_texts(message):
            add("user_messages", text, index)
            for path in paths_in_text(text):
                add("files", path, index)
        for item in message.content:
            kind = content_type(item)
            if kind == "toolRequest":
                call = _tool_call(item)
                if call is None:
                    continue
                _, arguments = call
                for path in _path_values(arguments):
                    add("files", path, index)
                for command in _commands(arguments):
                    add("commands", command, index)
                    for path in paths_in_text(command):
                        add("files", path, index)
            elif kind == "toolResponse":
                failed, texts = _error_result_texts(item)
                for text in texts:
                    for line in error_lines(text, failed=failed):
                        add("errors", line, index)
    # Identifiers last so that file paths claim their tokens first.
    for index, message in enumerate(messages):
        for text in _user_texts(message):
            for ident in identifiers_in_text(text):
                add("identifiers", ident, index)
    order = {c: n for n, c in enumerate(CATEGORIES)}
    return sorted(items, key=lambda i: order[i.category])


# --- matching -----------------------------------------------------------------------------

_QUOTES = re.compile(r"[\"'`\u2018\u2019\u201c\u201d\u00ab\u00bb]")
_PUNCT = re.compile(r"[^\w\s]")
_WORD = re.compile(r"\w+")


def normalize(text: str) -> str:
    """Case-folded, quotes removed, other punctuation turned into spaces, whitespace collapsed.
    Punctuation becomes a space (not nothing) so that `a.py` never fuses into `apy`."""
    text = _QUOTES.sub("", text.casefold())
    return " ".join(_PUNCT.sub(" ", text).split())


class SummaryIndex:
    """A summary prepared once for many look-ups. ``text`` and every item looked up are in
    the form the summarizer reads (``normalize_text``), whatever form the session or a hand
    edit wrote them in."""

    def __init__(self, summary: str):
        self.text = normalize_text(summary)
        self.normalized = f" {normalize(self.text)} "
        self.words = set(_WORD.findall(self.text.casefold()))

    def status(self, item: str) -> Status:
        item = normalize_text(item)
        if item in self.text:
            return "exact"
        norm = normalize(item)
        # Padded with spaces: the match must start and end on word boundaries.
        if norm and f" {norm} " in self.normalized:
            return "normalized"
        return "missing"

    def word_overlap(self, item: str) -> float:
        words = set(_WORD.findall(normalize_text(item).casefold()))
        return len(words & self.words) / len(words) if words else 0.0


def check_items(items: Sequence[RetentionItem], summary: str) -> RetentionReport:
    index = SummaryIndex(summary)
    checked = []
    for item in items:
        status = index.status(item.text)
        overlap = round(index.word_overlap(item.text), 3) if status == "missing" else None
        checked.append(item.model_copy(update={"status": status, "word_overlap": overlap}))
    categories = [
        CategoryScore(
            category=c,
            found=sum(1 for i in checked if i.category == c and i.found),
            total=sum(1 for i in checked if i.category == c),
        )
        for c in CATEGORIES
    ]
    return RetentionReport(
        items=checked,
        categories=categories,
        found=sum(c.found for c in categories),
        total=sum(c.total for c in categories),
    )


def retention_report(summary: str, messages: Sequence[Message]) -> RetentionReport:
    """What of ``messages`` survives in ``summary`` (the rendered Markdown or the raw text)."""
    return check_items(extract_items(messages), summary)


def format_score(score: float | None) -> str:
    """A retention or probe score as a percentage; ``n/a`` when there was nothing to score."""
    return "n/a" if score is None else f"{score:.0%}"


def retention_rows(report: RetentionReport) -> list[list[str]]:
    """The retention table as ``retention`` and the report show it, one row a category and
    the total: label, found, total, score (the caller adds its own header)."""
    rows = [
        [CATEGORY_LABELS[c.category], str(c.found), str(c.total), format_score(c.score)]
        for c in report.categories
    ]
    rows.append([EVIDENCE_NAME, str(report.found), str(report.total), format_score(report.overall)])
    return rows
