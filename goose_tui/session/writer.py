"""Save a compacted session in a shape Goose itself reads, so a summary previewed and edited
here can be continued in Goose.

The conversation is the one Goose keeps after a compaction (``compact_messages`` in Goose's
``crates/goose/src/context_mgmt/mod.rs``): every old message stays, marked not visible to
the agent (its user visibility unchanged, so the history still shows), followed by the
summary as a ``user`` message that only the agent sees. That summary is then the one
message the agent reads when the session continues.

Two files: the session JSON today's Goose imports (the ``Session`` of
``crates/goose/src/session/model.rs`` with its ``conversation``; what it keeps and cannot
read is in ``goose_import``), the default; and Goose's legacy JSONL (a ``SessionMetadata``
line, then one ``Message`` per line; ``crates/goose/src/session/legacy.rs`` reads it), which
only older Goose versions open.

The one write into Goose's own ``sessions.db`` is ``goose_db.add_session``; every other
target in Goose's data folders is refused here. Writes are atomic, never over an input,
never over an existing file unless asked, and never onto anything but a regular file.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from goose_tui.dirs import goose_dir, xdg_home
from goose_tui.files import OnKeysRemoved, OverwriteRefused, atomic_write_text, check_writable
from goose_tui.session.goose_import import (
    model_config,
    readable_messages,
    session_state,
)
from goose_tui.session.models import Message, Session

SaveFormat = Literal["json", "jsonl"]
SAVE_FORMATS: tuple[SaveFormat, ...] = ("json", "jsonl")


# --- where not to write -----------------------------------------------------------------


def goose_data_dirs() -> list[Path]:
    """Every folder where Goose may keep its data (its ``sessions/`` folder lives in each):
    the one Goose uses here, the XDG and home defaults it uses without ``GOOSE_PATH_ROOT``,
    and the macOS and Windows application-support folders."""
    home = Path.home()
    dirs = [goose_dir("data"), xdg_home("data") / "goose", home / ".local" / "share" / "goose"]
    dirs.append(home / "Library" / "Application Support" / "Block.goose")
    appdata = os.environ.get("APPDATA")
    if appdata:
        dirs.append(Path(appdata) / "Block" / "goose" / "data")
    return dirs


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
    except (ValueError, OSError):
        return False
    return True


def refuse_goose_targets(target: Path) -> None:
    """Raise ``OverwriteRefused`` for Goose's ``sessions.db`` (anywhere) and for anything inside
    Goose's own sessions folder."""
    if target.name == "sessions.db" or target.name.startswith("sessions.db-"):
        raise OverwriteRefused(
            f"{target}: refusing to write a sessions.db: Goose owns its database; "
            "save a .jsonl or .json elsewhere and import it into Goose"
        )
    for data in goose_data_dirs():
        sessions = data / "sessions"
        if _inside(target, sessions):
            raise OverwriteRefused(
                f"{target}: refusing to write into Goose's own sessions folder ({sessions}); "
                "save it elsewhere and import it into Goose"
            )


def check_target(
    target: Path, inputs: Iterable[Path | None] = (), *, overwrite: bool = False
) -> Path:
    """Every reason not to write the compacted session to ``target``, as ``OverwriteRefused``:
    Goose's own files, then ``files.check_output_target`` (inputs, special files, an
    existing file unless ``overwrite``); the folders it needs are made when writing."""
    refuse_goose_targets(target)
    return check_writable(target, inputs, replace=overwrite, make_folders=True)


# --- the compacted conversation ----------------------------------------------------------


def _agent_only(role: str, text: str, created: int) -> Message:
    """A text message only the agent sees (``MessageMetadata::agent_only``)."""
    return Message.model_validate(
        {
            "id": f"msg_{uuid.uuid4()}",
            "role": role,
            "created": created,
            "content": [{"type": "text", "text": text}],
            "metadata": {"userVisible": False, "agentVisible": True},
        }
    )


def summary_message(summary_text: str, created: int | None = None) -> Message:
    """The message that replaces the history for the agent: role ``user`` (Goose turns the
    summarizer's reply into a user message), visible to the agent only."""
    return _agent_only("user", summary_text, int(time.time()) if created is None else created)


