"""The Probes tab of the `l` screen (issue 15): score per kind, each probe expected vs
answered, enter jumps to the source message; offline and with a scripted loopback model."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, TabbedContent

from goose_tui.analysis.probes import PROBE_KINDS, PROBE_LABELS, SCORE_NAME, offline_report
from goose_tui.terminal import shorten
from goose_tui.tui.app import GooseTUI, bundled_sample
from goose_tui.tui.screens.retention_screen import RetentionScreen
from goose_tui.tui.widgets.conversation_view import ConversationView
from goose_tui.tui.widgets.probes_panel import CELL, ProbesPanel
from tests.analysis.test_probe_model import PROBES, scripted_model
from tests.loopback import LoopbackServer

from .conftest import settle


def _cells(table: DataTable, column: int) -> list[str]:
    return [str(table.get_row_at(r)[column]) for r in range(table.row_count)]


async def _open_probes(pilot) -> ProbesPanel:
    await settle(pilot)
    await pilot.press("c")
    await settle(pilot)
    await pilot.press("l")
    await settle(pilot)
    assert isinstance(pilot.app.screen, RetentionScreen)
    panel = pilot.app.screen.query_one(ProbesPanel)
    assert not panel.started  # nothing runs until the tab is shown
    await pilot.press("p")
    await settle(pilot)
    assert pilot.app.screen.query_one("#retention-tabs", TabbedContent).active == "tab-probes"
    return panel


async def test_offline_probes_on_the_bundled_sample() -> None:
    app = GooseTUI(bundled_sample(), model="offline")
    async with app.run_test(size=(200, 50)) as pilot:
        panel = await _open_probes(pilot)
        report = panel.report
        assert report is not None and report.mode == "offline"
        session = app.inspector.session
        expected = offline_report(session.messages, app.inspector.summary.text, session.working_dir)
        assert report.results == expected.results
        kinds = panel.query_one("#probe-kinds", DataTable)
        assert _cells(kinds, 0) == [PROBE_LABELS[k] for k in PROBE_KINDS] + [SCORE_NAME]
        assert _cells(kinds, 2)[:4] == [f"{k.score:.0%}" for k in report.kinds]
        found_partial_missing = [_cells(kinds, column)[:4] for column in (3, 4, 5)]
        assert found_partial_missing == [
            [str(getattr(k, n)) for k in report.kinds] for n in ("found", "partial", "missing")
        ]
        items = panel.query_one("#probe-items", DataTable)
        assert items.row_count == len(report.results)
        first = report.results[0]  # the user's last request: continuation comes first
        assert first.probe.question == "What did the user ask for last?"
        assert _cells(items, 4)[0] == shorten(first.probe.expected, CELL)
        assert _cells(items, 5)[0] == shorten(first.answer, CELL)  # answered by the summary
        source = report.results[0].probe.message_index
        assert _cells(items, 1)[0] == f"#{source + 1}"
        assert app.focused is items
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is app.main
        assert app.main.query_one(ConversationView).selected == source


async def test_model_probes_through_the_loopback_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback-not-a-secret")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    with LoopbackServer(responder=scripted_model) as server:
        app = GooseTUI(bundled_sample(), model="openai/loop", api_base=f"{server.url}/v1")
        async with app.run_test(size=(200, 50)) as pilot:
            panel = await _open_probes(pilot)
            report = panel.report
            assert report is not None and report.mode == "model"
            assert report.writer == report.judge == "openai/loop"
            # The scripted summary keeps the error and the file, not the version or Decimal.
            scores = {k.kind: k.score for k in report.kinds}
            assert scores == {"recall": 1.0, "artifact": 1.0, "continuation": 0.0, "decision": 0.0}
            items = panel.query_one("#probe-items", DataTable)
            assert _cells(items, 3) == [p["question"] for p in PROBES[:5]]
            hint = str(panel.query_one("#probe-hint").render())
            assert "11 calls (11 made, 0 cached)" in hint and "1,210 tokens" in hint
        # 1 compaction + 1 probe writing + 5 answers + 5 judgements
        assert len(server.requests) == 12


async def test_the_probes_tab_stays_shown_while_probes_run_and_after_they_fail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A walk-through: `p` showed the probes tab and flipped straight back to retention (the
    # focus stayed on a table of the hidden tab, and showing that one won); when the probes
    # failed, their tab could not be opened at all.
    from goose_tui.tui.screens.error_modal import ErrorModal
    from tests.loopback import Reply
    from tests.tui.conftest import REPLY

    monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback-not-a-secret")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    with LoopbackServer([Reply.ok(REPLY)]) as server:  # a summary: no probes in it
        app = GooseTUI(bundled_sample(), model="openai/loop", api_base=f"{server.url}/v1")
        async with app.run_test(size=(200, 50)) as pilot:
            await settle(pilot)
            await pilot.press("c")
            await settle(pilot)
            await pilot.press("l")
            await settle(pilot)
            tabs = app.screen.query_one("#retention-tabs", TabbedContent)
            await pilot.press("p")
            await pilot.pause()
            assert tabs.active == "tab-probes"  # while the model is asked
            await settle(pilot)
            assert isinstance(app.screen, ErrorModal)
            await pilot.press("escape")
            await settle(pilot)
            assert tabs.active == "tab-probes"
            hint = str(app.screen.query_one("#probe-hint").render())
            assert hint.startswith("probes failed:")
            await pilot.press("p")
            await settle(pilot)
            assert tabs.active == "tab-retention"
            await pilot.press("p")
            await settle(pilot)
            assert tabs.active == "tab-probes"
