"""The one error a loader raises when an input cannot be used at all."""

from __future__ import annotations

from pathlib import Path


class SessionLoadError(Exception):
    """The input cannot be used at all (missing, empty, not a session). The message names the
    file (and line, where there is one) and says what is wrong, in one line."""

    def __init__(self, path: Path | str | None, reason: str) -> None:
        self.path = Path(path) if path is not None else None
        # One line, always: a reason built from untrusted text must not break the CLI's
        # "one-line reason on stderr" contract.
        self.reason = " ".join(str(reason).split())
        super().__init__(f"{self.path}: {self.reason}" if self.path else self.reason)
