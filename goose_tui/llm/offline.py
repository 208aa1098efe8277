"""A deterministic extractive summarizer written for this project: no model, no network.

It reads the conversation back out of the system prompt it is sent (the ``[role]: ...``
lines of docs/pipeline.md §2, or goose-pr-11845's JSON record a message) and writes a reply in the
contract's shape: an ``<analysis>`` checklist, then one ```json block with the nine fields.
Everything in the summary is copied or counted from the conversation; nothing is invented.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

from goose_tui.llm.base import ChatMessage, Completion, ContextLengthExceeded, OnChunk
from goose_tui.llm.prompt_layout import prompt_layout
from goose_tui.llm.replay import stream_text
from goose_tui.pieces import Pieces, Text, line_windows

WINDOW_CHARS = 1 << 20  # the prompt is searched for role lines this much at a time
_ROLE_LINE = re.compile(r"^\[(user|assistant|system)\]: ", re.MULTILINE)
# goose-pr-11845 writes each message as one JSON record a line (compaction/profiles.py).
_RECORD_LINE = re.compile(r'^\{"role":"(user|assistant|system)","content":\[', re.MULTILINE)
_TOOL_REQUEST = re.compile(r"^tool_request\(([^)\n]*)\): (.*)$")
_ERROR_LINE = re.compile(
    r"(Traceback|Error\b|Exception\b|FAILED|\berror(\[\w+\])?:|panicked at|fatal:|"
    r"No such file|command not found|exit (code|status) [1-9])",
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")
_MAX_QUOTE_LINES = 6
_MAX_KEY_CODE_LINES = 20
_MAX_TEXT = 400

_VIEW = {"view", "read", "read_file", "cat", "open", "view_file"}
_CREATE = {"write", "create", "write_file", "create_file"}
_EDIT = {"edit", "str_replace", "insert", "patch", "apply_patch", "undo_edit", "edit_file"}
_PATH_KEYS = ("path", "file_path", "filename", "file")
# Words worth naming as technical concepts when the conversation mentions them.
_CONCEPTS = {
    ".py": "Python",
    "pytest": "pytest",
    ".rs": "Rust",
    "cargo": "Cargo",
    ".ts": "TypeScript",
    ".tsx": "React (TSX)",
    ".js": "JavaScript",
    "npm ": "npm",
    ".go": "Go",
    "docker": "Docker",
    "sql": "SQL",
    "sqlite": "SQLite",
    "git ": "git",
    ".md": "Markdown",
    "json": "JSON",
    "yaml": "YAML",
    "http": "HTTP",
    "asyncio": "asyncio",
    "textual": "Textual",
    "fastapi": "FastAPI",
    "django": "Django",
    "flask": "Flask",
}


@dataclass
class Part:
    kind: str  # "text", "tool_request", "tool_response", "other"
    text: str
    tool: str = ""
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass
class ParsedMessage:
    role: str
    parts: list[Part]

    def text(self) -> str:
        return "\n".join(p.text for p in self.parts if p.kind == "text").strip()


class OfflineSummarizer:
    def __init__(self, context_limit: int | None = None):
        self.context_limit = context_limit
        self.name = "offline"

    async def complete(
        self, messages: list[ChatMessage], on_chunk: OnChunk | None = None
    ) -> Completion:
        # Both steps read the whole prompt (seconds on a big session): in a thread, so an
        # event loop running this (the app's) keeps answering keys meanwhile.
        if self.context_limit is not None:
            size = await asyncio.to_thread(_prompt_tokens, messages)
            if size > self.context_limit:
                raise ContextLengthExceeded(
                    f"offline: the prompt has {size} tokens, over the limit of "
                    f"{self.context_limit} (--offline-context-limit)"
                )
        await asyncio.sleep(0)
        system = next((m.content for m in messages if m.role == "system"), "")
        reply = await asyncio.to_thread(_reply_for, system)
        await stream_text(reply, on_chunk, size=48)
        return Completion(text=reply, model=self.name)


def _prompt_tokens(messages: list[ChatMessage]) -> int:
    from goose_tui.tokens import count_tokens

    return sum(count_tokens(m.content) for m in messages)


def _reply_for(system_prompt: Text) -> str:
    return write_reply(read_conversation(system_prompt))


def conversation_text(system_prompt: Text) -> str:
    """The formatted conversation inside the prompt. When the prompt is the built-in
    template, its exact prose around ``{{ messages }}`` is cut off; with another template,
    everything from the first ``[role]:`` line on is taken."""
    text = _as_pieces(system_prompt)
    begin, end = _conversation_bounds(text)
    return text.slice(begin, end)


def _as_pieces(text: Text) -> Pieces:
    # The prompt is read where it is, never joined: on a big session a joined copy would
    # double its memory and hold the GIL long enough to stall the app's screen.
    return text if isinstance(text, Pieces) else Pieces([text])


def _role_lines(
    text: Pieces, begin: int, end: int, pattern: re.Pattern[str] = _ROLE_LINE
) -> Iterator[int]:
    """Where each message's line (``[role]: ``, or a record with ``_RECORD_LINE``) starts
    between ``begin`` and ``end``."""
    for offset, window in line_windows(text, WINDOW_CHARS):
        if offset + len(window) <= begin:
            continue
        if offset >= end:
            return
        for match in pattern.finditer(window, 0, end - offset):
            if offset + match.start() >= begin:
                yield offset + match.start()


def _conversation_bounds(text: Pieces) -> tuple[int, int]:
    """Where ``conversation_text`` is in the prompt."""
    end = len(text)
    layout = prompt_layout()
    if layout is not None:
        # A focus appended after the template's text is not part of the conversation.
        cut = text.rfind("\n\n" + layout.focus_heading)
        if cut != -1:
            end = cut
        prefix, suffix = layout.prefix, layout.suffix
        if (
            prefix
            and text.slice(0, len(prefix)) == prefix
            and end >= len(suffix)
            and text.slice(end - len(suffix), end) == suffix
        ):
            return len(prefix), max(len(prefix), end - len(suffix))
    # The first message's line, in either form (a record is looked for only before the
    # first role line: not through the whole prompt again).
    first = next(_role_lines(text, 0, end), None)
    record = next(_role_lines(text, 0, end if first is None else first, _RECORD_LINE), None)
    first = record if record is not None else first
    return (first, end) if first is not None else (0, 0)


def read_conversation(system_prompt: Text) -> Iterator[ParsedMessage]:
    """The conversation's messages in order, each parsed when it is reached: the summary is
    gathered from one message at a time, so a big session's parsed messages (their tool
    output copied into parts) are never all in memory at once."""
    text = _as_pieces(system_prompt)
    begin, size = _conversation_bounds(text)
    # How the messages are written: goose-pr-11845's JSON records when one starts at ``begin``,
    # else ``[role]: `` lines. One form per conversation: a record typed inside a message of
    # the other form is that message's text.
    head = text.slice(begin, min(begin + 40, len(text)))
    pattern = _RECORD_LINE if _RECORD_LINE.match(head) else _ROLE_LINE
    # A message's line at ``begin`` counts even when the prose before it ends without a
    # newline, as it did when the conversation was cut out of the prompt first.
    first = [begin] if pattern.match(head) else []
    starts = chain(first, (at for at in _role_lines(text, begin, size, pattern) if at != begin))
    start = next(starts, None)
    while start is not None:
        following = next(starts, None)
        block = text.slice(start, following - 1 if following is not None else size)
        if pattern is _RECORD_LINE:
            yield _record_message(block)
        else:
            role, body = block[1 : block.index("]")], block[block.index(": ") + 2 :]
            yield ParsedMessage(role, _parse_parts(body))
        start = following


def _record_message(block: str) -> ParsedMessage:
    """A goose-pr-11845 record (``{"role": ..., "content": [parts]}``) as the message its
    ``[role]: `` line would be: the parts joined by newlines. Whatever follows the record on
    its line (a template's own text after the last one) is not part of it; a record that
    does not read whole stays text of its message."""
    role = block[len('{"role":"') : block.index('"', len('{"role":"'))]
    try:
        record, _ = json.JSONDecoder().raw_decode(block)
        parts = record["content"]
        body = "\n".join(parts) if all(isinstance(p, str) for p in parts) else None
    except (ValueError, KeyError, TypeError):
        body = None
    if body is None:
        body = block[block.index("[") + 1 :]
    return ParsedMessage(role, _parse_parts(body) if body else [])


def _parse_parts(body: str) -> list[Part]:
    if body == "<empty message>":
        return []
    parts: list[Part] = []
    for line in body.split("\n"):
        request = _TOOL_REQUEST.match(line)
        if request:
            parts.append(Part("tool_request", line, request.group(1), _arguments(request.group(2))))
        elif line.startswith("tool_request: "):
            parts.append(Part("other", line))
        elif line.startswith("tool_response: "):
            parts.append(Part("tool_response", line[len("tool_response: ") :]))
        elif parts and parts[-1].kind in ("text", "tool_response"):
            parts[-1].text += "\n" + line  # a multi-line text or tool output continues
        else:
            parts.append(Part("text", line))
    return parts


def _arguments(raw: str) -> dict[str, Any]:
    try:
        value = json.loads(raw)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _short_name(tool: str) -> str:
    return tool.rsplit("__", 1)[-1]


def _file_action(part: Part) -> tuple[str, str] | None:
    """(path, what was done) for a tool request that names a file."""
    args = part.arguments
    path = next((args[k] for k in _PATH_KEYS if isinstance(args.get(k), str)), None)
    if not path:
        return None
    name = _short_name(part.tool)
    command = args.get("command") if isinstance(args.get("command"), str) else ""
    verb = command or name
    if verb in _VIEW or name in _VIEW:
        return path, "viewed"
    if verb in _CREATE or name in _CREATE:
        return path, "created" if verb in ("create", "create_file") else "written"
    if verb in _EDIT or name in _EDIT:
        return path, "edited" if verb != "undo_edit" else "edit undone"
    return path, f"used with {part.tool}" + (f" ({command})" if command else "")


def _key_code(part: Part) -> str | None:
    args = part.arguments
    code = next(
        (args[k] for k in ("new_str", "file_text", "content", "insert_text") if args.get(k)), None
    )
    if not isinstance(code, str) or not code.strip():
        return None
    lines = code.rstrip("\n").split("\n")
    if len(lines) > _MAX_KEY_CODE_LINES:
        lines = lines[:_MAX_KEY_CODE_LINES] + [
            f"... ({len(lines) - _MAX_KEY_CODE_LINES} more lines)"
        ]
    return "\n".join(lines)


def _clip(text: str, limit: int = _MAX_TEXT) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _first_prose_line(text: str) -> str:
    """The first non-blank line outside fenced code blocks: a reply that opens with (or is)
    a ```json block has no sentence in its fence line; "" when there is no prose."""
    fenced = False
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if not fenced and stripped:
            return stripped
    return ""


def _first_sentence(text: str, enough: int = 40) -> str:
    """The opening of a message: whole sentences of its first line until ``enough`` chars,
    so a curt "Great." does not stand in for the request that follows it."""
    line = _first_prose_line(text)
    taken = ""
    for sentence in _SENTENCE_END.split(line):
        taken = f"{taken} {sentence}".strip()
        if len(taken) >= enough:
            break
    return _clip(taken, 200)


def _error_quote(output: str) -> str | None:
    lines = [ln.rstrip() for ln in output.split("\n")]
    hits = [i for i, ln in enumerate(lines) if _ERROR_LINE.search(ln)]
    if not hits:
        return None
    picked: list[str] = []
    for i in hits:
        if lines[i] not in picked:
            picked.append(lines[i])
    # A traceback's last line names the exception: always keep it.
    if lines[hits[0]].startswith("Traceback"):
        last = next((ln for ln in reversed(lines) if ln.strip()), "")
        if last not in picked:
            picked.append(last)
    if len(picked) > _MAX_QUOTE_LINES:
        picked = picked[: _MAX_QUOTE_LINES - 1] + [picked[-1]]
    return "\n".join(picked)


@dataclass
class _Facts:
    user_texts: list[str] = field(default_factory=list)
    assistant_texts: list[str] = field(default_factory=list)
    tools: dict[str, int] = field(default_factory=dict)
    commands: list[str] = field(default_factory=list)
    files: dict[str, list[str]] = field(default_factory=dict)
    key_code: dict[str, str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    last_edit: str | None = None
    pending: list[str] = field(default_factory=list)
    messages: int = 0


# How each message Goose adds after a compaction's summary begins (its compact_messages,
# crates/goose/src/context_mgmt/mod.rs: the *_CONTINUATION_TEXT constants).
GOOSE_CONTINUATION = "Your context was compacted"


def _gather(messages: Iterable[ParsedMessage]) -> _Facts:
    """The facts of the conversation, read once in order: no message is kept."""
    facts = _Facts()
    open_error: int | None = None  # index into facts.errors still waiting for its fix
    last_request = ""
    shows_file = False  # the last request showed or edited a file: its output is code
    answered = False  # an assistant's text came after the last user text
    for message in messages:
        facts.messages += 1
        text = message.text()
        if text and message.role == "user":
            facts.user_texts.append(text)
            answered = False
        elif text and message.role == "assistant":
            if text.startswith(GOOSE_CONTINUATION):
                continue  # Goose's own word to the agent after a compaction, no reply
            facts.assistant_texts.append(text)
            answered = True
        for part in message.parts:
            if part.kind == "tool_request":
                facts.tools[part.tool] = facts.tools.get(part.tool, 0) + 1
                last_request = f"{part.tool}" + _request_detail(part)
                shows_file = _file_action(part) is not None
                command = part.arguments.get("command")
                if isinstance(command, str) and _short_name(part.tool) == "shell":
                    facts.commands.append(command)
                action = _file_action(part)
                if action:
                    path, verb = action
                    verbs = facts.files.setdefault(path, [])
                    if verb not in verbs:
                        verbs.append(verb)
                    code = _key_code(part)
                    if code:
                        facts.key_code[path] = code
                    if verb in ("edited", "written", "created"):
                        facts.last_edit = path
                        if open_error is not None:
                            facts.errors[open_error] += f"\nFix that followed: {verb} {path}"
                            open_error = None
            elif part.kind == "tool_response":
                # File contents are full of `raise ValueError(...)`: for a file tool only
                # the first line (where a tool reports its own failure) can be an error.
                output = part.text.split("\n", 1)[0] if shows_file else part.text
                quote = _error_quote(output)
                if quote:
                    where = f"{last_request} failed" if last_request else "A tool failed"
                    facts.errors.append(f"{where}:\n{quote}")
                    open_error = len(facts.errors) - 1
    facts.pending = _pending(facts.user_texts, answered)
    return facts


def _request_detail(part: Part) -> str:
    command = part.arguments.get("command")
    path = next((part.arguments[k] for k in _PATH_KEYS if part.arguments.get(k)), None)
    detail = command if isinstance(command, str) else path
    return f" `{_clip(str(detail), 120)}`" if detail else ""


def _pending(user_texts: list[str], answered: bool) -> list[str]:
    """The last user request when nothing answered it (``answered``: an assistant's text
    came after it), and requests that name a later step."""
    pending: list[str] = []
    if user_texts and not answered:
        pending.append(user_texts[-1])
    for text in user_texts:
        if re.search(r"\b(also|next|later|afterwards|todo)\b", text, re.IGNORECASE):
            if text not in pending:
                pending.append(text)
    return [_clip(p) for p in pending]


def _concepts(facts: _Facts) -> list[str]:
    concepts = [f"tool {name} (used {n}×)" for name, n in facts.tools.items()]
    # Each text is lowered alone: lowering their join would build a big join, and lower()
    # reserves three times its length.
    # What is found is the same: no needle holds a newline, so none spans two texts.
    found: set[str] = set()
    for text in chain(facts.user_texts, facts.assistant_texts, facts.files, facts.commands):
        lowered = text.lower()
        found.update(needle for needle in _CONCEPTS if needle in lowered)
    for needle, concept in _CONCEPTS.items():
        if needle in found and concept not in concepts:
            concepts.append(concept)
    return concepts


# A summary has to fit in the context it replaces: a model writes a few thousand tokens.
# This one lists and quotes, so on a long session its reply would outgrow any context
# window: a list keeps its first and most recent items, with a note of how many were left
# out between them.
LIST_HEAD, LIST_TAIL = 20, 40


def _bounded(items: list[Any], left_out: Callable[[int], Any]) -> list[Any]:
    if len(items) <= LIST_HEAD + LIST_TAIL:
        return items
    return [*items[:LIST_HEAD], left_out(len(items) - LIST_HEAD - LIST_TAIL), *items[-LIST_TAIL:]]


def _more(what: str) -> Callable[[int], str]:
    return lambda n: f"… {n:,} more {what}, not listed here …"


def summary_fields(facts: _Facts) -> dict[str, Any]:
    files = []
    for path, verbs in facts.files.items():
        entry: dict[str, Any] = {"path": path, "summary": ", ".join(verbs).capitalize()}
        if path in facts.key_code:
            entry["key_code"] = facts.key_code[path]
        files.append(entry)
    files = _bounded(files, lambda n: {"path": f"({n:,} more files)", "summary": "Not listed here"})
    solving = [_first_sentence(t) for t in facts.assistant_texts if _first_sentence(t)]
    solving = _bounded(solving, _more("replies"))
    if facts.commands:
        shown = ", ".join(f"`{_clip(c, 80)}`" for c in facts.commands[-8:])
        solving.append(f"Ran {len(facts.commands)} shell command(s), latest: {shown}")
    current = []
    if facts.assistant_texts:
        current.append(f"Last reply: {_clip(facts.assistant_texts[-1])}")
    if facts.last_edit:
        current.append(f"Last file changed: {facts.last_edit}")
    next_step = None
    if facts.pending:
        next_step = f"Continue with the user's open request: {_first_sentence(facts.pending[0])}"
    return {
        "user_intent": _bounded([_first_sentence(t) for t in facts.user_texts], _more("requests")),
        "technical_concepts": _concepts(facts),
        "files": files,
        "errors_and_fixes": _bounded(facts.errors, _more("errors")),
        "problem_solving": solving,
        "user_messages": _bounded(facts.user_texts, _more("user messages")),
        "pending_tasks": _bounded(facts.pending, _more("requests")),
        "current_work": "\n".join(current) or None,
        "next_step": next_step,
    }


def _user_count(facts: _Facts) -> str:
    count = len(facts.user_texts)
    if count <= LIST_HEAD + LIST_TAIL:
        return f"{count} from the user, kept verbatim"
    return f"{count} from the user, the first {LIST_HEAD} and last {LIST_TAIL} kept verbatim"


def write_reply(messages: Iterable[ParsedMessage]) -> str:
    facts = _gather(messages)
    fields = summary_fields(facts)
    checklist = [
        f"- {facts.messages} messages; {_user_count(facts)}",
        f"- {len(facts.files)} file(s) touched",
        f"- {len(facts.errors)} error(s) in tool output, quoted",
        f"- {len(facts.pending)} open request(s)",
    ]
    head = "<analysis>\n" + "\n".join(checklist) + "\n</analysis>\n\n```json\n"
    # json.dumps(fields, indent=2, ensure_ascii=False)'s pieces, joined once with the rest:
    # its own join would be a second copy of the reply.
    body = json.JSONEncoder(ensure_ascii=False, indent=2).iterencode(fields)
    return "".join([head, *body, "\n```\n"])
