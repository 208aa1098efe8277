"""The shape of Goose's ``sessions.db`` as of its schema version 8 (name, session_type,
provider_name, model_config_json, message_id, goose_mode present), for writing test
fixtures and the bundled sample. The loader never uses this: it reads whatever columns a
file has."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

SCHEMA_VERSION = 8

SCHEMA = """
CREATE TABLE schema_version (
    version INTEGER PRIMARY KEY,
    applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL DEFAULT '',
    description TEXT NOT NULL DEFAULT '',
    user_set_name BOOLEAN DEFAULT FALSE,
    session_type TEXT NOT NULL DEFAULT 'user',
    working_dir TEXT NOT NULL,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    extension_data TEXT DEFAULT '{}',
    total_tokens INTEGER,
    input_tokens INTEGER,
    output_tokens INTEGER,
    accumulated_total_tokens INTEGER,
    accumulated_input_tokens INTEGER,
    accumulated_output_tokens INTEGER,
    schedule_id TEXT,
    recipe_json TEXT,
    user_recipe_values_json TEXT,
    provider_name TEXT,
    model_config_json TEXT,
    goose_mode TEXT NOT NULL DEFAULT 'auto'
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id TEXT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL,
    content_json TEXT NOT NULL,
    created_timestamp INTEGER NOT NULL,
    timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    tokens INTEGER,
    metadata_json TEXT
);
CREATE INDEX idx_messages_session ON messages(session_id);
CREATE INDEX idx_messages_timestamp ON messages(timestamp);
CREATE INDEX idx_messages_message_id ON messages(message_id);
CREATE INDEX idx_sessions_updated ON sessions(updated_at DESC);
CREATE INDEX idx_sessions_type ON sessions(session_type);
"""


def create_schema(connection: sqlite3.Connection, applied_at: str | None = None) -> None:
    """``applied_at`` fixes the migration timestamps (a reproducible sample file)."""
    connection.executescript(SCHEMA)
    connection.executemany(
        "INSERT INTO schema_version (version, applied_at)"
        " VALUES (?, COALESCE(?, CURRENT_TIMESTAMP))",
        [(v, applied_at) for v in range(1, SCHEMA_VERSION + 1)],
    )


def insert_session(
    connection: sqlite3.Connection,
    session: dict[str, Any],
    messages: Sequence[dict[str, Any]],
) -> None:
    """One session row plus its messages. ``session`` uses the column names, with
    ``model_config`` as a dict; messages are Goose Message dicts (``id``, ``role``,
    ``created``, ``content``, ``metadata``, optional ``tokens``)."""
    row = dict(session)
    if "model_config" in row:
        row["model_config_json"] = json.dumps(row.pop("model_config"))
    columns = ", ".join(row)
    marks = ", ".join("?" for _ in row)
    connection.execute(f"INSERT INTO sessions ({columns}) VALUES ({marks})", tuple(row.values()))
    connection.executemany(
        "INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp,"
        " timestamp, tokens, metadata_json) VALUES (?, ?, ?, ?, ?, datetime(?, 'unixepoch'), ?, ?)",
        [
            (
                m.get("id"),
                row["id"],
                m["role"],
                json.dumps(m.get("content", [])),
                m["created"],
                m["created"],
                m.get("tokens"),
                json.dumps(m.get("metadata", {"userVisible": True, "agentVisible": True})),
            )
            for m in messages
        ],
    )
