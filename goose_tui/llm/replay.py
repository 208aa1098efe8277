"""A summarizer whose reply is a file's text: for reproducing a model's output and for
working on templates without a model."""

from __future__ import annotations

import asyncio
from pathlib import Path

from goose_tui.llm.base import ChatMessage, Completion, ModelError, OnChunk

CHUNK_CHARS = 64


class ReplaySummarizer:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.name = f"replay:{path}"

    async def complete(
        self, messages: list[ChatMessage], on_chunk: OnChunk | None = None
    ) -> Completion:
        # Read at call time, so editing the file and compacting again shows the change.
        try:
            # newline="": the reply exactly as written, "\r\n" kept (a model's reply is not
            # translated either, and the JSON reader treats "\r" as Goose does).
            with self.path.open(encoding="utf-8", newline="") as handle:
                text = handle.read()
        except (OSError, UnicodeDecodeError) as exc:
            raise ModelError(f"replay file {self.path}: {exc}") from None
        await stream_text(text, on_chunk)
        # No usage: the pipeline estimates it (SPEC §7).
        return Completion(text=text, model=self.name)


async def stream_text(text: str, on_chunk: OnChunk | None, size: int = CHUNK_CHARS) -> None:
    """Hand ``text`` to ``on_chunk`` in pieces, yielding between them so a UI can redraw and
    a cancel lands."""
    for start in range(0, len(text), size):
        if on_chunk is not None:
            on_chunk(text[start : start + size])
        await asyncio.sleep(0)
