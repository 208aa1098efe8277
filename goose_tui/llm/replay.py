"""A summarizer whose reply is a file's text: for reproducing a model's output and for
working on templates without a model."""

from __future__ import annotations

import asyncio
from pathlib import Path

from goose_tui.files import NotRegularFile, TooLarge, read_regular
from goose_tui.llm.base import (
    MAX_REPLY_CHARS,
    ChatMessage,
    Completion,
    ModelError,
    OnChunk,
    reply_too_long,
)

CHUNK_CHARS = 64


class ReplaySummarizer:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.name = f"replay:{path}"

    async def complete(
        self, messages: list[ChatMessage], on_chunk: OnChunk | None = None
    ) -> Completion:
        # Read at call time, so editing the file and compacting again shows the change.
        # Never more than the cap from it, and never from a device or a FIFO (/dev/zero
        # would never end).
        try:
            # A character is at most 4 bytes.
            text = read_regular(self.path, MAX_REPLY_CHARS * 4).decode("utf-8")
        except TooLarge:
            raise reply_too_long() from None
        except NotRegularFile as exc:
            raise ModelError(f"replay file {exc}") from None
        except UnicodeDecodeError as exc:
            raise ModelError(f"replay file {self.path}: not UTF-8 text ({exc.reason})") from None
        except OSError as exc:
            raise ModelError(f"replay file {self.path}: {exc}") from None
        if len(text) > MAX_REPLY_CHARS:
            raise reply_too_long()
        await stream_text(text, on_chunk)
        # No usage: the pipeline estimates it (docs/pipeline.md §7).
        return Completion(text=text, model=self.name)


async def stream_text(text: str, on_chunk: OnChunk | None, size: int = CHUNK_CHARS) -> None:
    """Hand ``text`` to ``on_chunk`` in pieces, yielding between them so a UI can redraw and
    a cancel lands."""
    for start in range(0, len(text), size):
        if on_chunk is not None:
            on_chunk(text[start : start + size])
        await asyncio.sleep(0)