# What Goose adds after the summary of a compaction the user asked for (every save here is
# one): ``MANUAL_COMPACT_CONTINUATION_TEXT`` in crates/goose/src/context_mgmt/mod.rs. It is
# Goose's session data, not a prompt of ours: a session saved without it is not the one Goose
# leaves, and its agent would resume from something else.
GOOSE_CONTINUATION_TEXT = (
    "Your context was compacted at the user's request. The previous message contains a "
    "summary of the conversation so far.\nDo not mention that you read a summary or that "
    "conversation summarization occurred.\nJust continue the conversation naturally based "
    "on the summarized context."
)


def continuation_message(created: int) -> Message:
    """The agent-only assistant message Goose puts after the summary."""
    return _agent_only("assistant", GOOSE_CONTINUATION_TEXT, created)


def compacted_messages(
    messages: Sequence[Message], summary_text: str, created: int | None = None
) -> list[Message]:
    """The old messages, each now hidden from the agent (``with_agent_invisible``: user
    visibility kept), then the summary and Goose's continuation message (``compact_messages``
    for a manual compaction, which keeps no copy of the last user message)."""
    hidden = [
        m.model_copy(update={"metadata": m.metadata.model_copy(update={"agent_visible": False})})
        for m in messages
    ]
    summary = summary_message(summary_text, created)
    assert summary.created is not None
    return [*hidden, summary, continuation_message(summary.created)]


def agent_visible(messages: Sequence[Message]) -> list[Message]:
    return [m for m in messages if m.metadata.agent_visible]


def goose_message_dict(message: Message, fallback_created: int) -> dict[str, Any]:
    """A Message as Goose serializes it: ``id`` (null allowed), ``role``, ``created`` (an
    integer, required), ``content``, ``metadata`` with both flags. Fields that are ours
    (the token count read from sessions.db) are left out."""
    metadata = message.metadata.model_dump(mode="json", by_alias=True)
    return {
        "id": message.id,
        "role": message.role,
        "created": message.created if message.created is not None else fallback_created,
        "content": message.content,
        "metadata": metadata,
    }


def _message_dicts(messages: Sequence[Message], now: int) -> list[dict[str, Any]]:
    # A message without a time (a chat-format input) takes the one before it, so the
    # order Goose sorts by stays the order written.
    out = []
    last = None
    for m in messages:
        created = m.created if m.created is not None else (last if last is not None else now)
        last = created
        out.append(goose_message_dict(m, created))
    return out


def _name(session: Session) -> str:
    return session.name or session.description or session.id or "compacted session"


def _token_counts(session: Session) -> dict[str, int | None]:
    """Goose's flat token counts as a save writes them: the last call's empty (they describe
    the context before compaction, and Goose would compact again at once if it read them),
    the accumulated ones (the session's spend) kept."""
    acc = session.accumulated_usage
    return {
        "total_tokens": None,
        "input_tokens": None,
        "output_tokens": None,
        "accumulated_total_tokens": acc.total_tokens,
        "accumulated_input_tokens": acc.input_tokens,
        "accumulated_output_tokens": acc.output_tokens,
    }


def jsonl_text(session: Session, messages: Sequence[Message], now: int | None = None) -> str:
    """Goose's legacy session file, its token counts as ``_token_counts`` says."""
    now = int(time.time()) if now is None else now
    state, _ = session_state(session)
    metadata = {
        "working_dir": session.working_dir or "",
        "description": _name(session),
        "schedule_id": state["schedule_id"],
        "message_count": len(messages),
        **_token_counts(session),
        "extension_data": state["extension_data"],
        "recipe": state["recipe"],
    }
    metadata.update(_model_fields(session))
    lines = [json.dumps(metadata, ensure_ascii=False)]
    lines += [json.dumps(m, ensure_ascii=False) for m in _message_dicts(messages, now)]
    return "\n".join(lines) + "\n"


# The counts of a usage object, in the order the export writes them.
_USAGE_COUNTS = ("input_tokens", "output_tokens", "total_tokens")


