"""Entry points for loading: detect the format from the content, dispatch to one module per
format. STUB: owned by the session-loading work (issue 2, part 1)."""

from __future__ import annotations

from pathlib import Path

from goose_tui.session.models import Session, SessionFormat, SessionInfo


class SessionLoadError(Exception):
    """The input cannot be used at all (missing, empty, not a session). The message names the
    file (and line, where there is one) and says what is wrong, in one line."""


def default_sessions_dir() -> Path:
    """``$GOOSE_PATH_ROOT/data/sessions`` when set, else ``~/.local/share/goose/sessions``."""
    raise NotImplementedError


def detect_format(path: Path) -> SessionFormat:
    """From the content (SQLite magic, first JSON value's shape), not only the extension."""
    raise NotImplementedError


def load_session(path: Path, session_id: str | None = None) -> Session:
    """Load any supported file. A ``sessions.db`` takes ``session_id`` (default: the most
    recently updated). Bad lines become ``Session.warnings`` and are skipped. Never writes."""
    raise NotImplementedError


def list_sessions(path: Path | None = None) -> list[SessionInfo]:
    """The sessions in a ``sessions.db``, a folder of session files, or Goose's own data dir
    (``path`` None), most recently updated first."""
    raise NotImplementedError
