"""The analysis screens (what was lost, compare, timeline) driven with real key presses."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import DataTable, Input

from goose_tui.analysis.retention import extract_items
from goose_tui.session.loader import load_session
from goose_tui.tui.app import GooseTUI, bundled_sample
from goose_tui.tui.screens.retention_screen import RetentionScreen
from goose_tui.tui.widgets.conversation_view import ConversationView

from .conftest import edit, paste, settle, wait_until

KNOWN_ERROR = "FAILED tests/test_dates.py::test_parse_dates"


def _cells(table: DataTable, column: int) -> list[str]:
    return [str(table.get_row_at(r)[column]) for r in range(table.row_count)]


def _reply_without(session_file: Path, left_out: str, path: Path) -> Path:
    """A reply quoting every checkable item of the history verbatim, except ``left_out``."""
    items = extract_items(load_session(session_file).messages)
    kept = [i.text for i in items if i.text != left_out]
    assert len(kept) == len(items) - 1  # the item is really in the history
    reply = {"user_intent": ["Fix the date test"], "problem_solving": kept}
    path.write_text(f"```json\n{json.dumps(reply)}\n```\n", encoding="utf-8")
    return path


async def _compact(pilot) -> None:
    await settle(pilot)
    await pilot.press("c")
    await settle(pilot)


async def test_retention_lists_exactly_the_omitted_error_and_enter_jumps_to_it(
    session_file: Path, tmp_path: Path
) -> None:
    reply = _reply_without(session_file, KNOWN_ERROR, tmp_path / "reply.md")
    source = next(
        i for i in extract_items(load_session(session_file).messages) if i.text == KNOWN_ERROR
    )
    app = GooseTUI(session_file, model=f"replay:{reply}")
    async with app.run_test(size=(120, 40)) as pilot:
        await _compact(pilot)
        await pilot.press("l")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RetentionScreen)
        assert screen.report is not None
        assert [(i.category, i.text) for i in screen.report.missing()] == [("errors", KNOWN_ERROR)]
        items = screen.query_one("#retention-items", DataTable)
        assert _cells(items, 4) == [KNOWN_ERROR]
        assert _cells(items, 0) == [f"#{source.message_index + 1}"]
        scores = screen.query_one("#retention-scores", DataTable)
        errors_row = _cells(scores, 0).index("error lines")
        assert [str(c) for c in scores.get_row_at(errors_row)[1:4]] == ["1", "2", "50%"]
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is app.main
        view = app.main.query_one(ConversationView)
        assert view.selected == source.message_index
        assert app.focused is view


async def test_lost_screen_finds_a_decomposed_session_in_its_offline_summary(
    tmp_path: Path,
) -> None:
    from goose_tui.tui.widgets.probes_panel import ProbesPanel
    from tests.analysis.test_probes import decomposed_session
    from tests.analysis.test_retention import write_session

    session = write_session(tmp_path / "mac.jsonl", decomposed_session())
    app = GooseTUI(session, model="offline")
    async with app.run_test(size=(120, 40)) as pilot:
        await _compact(pilot)
        await pilot.press("l")
        await settle(pilot)
        report = app.screen.report
        assert report.total == 2 and report.missing() == []
        await pilot.press("p")
        await settle(pilot)
        probes = app.screen.query_one(ProbesPanel).report
        assert probes is not None and probes.overall == 1.0


# --- timeline -----------------------------------------------------------------------------


async def _compacted_sample(path: Path) -> tuple[Path, int]:
    """The long sample compacted offline and laid out as Goose keeps it: old messages hidden
    from the agent, the summary, a continuation note, then new turns. Returns (file, index of
    the summary message)."""
    from goose_tui.compaction.summarize import summarize
    from goose_tui.compaction.templates import load_templates
    from goose_tui.llm import make_summarizer
    from goose_tui.session.models import Message

    sample = bundled_sample()
    session = load_session(sample)
    result = await summarize(session.messages, make_summarizer("offline"), load_templates(None))
    hidden = [
        m.model_copy(update={"metadata": m.metadata.model_copy(update={"agent_visible": False})})
        for m in session.messages
    ]

    def text(role: str, body: str, *, user: bool = True) -> Message:
        return Message.model_validate(
            {
                "role": role,
                "content": [{"type": "text", "text": body}],
                "metadata": {"userVisible": user, "agentVisible": True},
            }
        )

    note = text("assistant", "Carry on from the summary above.", user=False)
    messages = [*hidden, result.summary_message, note, text("user", "next, ship it")]
    lines = [sample.read_text(encoding="utf-8").splitlines()[0]]  # its metadata: the window
    lines += [m.model_dump_json(by_alias=True, exclude_none=True) for m in messages]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, len(session.messages)


async def test_timeline_on_the_bundled_sample_marks_the_threshold_and_jumps() -> None:
    from goose_tui.tui.screens.timeline_screen import TimelineScreen
    from goose_tui.tui.widgets.timeline_plot import TimelinePlot

    app = GooseTUI(bundled_sample())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("g")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, TimelineScreen)
        t = screen.timeline
        assert t is not None and t.context_limit == 16_384 and t.events == []
        triggers = screen.query_one("#timeline-triggers", DataTable)
        assert _cells(triggers, 0) == ["threshold 0.8", "0.9", "window - 13k"]
        first = t.triggers[0].first_index
        assert first is not None and _cells(triggers, 3)[0] == f"#{first + 1}"
        # The plot's marker row puts ^ under the first message over the threshold.
        plot = screen.query_one(TimelinePlot)
        marker_row = plot.render_line(plot.size.height - 1).text
        start, _ = plot.column_span(first)
        assert marker_row[9 + start] == "^"
        assert "0.8 ┤" in "".join(plot.render_line(y).text for y in range(plot.size.height))
        # Selecting the trigger row puts the cursor on that message; right moves on.
        triggers.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert plot.cursor == first and app.focused is plot
        await pilot.press("right")
        await pilot.pause()
        point = str(screen.query_one("#timeline-point").render())
        assert point.startswith(f"#{first + 2} ")
        assert f"context {t.points[first + 1].cumulative:,}" in point
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is app.main
        assert app.main.query_one(ConversationView).selected == first + 1


async def test_timeline_lists_the_sessions_compaction_with_before_and_after(
    tmp_path: Path,
) -> None:
    from goose_tui.tokens import TokenCounter
    from goose_tui.tui.widgets.timeline_plot import TimelinePlot

    path, summary_at = await _compacted_sample(tmp_path / "compacted.jsonl")
    messages = load_session(path).messages
    counter = TokenCounter()
    app = GooseTUI(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("g")
        await settle(pilot)
        screen = app.screen
        events = screen.query_one("#timeline-events", DataTable)
        assert _cells(events, 1) == ["summary", "continuation"]
        assert _cells(events, 0)[0] == f"#{summary_at + 1}"
        # Before: everything the agent had, i.e. the sample as it was before it was hidden.
        before = counter.total(load_session(bundled_sample()).messages)
        after = counter.total([messages[summary_at]])
        assert _cells(events, 2)[0] == f"{before:,}"
        assert _cells(events, 3)[0] == f"{after:,}"
        plot = screen.query_one(TimelinePlot)
        start, _ = plot.column_span(summary_at)
        marks = plot.render_line(plot.size.height - 1).text
        assert marks[9 + start] == "S"
        # One compaction: its summary and Goose's continuation message were counted as two
        # ("2 compaction event(s)") and both marked S, where the CLI marks the summary only.
        continuation, _ = plot.column_span(summary_at + 1)
        if continuation != start:
            assert marks[9 + continuation] != "S"
        summary = str(screen.query_one("#timeline-summary").render()).splitlines()[0]
        assert summary.endswith("1 compaction")
        events.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert plot.cursor == summary_at
        assert "Conversation Summary" in str(screen.query_one("#timeline-point").render())


# --- compare ------------------------------------------------------------------------------


async def _compare_setup(pilot) -> None:
    """The sample compacted, then ``v``: the compare dialog, asking."""
    from goose_tui.tui.screens.compare_screen import CompareSetup

    await _compact(pilot)
    await pilot.press("v")
    await settle(pilot)
    assert isinstance(pilot.app.screen, CompareSetup)


async def _open_compare(pilot, spec: str | None, folder: str = "") -> None:
    await pilot.press("v")
    await pilot.pause()
    if spec is not None:
        field = pilot.app.screen.query_one("#compare-spec")
        field.value = ""
        await paste(pilot, spec)
    if folder:
        await pilot.press("tab")
        await paste(pilot, folder)
    elif spec != "previous":
        await pilot.press("enter")  # the folder field is empty: enter moves there first
    await pilot.press("enter")
    await settle(pilot)


async def test_retention_compare_and_the_compare_dialog_on_the_bundled_sample_offline(
    tmp_path: Path,
) -> None:
    # One compacted sample for the retention screen, a compare with another summary template
    # and what the compare dialog refuses.
    from goose_tui.tui.screens.compare_screen import CompareScreen, CompareSetup
    from goose_tui.tui.screens.error_modal import ErrorModal

    short = tmp_path / "short"
    short.mkdir()
    (short / "compaction_summary.md").write_text(
        "# Conversation Summary\n{% for e in errors_and_fixes %}- {{ e }}\n{% endfor %}\n"
    )
    # replay:/nonexistent/file.txt opened the compare screen, whose worker failed at once:
    # the error modal, and under it an empty "failed" screen needing a second esc. The
    # dialog now refuses it, says why and keeps what was typed to mend. A prompts folder that
    # does not exist was compared with the current templates under a header naming it (the
    # CLI's compare refuses it: "not a folder"). Enter moves to the empty folder field first.
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "compaction.md").write_text("{% for m in messages %}\n", encoding="utf-8")
    app = GooseTUI(bundled_sample(), model="offline")
    async with app.run_test(size=(120, 40)) as pilot:
        await _compact(pilot)
        await pilot.press("l")
        await settle(pilot)
        report = app.screen.report
        assert report.total > 30 and 0 < report.found < report.total
        table = app.screen.query_one("#retention-items", DataTable)
        assert table.row_count == len(report.missing())
        target = report.missing()[3].message_index
        await pilot.press("down", "down", "down", "enter")
        await pilot.pause()
        assert app.main.query_one(ConversationView).selected == target
        # Compared with another summary template.
        await _open_compare(pilot, None, str(short))  # the default spec: the current model
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        c = screen.comparison
        assert c is not None
        assert c.sides[1].label == f"offline + {short}"
        assert [f.status for f in c.diffs[0].fields] == ["same"] * 9  # same model, same fields
        assert c.sides[1].tokens < c.sides[0].tokens
        assert c.sides[1].retention.found < c.sides[0].retention.found
        sides = screen.query_one("#compare-sides", DataTable)
        rows = {
            str(r[0]): (str(r[1]), str(r[2])) for r in map(sides.get_row_at, range(sides.row_count))
        }
        assert rows["cost"] == ("n/a", "n/a")
        assert rows["tokens"] == (f"{c.sides[0].tokens:,}", f"{c.sides[1].tokens:,}")
        assert rows["evidence found (retention)"][1] == f"{c.sides[1].retention.overall:.0%}"
        # Probe scores per side (issue 15): the errors-only template keeps recall, loses
        # the rest, so its overall score is lower.
        assert c.sides[1].probes.overall < c.sides[0].probes.overall
        left_probes, right_probes = rows["can the agent act (probes)"]
        assert left_probes == f"{c.sides[0].probes.overall:.0%}"
        assert right_probes == f"{c.sides[1].probes.overall:.0%}"
        right_kind = c.sides[1].probes.kind("continuation")
        assert rows["  continuation"][1].startswith(f"{right_kind.found}/{right_kind.probes} found")
        await pilot.press("d")
        diff = str(screen.query_one("#compare-diff-text").render())
        assert diff.startswith("--- summary by offline") and "-## User Intent" in diff
        await pilot.press("escape")
        assert app.screen is app.main
        # The compare dialog refuses what it cannot start with.
        await pilot.press("v")
        await settle(pilot)
        setup = app.screen
        assert isinstance(setup, CompareSetup)
        assert app.focused is not None and app.focused.id == "compare-spec"
        spec_field = setup.query_one("#compare-spec", Input)
        dir_field = setup.query_one("#compare-dir", Input)
        default_spec = spec_field.value

        dir_field.value = str(tmp_path / "no-such-folder")
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is setup  # still asking
        assert any("not a folder" in n.message for n in app._notifications)

        cases = [
            ("replay:/nonexistent/file.txt", "", "/nonexistent/file.txt: no such reply file"),
            ("replay:", "", "replay: needs a file"),
            ("offline", str(broken), "compaction.md"),
        ]
        for spec, folder, reason in cases:
            assert app.screen is setup
            spec_field.value = spec
            dir_field.value = folder
            dir_field.focus()
            await pilot.press("enter")
            await settle(pilot)
            assert app.screen is setup, spec  # still asking
            assert any(reason in n.message for n in app._notifications), spec
            expected = "compare-dir" if folder else "compare-spec"
            assert app.focused is not None and app.focused.id == expected
            assert spec_field.value == spec
        assert not any(isinstance(s, CompareScreen | ErrorModal) for s in app.screen_stack)

        spec_field.value, dir_field.value = default_spec, ""
        spec_field.focus()
        await pilot.press("enter")
        assert isinstance(app.screen, CompareSetup)  # not answered yet
        assert app.focused is not None and app.focused.id == "compare-dir"
        await pilot.press("enter")  # an empty folder is fine once you are there
        await settle(pilot)
        assert isinstance(app.screen, CompareScreen)


async def test_retention_and_compares_follow_the_summary_and_its_hand_edits(
    session_file: Path, reply_file: Path, tmp_path: Path, monkeypatch
) -> None:
    # One app on the small session, offline: retention before and after compacting, a
    # compare with a replay, a compare with the summary before the last hand edit, retention
    # after a hand edit, and compares that fail or whose new side is too big.
    # A comparison that fails once started (a model that cannot be made is refused by the
    # dialog: test_retention_compare_and_the_compare_dialog_on_the_bundled_sample_offline).
    # Its screen read "failed" over empty panes once the error modal was closed.
    from goose_tui.tui.screens import analysis
    from goose_tui.tui.screens.compare_screen import CompareScreen
    from goose_tui.tui.screens.error_modal import ErrorModal

    failing = tmp_path / "failing"
    failing.mkdir()  # compiles, fails to render: found only once the comparison runs
    (failing / "compaction.md").write_text("{{ messages | upper }}\n", encoding="utf-8")
    reason = f"{failing / 'compaction.md'}:1: unknown filter: filter upper is unknown"
    reply = tmp_path / "big.txt"
    reply.write_text(json.dumps({"user_intent": ["word " * 2_000]}), encoding="utf-8")
    app = GooseTUI(session_file, model="offline")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("l")  # before any summary
        await settle(pilot)  # the toast is a message the app handles after the key
        assert app.screen is app.main
        assert any("compact first" in str(n.message) for n in app._notifications)
        await _compact(pilot)
        await pilot.press("l")
        await settle(pilot)
        assert app.screen.report.missing() == []  # the offline summary keeps everything
        await pilot.press("escape")
        await settle(pilot)
        # Compared with a replay: added and removed items.
        await _open_compare(pilot, f"replay:{reply_file}")
        screen = app.screen
        c = screen.comparison
        by_name = {f.field: f for f in c.diffs[0].fields}
        assert by_name["reviewer"].status == "only_right"  # the reply's extra field
        intent = by_name["user_intent"]
        assert intent.added == ["Fix test_parse_dates in tests/test_dates.py"]
        fields = screen.query_one("#compare-fields", DataTable)
        row = _cells(fields, 0).index("user_intent")
        assert _cells(fields, 2)[row] == "+1"
        fields.move_cursor(row=row)
        await pilot.pause()
        right = str(screen.query_one("#compare-right").render())
        assert "+ Fix test_parse_dates in tests/test_dates.py" in right
        left = str(screen.query_one("#compare-left").render())
        assert left.startswith("- ")
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is app.main
        # Compared with the summary before the last edit.
        await edit(pilot, "e", '{"user_intent": ["Ship v2"]}')
        await pilot.press("escape")  # leave the editor (it has the screen below 200 columns)
        await _open_compare(pilot, "previous")
        c = app.screen.comparison
        assert (c.sides[0].label, c.sides[1].label) == (
            "before the last edit",
            "summary edited by hand",
        )
        intent = next(f for f in c.diffs[0].fields if f.field == "user_intent")
        assert intent.added == ["Ship v2"] and intent.removed
        assert c.sides[1].retention.found < c.sides[0].retention.found
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is app.main
        # Retention follows a hand edit of the summary.
        await edit(pilot, "e", '{"user_intent": ["pytest -q"]}')
        await pilot.press("escape")  # leave the editor, where l would be typed
        await pilot.press("l")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RetentionScreen)
        assert screen.label == "summary edited by hand"
        missing = {i.text for i in screen.report.missing()}
        assert "pytest -q" not in missing and KNOWN_ERROR in missing
        assert len(missing) == screen.report.total - 1
        # a: the found items are listed too, after the missing ones
        await pilot.press("a")
        table = screen.query_one("#retention-items", DataTable)
        assert table.row_count == screen.report.total
        assert _cells(table, 2)[-1] == "exact"
        # The hint said "a: show found items too" with them shown (a walk-through).
        hint = str(screen.query_one("#retention-hint").render())
        assert hint.endswith("a: missing items only")
        await pilot.press("a")
        hint = str(screen.query_one("#retention-hint").render())
        assert hint.endswith("a: show found items too")
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is app.main
        # A compare that fails, or whose new side is too big, says why on its screen.
        await _open_compare(pilot, "offline", str(failing))
        assert isinstance(app.screen, ErrorModal)
        assert app.screen.error_title == "Compaction failed"
        # The message, not "TemplateError: …": the title says what failed.
        assert app.screen.message == reason
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, CompareScreen)
        state = str(app.screen.query_one("#compare-state").render())
        assert state == f"failed: {reason} · esc: back"
        assert app.is_running
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is app.main

        # The current summary was size-checked before the dialog, the one compacted for B
        # was not: a huge B froze the screen in retention and the diffs.
        monkeypatch.setattr(analysis, "ANALYSIS_CHARS", len(app.inspector.summary.text))
        await _open_compare(pilot, f"replay:{reply}")
        screen = app.screen
        assert isinstance(screen, CompareScreen) and screen.comparison is None
        state = str(screen.query_one("#compare-state").render())
        assert state.startswith("B's summary is ") and "too big to check in the app" in state
        assert "run `goose-tui compare` on it" in state and state.endswith("esc: back")
        assert app.is_running


async def test_compare_at_80x24_stacks_a_and_b_so_both_numbers_show() -> None:
    from goose_tui.tui.screens.compare_screen import CompareScreen

    app = GooseTUI(bundled_sample(), model="offline")
    async with app.run_test(size=(80, 24)) as pilot:
        await _compact(pilot)
        await _open_compare(pilot, "offline")
        screen = app.screen
        assert isinstance(screen, CompareScreen) and screen.has_class("-narrow")
        sides = screen.query_one("#compare-sides", DataTable)
        fields = screen.query_one("#compare-fields", DataTable)
        # Failed once in nine suite runs (its message was not kept, and it did not fail again
        # under load): the rows and the layout are now read once the filled table is drawn.
        await wait_until(pilot, lambda: sides.row_count >= 2, timeout=60)
        tokens_a, tokens_b = (str(c) for c in sides.get_row_at(1)[1:])

        def on_screen() -> bool:
            text = "".join(ch for ch in app.export_screenshot() if ch.isprintable())
            return tokens_a in text and tokens_b in text

        # What is drawn, not only what the table holds (on a loaded machine the frame with
        # the filled table can come after the workers have finished).
        await wait_until(pilot, on_screen, timeout=60)
        assert fields.region.y >= sides.region.bottom  # stacked, not side by side
        assert sides.region.right <= 80 and sides.virtual_size.width <= sides.size.width
        left = screen.query_one("#compare-left-scroll")
        right = screen.query_one("#compare-right-scroll")
        assert right.region.y >= left.region.bottom


async def test_the_timeline_header_names_the_count_the_gauge_shows() -> None:
    from tests.conftest import SAMPLES

    app = GooseTUI(SAMPLES / "short.jsonl")
    async with app.run_test(size=(200, 45)) as pilot:
        await settle(pilot)
        await pilot.press("g")
        await settle(pilot)
        header = str(app.screen.query_one("#timeline-summary").render()).splitlines()[0]
        assert header.endswith("Goose recorded 6,120 for the last call (the gauge's)"), header