def _rfc3339(value: datetime | None, now: int) -> str:
    moment = value or datetime.fromtimestamp(now, UTC)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def export_dict(
    session: Session, messages: Sequence[Message], now: int | None = None
) -> dict[str, Any]:
    """The session JSON today's Goose imports: ``name`` only (Goose reads ``description``
    as an alias of it, and both at once is a duplicate field), the session's state as the
    import keeps it (``goose_import.session_state``), content Goose cannot read left out; the
    token counts as ``_token_counts`` says."""
    now = int(time.time()) if now is None else now
    acc = session.accumulated_usage
    state, _ = session_state(session)
    readable, _ = readable_messages(messages)
    data: dict[str, Any] = {
        "id": session.id or f"goose-tui-{now}",
        "working_dir": session.working_dir or "",
        "name": _name(session),
        "user_set_name": True,
        "session_type": state["session_type"],
        "created_at": _rfc3339(session.created_at, now),
        "updated_at": _rfc3339(None, now),
        "extension_data": state["extension_data"],
        **_token_counts(session),
        "schedule_id": state["schedule_id"],
        "recipe": state["recipe"],
        "user_recipe_values": state["user_recipe_values"],
        "usage": dict.fromkeys(_USAGE_COUNTS),
        "accumulated_usage": {count: getattr(acc, count) for count in _USAGE_COUNTS},
        "message_count": len(readable),
        "conversation": _message_dicts(readable, now),
    }
    for optional in ("goose_mode", "accumulated_cost"):
        if optional in state:
            data[optional] = state[optional]
    data.update(_model_fields(session, for_goose=True))
    return data


def save_notes(session: Session, fmt: SaveFormat) -> list[str]:
    """What a save in ``fmt`` changes or leaves out so that Goose reads it, one line each
    (the JSON only: Goose's legacy reader skips a line it cannot read by itself)."""
    if fmt != "json":
        return []
    _, state_notes = session_state(session)
    _, content_notes = readable_messages(session.messages)
    notes = [*state_notes, *content_notes]
    if model_config(session) and model_config(session, for_goose=True) is None:
        notes.append("model_config has no model name Goose can read: left out")
    return notes


def _model_fields(session: Session, for_goose: bool = False) -> dict[str, Any]:
    """The session's provider and model (its context window with it), as both formats
    carry them: without them the saved session reopens with an assumed window."""
    fields: dict[str, Any] = {}
    if session.provider_name:
        fields["provider_name"] = session.provider_name
    config = model_config(session, for_goose=for_goose)
    if config is not None:
        fields["model_config"] = config
    return fields


def compacted_session_text(
    session: Session, summary_text: str, fmt: SaveFormat, now: int | None = None
) -> str:
    now = int(time.time()) if now is None else now
    messages = compacted_messages(session.messages, summary_text, created=now)
    if fmt == "jsonl":
        return jsonl_text(session, messages, now)
    return json.dumps(export_dict(session, messages, now), ensure_ascii=False, indent=2) + "\n"


def format_for(target: Path, fmt: str | None = None) -> SaveFormat:
    """The explicit format, else ``jsonl`` for a ``.jsonl`` target (a legacy file asked for
    by name) and ``json``, what today's Goose imports, otherwise."""
    if fmt is not None:
        if fmt not in SAVE_FORMATS:
            raise ValueError(f"unknown session format {fmt!r}: use json or jsonl")
        return fmt
    return "jsonl" if target.suffix.lower() == ".jsonl" else "json"


def save_compacted_session(
    target: Path,
    session: Session,
    summary_text: str,
    fmt: SaveFormat | None = None,
    *,
    inputs: Iterable[Path | None] = (),
    overwrite: bool = False,
    on_keys_removed: OnKeysRemoved | None = None,
) -> Path:
    """Write the compacted session to ``target`` atomically; ``OverwriteRefused`` says why not."""
    inputs = [session.source_path, *inputs]
    target = check_target(Path(target), inputs, overwrite=overwrite)
    atomic_write_text(
        target,
        compacted_session_text(session, summary_text, format_for(target, fmt)),
        replace=overwrite,
        on_keys_removed=on_keys_removed,
    )
    return target
