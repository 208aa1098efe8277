"""Before `c` with a priced model, the status line says the request's estimated input
tokens and what they cost at litellm's prices; the offline model shows nothing of the kind."""

from __future__ import annotations

from pathlib import Path

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.widgets.compaction_status import CompactionStatus

from .conftest import settle


async def test_the_status_line_shows_the_estimate_before_compacting(session_file: Path) -> None:
    app = GooseTUI(session_file, model="offline")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        status = app.main.query_one(CompactionStatus)
        assert "est." not in str(status.render())
        app.set_model("openai/gpt-4o-mini")
        await settle(pilot)
        tokens = app.inspector.prompt.tokens
        assert tokens is not None
        line = str(status.render())
        assert f"est. {tokens:,} tokens in ≈ $" in line, line
