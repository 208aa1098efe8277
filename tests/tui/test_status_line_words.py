"""The status line before ``c`` reads as a sentence for any summarizer, one whose window
litellm does not know too."""

from __future__ import annotations

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.widgets.compaction_status import CompactionStatus
from tests.tui.conftest import settle


async def test_a_summarizer_of_unknown_window_says_the_fit_is_unknown() -> None:
    app = GooseTUI(None, model="openai/x", api_base="http://127.0.0.1:9")
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        status = app.main.query_one(CompactionStatus).render_line(0).text
    assert (
        "press c to compact · request fit unknown (its window is not in litellm's model map)"
        in status
    ), status
