"""The context gauge's token counts: made in the token worker, off the event loop, each
message looked up once, never counted again for a model switch or the projection; keys
work while a big session is counted, with its progress shown."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from goose_tui.tokens import TokenCounter
from goose_tui.tui.app import GooseTUI
from goose_tui.tui.screens.help import HelpScreen
from goose_tui.tui.widgets.context_gauge import ContextGauge
from goose_tui.tui.widgets.conversation_view import ConversationView
from goose_tui.tui.widgets.text_viewer import TextViewer

from .conftest import settle, wait_until

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture
def generated_session(tmp_path: Path) -> Path:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import gen_session
    finally:
        sys.path.remove(str(BENCHMARKS))
    path = tmp_path / "generated.jsonl"
    return gen_session.write_big_jsonl(path, target_bytes=600_000, messages=800)


async def test_keys_work_while_tokens_are_counted_and_progress_is_shown(
    generated_session: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Hold the counting worker at message 100 so the test sees it mid-way, whatever the
    # machine's speed; the counting itself is the real one.
    release, reached = threading.Event(), threading.Event()
    real_count_all = TokenCounter.count_all
    seen = {"n": 0}

    def count_all(self: TokenCounter, messages):  # noqa: ANN001
        seen["n"] += len(messages)
        if seen["n"] >= 100 and not reached.is_set():
            reached.set()
            release.wait(timeout=30)
        return real_count_all(self, messages)

    monkeypatch.setattr(TokenCounter, "count_all", count_all)
    app = GooseTUI(generated_session)
    async with app.run_test(size=(120, 40)) as pilot:
        gauge = app.main.query_one(ContextGauge)
        await wait_until(pilot, reached.is_set)
        await wait_until(pilot, lambda: gauge.progress is not None)
        first_line = str(gauge.render()).split("\n")[0]
        total = len(app.inspector.session.messages)
        assert first_line.startswith("context: counting tokens… ")
        assert f"/ {total:,} messages" in first_line
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)  # handled while the count is held
        assert gauge.usage is None
        await pilot.press("escape")
        release.set()
        await settle(pilot)
        assert gauge.usage is not None and gauge.progress is None
        assert "counting" not in str(gauge.render())


async def test_each_message_looked_up_once_few_rows_the_prompt_from_pieces_no_recount(
    generated_session: Path, reply_file: Path
) -> None:
    # The count summed the history again through the cache (each lookup builds and hashes
    # the message's texts), and again for the projection: three passes for one figure. The
    # prompt is never joined into one string on the app's side: joined, it was a second
    # copy of the session (188 MB for the 53 MB one) and a 0.1 s hold of the GIL.
    looked_up: list[int] = []
    real_count, real_count_all = TokenCounter.count, TokenCounter.count_all

    def recording(self, message):  # type: ignore[no-untyped-def]
        looked_up.append(id(message))
        return real_count(self, message)

    def recording_all(self, messages):  # type: ignore[no-untyped-def]
        looked_up.extend(map(id, messages))
        return real_count_all(self, messages)

    app = GooseTUI(generated_session, model=f"replay:{reply_file}")
    # Patched before the app starts: patched inside, a count that began first was missed.
    TokenCounter.count, TokenCounter.count_all = recording, recording_all  # type: ignore[method-assign]
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            TokenCounter.count, TokenCounter.count_all = real_count, real_count_all  # type: ignore[method-assign]
            main = app.main
            messages = app.inspector.session.messages
            assert sorted(looked_up) == sorted(map(id, messages))
            gauge = main.query_one(ContextGauge)
            assert gauge.usage is not None
            assert gauge.usage.used == gauge.token_counter.total(messages)
            # Rows of only the messages drawn so far were built; the count is still exact.
            view = main.query_one(ConversationView)
            assert len(view._row_cache) < 60 < len(messages)
            assert view.row_count == sum(1 + max(len(m.content), 1) for m in messages)
            last = view.row_text(view.row_count - 1)
            assert last.startswith("  ")  # the last message's last item row, built on demand
            counter = gauge.token_counter
            assert counter.recounted == len(messages)
            # The input pane shows the prompt from its pieces, the one sent.
            request = main.prompt_pane.request
            assert request is not None
            viewer = main.query_one("#input-view", TextViewer)
            assert viewer._text is request.prompt and len(request.prompt.parts) > 3
            await pilot.press("c")
            await wait_until(pilot, lambda: app.inspector.result is not None)
            await settle(pilot)
            assert app.inspector.result.request is request  # the one shown is the one sent
            assert viewer._text is request.prompt
            assert "system_prompt" not in vars(request)  # its joined text was never made
            assert viewer.text == request.system_prompt  # the copy key's text, joined then
            # A model switch counts nothing again.
            counted = counter.recounted
            app.set_model("openai/gpt-4o")
            await settle(pilot)
            assert counter.recounted == counted  # served from the shared cache
            lines = viewer._lines
            viewer.set_text(viewer.text[:-1] + viewer.text[-1:])  # equal, not the same object
            assert viewer._lines is lines  # not split again
    finally:
        TokenCounter.count, TokenCounter.count_all = real_count, real_count_all  # type: ignore[method-assign]


async def test_the_app_counts_off_the_loop_never_builds_the_encoder_and_sums_the_history_once(
    session_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every count of the app is made in its token worker (goose_tui/token_worker.py):
    # building the encoder here held the GIL, a frozen screen. After a compaction the gauge's
    # projection summed the history's cached counts of a big session on the event loop; it
    # is a worker now, like the first count, and it reuses the gauge's count of the history
    # (summing it again held back the frames that draw the summary).
    from goose_tui import tokens
    from goose_tui.session.loader import load_session
    from tests.core.test_token_worker import no_encoder_here

    session = load_session(session_file)
    expected = TokenCounter().total(session.messages)
    no_encoder_here(monkeypatch)
    threads: list[str] = []
    summed: list[int] = []
    real_total = TokenCounter.total

    def recording(self, messages, *counts, **stop):  # type: ignore[no-untyped-def]
        threads.append(threading.current_thread().name)
        summed.append(len(messages))
        return real_total(self, messages, *counts, **stop)

    app = GooseTUI(session_file)
    async with app.run_test(size=(120, 40)) as pilot:
        gauge = app.main.query_one(ContextGauge)
        TokenCounter.total = recording  # type: ignore[method-assign]
        try:
            await settle(pilot)
            usage = gauge.usage
            assert usage is not None and usage.used == expected
            summed.clear()
            await pilot.press("c")  # the prompt's and the summary's counts too
            await settle(pilot)
        finally:
            TokenCounter.total = real_total  # type: ignore[method-assign]
        assert gauge.projected is not None and gauge.replaced is not None
        messages = app.main.inspector.session.messages
        assert gauge.replaced == gauge.token_counter.total(messages)
        assert summed == [1]  # the summary message alone
        assert threads and threading.main_thread().name not in threads
    assert tokens.counts_elsewhere is None
