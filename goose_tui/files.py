"""Writing results safely: always a new file, written atomically, never over an input."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path


class OverwriteRefused(Exception):
    """The target is one of the files that were read; saving there would lose the input."""


def same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and a.samefile(b))
    except OSError:
        return False


def refuse_overwriting_inputs(target: Path, inputs: Iterable[Path | None]) -> None:
    for source in inputs:
        if source is not None and same_file(target, source):
            raise OverwriteRefused(f"{target}: refusing to write over an input file")


def atomic_write_bytes(target: Path, data: bytes) -> None:
    """Write to a temporary file beside ``target``, fsync, then rename over it, so a reader
    sees the old file or the new one, never half of one."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(target: Path, text: str) -> None:
    atomic_write_bytes(target, text.encode("utf-8"))
