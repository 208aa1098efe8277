"""The sample sessions that ship with goose-tui: ``goose_tui/_samples`` in an installed wheel,
``<repo>/sample_sessions`` in a checkout."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def samples_dir() -> Path:
    packaged = _PACKAGE / "_samples"
    return packaged if packaged.is_dir() else _PACKAGE.parent / "sample_sessions"


def bundled_sample() -> Path:
    """The session the app opens with no argument: long enough to be over the threshold."""
    return samples_dir() / "long_session.jsonl"
