"""The inspector driven with real key presses on the offline and replay models."""

from __future__ import annotations

from pathlib import Path

import pytest

from goose_tui.compaction.summarize import SUMMARIZE_REQUEST
from goose_tui.session.loader import load_session
from goose_tui.tokens import limit_source_text
from goose_tui.tui.app import GooseTUI
from goose_tui.tui.screens.confirm import ConfirmScreen
from goose_tui.tui.screens.error_modal import ErrorModal
from goose_tui.tui.screens.help import HelpScreen
from goose_tui.tui.screens.input_prompt import InputPrompt
from goose_tui.tui.widgets.compaction_status import CompactionStatus
from goose_tui.tui.widgets.context_gauge import ContextGauge
from goose_tui.tui.widgets.conversation_view import ConversationView
from goose_tui.tui.widgets.fields_tree import FieldsTree
from goose_tui.tui.widgets.summary_preview import SummaryPreview
from goose_tui.tui.widgets.text_viewer import TextViewer

from .conftest import compacted, edit, palette_options, paste, settle, wait_until


def _tree_labels(tree: FieldsTree) -> list[str]:
    labels: list[str] = []

    def walk(node) -> None:
        for child in node.children:
            labels.append(str(child.label))
            walk(child)

    walk(tree.root)
    return labels


async def test_open_shows_rows_gauge_prompt_then_expand_search_maximize_copy_help_tabs(
    session_file: Path,
) -> None:
    app = GooseTUI(session_file)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = app.main
        view = main.query_one(ConversationView)
        rows = [view.row_text(i) for i in range(view.row_count)]
        assert rows[0].startswith("#1 user")
        assert "tok" in rows[0] and "%" in rows[0]  # token estimate and share
        assert any("thinking (dropped from summarizer input)" in r for r in rows)
        assert any("▸ tool call developer__shell" in r for r in rows)
        assert any("▸ tool response (success" in r for r in rows)
        gauge = main.query_one(ContextGauge)
        assert gauge.usage is not None and gauge.usage.used > 0
        assert gauge.usage.used_source == "estimated"
        # Where the window came from, in words (it said "limit: model-map": a review).
        details = str(gauge.render()).splitlines()[1]
        source = limit_source_text(gauge.usage.limit_source)
        assert f"used: estimated · limit {source} · threshold 80%" in details
        prompt = main.query_one("#input-view", TextViewer).text
        assert "[user]: The test test_parse_dates" in prompt
        assert "Let me run the tests first" not in prompt  # thinking never reaches the model
        # Enter on a message expands it: the full tool output.
        view.focus()
        before = view.row_count
        await pilot.press("down", "down", "enter")
        assert view.selected == 2
        rows = [view.row_text(i) for i in range(view.row_count)]
        assert view.row_count > before
        assert any("1 failed in 0.12s" in r for r in rows)
        # Search the prompt, maximize its pane, copy it, help.
        await pilot.press("slash")
        await paste(pilot, "ValueError")
        await pilot.press("enter")
        viewer = app.main.query_one("#input-view", TextViewer)
        assert app.focused is viewer
        assert len(viewer.matches) >= 1
        await pilot.press("f")
        assert app.screen.maximized is app.main.query_one("#pane-input")
        await pilot.press("y")
        assert app.clipboard == app.inspector.prompt.text
        await pilot.press("escape")
        assert app.screen.maximized is None
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        keys = str(app.screen.query_one("#help-keys").render())
        assert "Compact" in keys and "Save" in keys
        await pilot.press("escape")
        assert app.screen is app.main
        # Narrowed, the panes are tabs.
        await pilot.resize_terminal(100, 40)
        await settle(pilot)
        main = app.main
        assert main.query_one("#pane-tabs").display
        shown = [p.id for p in main.query("#panes > Pane") if p.styles.display != "none"]
        assert shown == ["pane-input"]
        await pilot.click("#tab-markdown")
        await pilot.pause()
        shown = [p.id for p in main.query("#panes > Pane") if p.styles.display != "none"]
        assert shown == ["pane-markdown"]


async def test_a_text_that_is_null_shows_what_the_summarizer_gets(tmp_path: Path) -> None:
    # A walk-through: `"text": null` showed as "None" (collapsed and expanded); the format
    # command writes "" for it, and leaves a tool output whose text is null out.
    import json

    from goose_tui.compaction.format import format_messages

    lines = [
        {"description": "x"},
        {"role": "user", "content": [{"type": "text", "text": None}]},
        {
            "role": "user",
            "content": [
                {
                    "type": "toolResponse",
                    "id": "c1",
                    "toolResult": {
                        "status": "success",
                        "value": {"content": [{"type": "text", "text": None}]},
                    },
                }
            ],
        },
    ]
    session = tmp_path / "s.jsonl"
    session.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    assert "None" not in format_messages(load_session(session).messages)
    app = GooseTUI(session)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        view = app.main.query_one(ConversationView)
        view.focus()
        await pilot.press("enter", "down", "down", "enter")
        await settle(pilot)
        rows = [view.row_text(i) for i in range(view.row_count)]
        assert not any("None" in row for row in rows), rows
        assert "▸ tool response (success, 0 chars)" in "\n".join(rows)


async def test_compact_offline_fills_every_pane_then_a_model_from_the_palette_compacts(
    session_file: Path, reply_file: Path
) -> None:
    app = GooseTUI(session_file, model="offline")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        main = app.main
        assert not isinstance(app.screen, ErrorModal), getattr(app.screen, "message", "")
        assert main.query_one(CompactionStatus).state == "done"
        assert app.inspector.result is not None
        assert app.inspector.result.request.messages[-1].content == SUMMARIZE_REQUEST
        assert (
            main.query_one("#input-view", TextViewer).text
            == app.inspector.result.request.system_prompt
        )
        markdown = main.query_one(SummaryPreview).markdown
        assert markdown.startswith("# Conversation Summary")
        assert "## User Intent" in markdown
        labels = _tree_labels(main.query_one(FieldsTree))
        assert any(label.startswith("user_intent") for label in labels)
        gauge = main.query_one(ContextGauge)
        assert gauge.projected is not None and 0 < gauge.projected
        assert str(main.query_one("#fields-banner").render()).startswith("read ")
        # Another model chosen from the command palette.
        await pilot.press("ctrl+p")
        await pilot.pause()
        await paste(pilot, "replay a reply")
        # The palette searches its providers in a task of its own: wait for the hit.
        await wait_until(pilot, lambda: "Model: replay a reply file…" in palette_options(app))
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, InputPrompt))
        await paste(pilot, str(reply_file))
        await pilot.press("enter")
        await pilot.pause()
        assert app.inspector.model.name == f"replay:{reply_file}"
        await pilot.press("c")
        await settle(pilot)
        assert "Write the changelog entry" in app.main.query_one(SummaryPreview).markdown


async def test_the_prompt_is_counted_once_then_replay_fills_every_pane_and_a_reply_edit_reruns(
    session_file: Path, reply_file: Path, monkeypatch
) -> None:
    # The input pane says how big the prompt is, in tokens, before anything is sent; the
    # compaction that sends it reports the same count without counting it again.
    from goose_tui.compaction import summarize as pipeline
    from goose_tui.tokens import count_tokens
    from goose_tui.tui.widgets.pane import Pane

    counted: list[int] = []
    real = pipeline.request_tokens

    def counting(request) -> int:
        counted.append(real(request))
        return counted[-1]

    monkeypatch.setattr(pipeline, "request_tokens", counting)
    # Textual describes a worker by the repr of its arguments: a request's held the whole
    # prompt (2 s of the loop and +500 MB on a 53 MB session, app_big_session.py).
    from textual.worker import Worker

    described: list[str] = []
    real_init = Worker.__init__

    def recording(self, *args, **kwargs) -> None:
        real_init(self, *args, **kwargs)
        described.append(self.description)

    monkeypatch.setattr(Worker, "__init__", recording)
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        prompt = app.main.query_one("#input-view", TextViewer).text
        tokens = count_tokens(prompt + SUMMARIZE_REQUEST)
        title = str(app.main.query_one("#pane-input", Pane).border_title)
        assert title == f"input · as it will be sent · {tokens:,} tokens"
        await pilot.press("c")
        await settle(pilot)
        assert counted == [tokens]
        assert app.main.query_one(CompactionStatus).attempt.tokens_sent == tokens
        title = str(app.main.query_one("#pane-input", Pane).border_title)
        assert title == f"input · as sent · {tokens:,} tokens"
        # Every pane shows the reply; an edit of the raw reply runs the extraction again.
        main = app.main
        analysis = main.query_one("#analysis-view", TextViewer).text
        assert "user wants the failing date test fixed" in analysis
        labels = _tree_labels(main.query_one(FieldsTree))
        assert "reviewer (extra)" in labels
        assert "src/dates.py" in labels
        markdown = main.query_one(SummaryPreview).markdown
        assert "### src/dates.py" in markdown
        assert "Write the changelog entry" in markdown
        assert main.query_one("#reply-editor").text.startswith("<analysis>")
        await edit(pilot, "r", "just some words")
        banner = str(main.query_one("#fields-banner").render())
        assert banner.startswith("raw-text fallback")
        assert main.query_one(SummaryPreview).markdown == "just some words"
    assert described and max(map(len, described)) < 1_000, max(described, key=len)[:300]


async def test_missing_replay_file_opens_an_error_modal_enter_closes_and_the_app_runs_on(
    session_file: Path, tmp_path: Path
) -> None:
    app = GooseTUI(session_file, model=f"replay:{tmp_path / 'missing.md'}")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, ErrorModal)
        # Enter closes it: it did nothing visible, escape was the only way out.
        await pilot.press("enter")
        assert app.screen is app.main
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, ErrorModal)
        assert "missing.md" in app.screen.message
        await pilot.click("#error-copy")
        assert "missing.md" in app.clipboard
        await pilot.press("escape")
        assert app.screen is app.main
        assert app.main.query_one(CompactionStatus).state == "failed"
        assert app.is_running


async def test_save_writes_new_files_never_the_input_and_a_json_edit_rerenders_when_valid(
    session_file: Path, reply_file: Path
) -> None:
    original = session_file.read_bytes()
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        await pilot.press("s")
        await pilot.press("enter")  # default: the summary JSON beside the session
        await pilot.pause()
        saved = session_file.with_name("small_session.summary.json")
        assert '"reviewer": "extra field kept"' in saved.read_text()

        await pilot.press("s")
        dialog = app.screen
        dialog.query_one("#save-session").value = True
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        # The compacted session as Goose keeps it (goose_tui/session/writer.py): the
        # history hidden from the agent, the summary the one message it sees.
        for kind, suffix in (("session", "jsonl"), ("export", "json")):
            if kind == "export":
                await pilot.press("s")
                app.screen.query_one("#save-export").value = True
                await pilot.pause()
                await pilot.press("enter")
                await pilot.pause()
            compacted = session_file.with_name(f"small_session.compacted.{suffix}")
            loaded = load_session(compacted)
            visible = [m for m in loaded.messages if m.metadata.agent_visible]
            assert [m.role for m in visible] == ["user", "assistant"]  # summary, continuation
            assert visible[0].content[0]["text"] == app.inspector.summary.text
            assert len(loaded.messages) == len(app.inspector.session.messages) + 2

        # Saving there again asks first; "no" keeps the file as it was.
        before = compacted.read_bytes()
        await pilot.press("s")
        app.screen.query_one("#save-export").value = True
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert compacted.read_bytes() == before

        await pilot.press("s")
        field = app.screen.query_one("#save-path")
        field.value = str(session_file)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ErrorModal)
        assert "refusing" in app.screen.message
        await pilot.press("escape")
        await settle(pilot)
        # A JSON edit renders again; invalid JSON keeps the last render.
        main = app.main
        await pilot.press("e")
        editor = main.query_one("#json-editor")
        assert app.focused is editor
        await edit(pilot, None, '{"user_intent": ["Ship v2"], "next_step": 7}')
        markdown = main.query_one(SummaryPreview).markdown
        assert "Ship v2" in markdown and "\n7" in markdown  # read leniently: 7 → "7"
        assert "src/dates.py" not in markdown
        good = markdown
        await pilot.press("end", "backspace")  # drop the closing brace: invalid JSON
        await settle(pilot)
        banner = str(main.query_one("#fields-banner").render())
        assert banner.startswith("invalid JSON") and "line 1" in banner
        assert main.query_one(SummaryPreview).markdown == good
    assert session_file.read_bytes() == original
    leftovers = [p.name for p in session_file.parent.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


async def test_enter_in_the_search_box_says_what_a_threaded_search_found(
    session_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A big prompt is searched in a thread: the note waits for its matches, not "no match".
    import threading

    from goose_tui.tui.widgets import text_viewer

    monkeypatch.setattr(text_viewer, "INDEX_IN_THREAD_CHARS", 100)
    release, real = threading.Event(), text_viewer.find_matches

    def held(lines, search, cancelled=lambda: False):  # noqa: ANN001, ANN202
        if search == "ValueError":  # still searching when Enter comes
            release.wait(30)
        return real(lines, search, cancelled)

    monkeypatch.setattr(text_viewer, "find_matches", held)
    app = GooseTUI(session_file)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        viewer = app.main.query_one("#input-view", TextViewer)
        await pilot.press("slash")
        await paste(pilot, "ValueError")
        await pilot.press("enter")
        assert viewer.searching
        assert app._notifications and [n.message for n in app._notifications][-1] == (
            "searching the prompt…"
        )
        release.set()
        await wait_until(pilot, lambda: not viewer.searching)
        await settle(pilot)
        count = len(viewer.matches)
        assert count >= 1
        notes = [n.message for n in app._notifications]
        assert notes[-1] == f"{count:,} match{'es' if count > 1 else ''} (n / N to move)"


async def test_untrusted_text_is_inert(session_file: Path) -> None:
    app = GooseTUI(session_file)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        view = app.main.query_one(ConversationView)
        first = view.row_text(1)
        assert "[bold]not markup[/bold]" in first  # markup shown as typed
        assert "␛]0;pwned␇" in first and "\x1b" not in first
        screen_text = app.export_screenshot()
        assert "\x1b]0;pwned" not in screen_text and "\x1b[2J" not in screen_text


async def test_a_streamed_reply_is_drawn_at_most_once_per_tick(
    session_file: Path, tmp_path: Path
) -> None:
    # The offline model of a 53 MB session streams a 1.8 MB reply, 48 characters at a time:
    # drawing each chunk (and the status's count) kept the loop repainting for three
    # minutes. Chunks are now gathered and drawn once per status tick (0.1 s).
    from .conftest import REPLY

    analysis = "step by step " * 20_000  # 260 KB: ~4,000 chunks of the replay model
    reply = REPLY.replace("<analysis>", "<analysis>\n" + analysis, 1)
    reply_file = tmp_path / "long-reply.md"
    reply_file.write_text(reply, encoding="utf-8")
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = app.main
        viewer = main.query_one("#analysis-view", TextViewer)
        drawn: list[str] = []
        ticks = 0
        status = main.query_one(CompactionStatus)
        real_append, real_tick = viewer.append, status._tick

        def append(chunk: str) -> None:
            drawn.append(chunk)
            real_append(chunk)

        def tick() -> None:
            nonlocal ticks
            ticks += 1
            real_tick()

        viewer.append = append  # type: ignore[method-assign]
        status._tick = tick  # type: ignore[method-assign]
        await pilot.press("c")
        await settle(pilot)
        assert main.query_one(CompactionStatus).state == "done"
        assert "".join(drawn) == reply  # all of it, in order
        assert 0 < len(drawn) <= ticks  # one draw per tick at most
        assert main.query_one(CompactionStatus).received_chars == len(reply)


async def test_a_long_list_field_shows_its_first_items_and_says_how_many_more() -> None:
    # The tree is built on the event loop: the 15,000 items of a 53 MB session's summary took
    # 0.8 s there. Each list shows ITEMS_SHOWN items and a last leaf for the rest.
    from textual.app import App, ComposeResult

    from goose_tui.compaction.structured import StructuredSummary
    from goose_tui.tui.widgets.fields_tree import ITEMS_SHOWN

    class TreeApp(App[None]):
        def compose(self) -> ComposeResult:
            yield FieldsTree()

    summary = StructuredSummary.model_validate(
        {
            "user_messages": [f"message {n}" for n in range(5_000)],
            "files": [{"path": f"src/m{n}.py", "summary": "s"} for n in range(ITEMS_SHOWN + 1)],
            "pending_tasks": ["one"],
        }
    )
    app = TreeApp()
    async with app.run_test() as pilot:
        tree = app.query_one(FieldsTree)
        tree.show_summary(summary)
        await pilot.pause()
        nodes = {str(node.label).split(" [")[0]: node for node in tree.root.children}
        messages = nodes["user_messages"]
        assert str(messages.label) == "user_messages [5000]"
        shown = [str(child.label) for child in messages.children]
        assert shown[:ITEMS_SHOWN] == [f"message {n}" for n in range(ITEMS_SHOWN)]
        more = f"… {5_000 - ITEMS_SHOWN:,} more (the json tab has them all)"
        assert shown[ITEMS_SHOWN:] == [more]
        files = [str(child.label) for child in nodes["files"].children]
        assert len(files) == ITEMS_SHOWN + 1 and files[-1].startswith("… 1 more")
        assert [str(c.label) for c in nodes["pending_tasks"].children] == ["one"]


async def test_the_title_counts_load_warnings_without_calling_them_skipped_lines(
    tmp_path: Path, session_file: Path
) -> None:
    # A lone surrogate is kept (shown as \ud800) with a note; the title said "1 lines
    # skipped" for it, though nothing was skipped. A broken line is skipped.
    from textual.widgets import Static

    lines = session_file.read_text().splitlines()
    lines[1] = lines[1].replace("The test", "The \\ud800 test", 1)
    session = tmp_path / "noted.jsonl"
    session.write_text("\n".join(lines) + "\n")
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join([*lines, "{not json"]) + "\n")
    for path, expected in (
        (session, "· 1 load warning (first: line 2: "),
        (broken, "· 2 load warnings"),
    ):
        app = GooseTUI(path)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            title = str(app.main.query_one("#session-title", Static).render())
            assert expected in title and "skipped (first" not in title, title
            # Said before the path (a narrow terminal cuts the end), and as a toast.
            assert title.index(expected) < title.index(str(path)), title
            assert any(str(n.message).startswith(expected[2:]) for n in app._notifications)


@pytest.mark.parametrize(
    "content", [b"", b"\x00\x01\xff binary", b"this is not json\n"], ids=["empty", "binary", "text"]
)
async def test_with_no_session_no_loading_screen_stays_and_the_hints_say_how_to_open_one(
    tmp_path: Path, content: bytes
) -> None:
    # After the error modal, the screen said "goose-tui · loading…" and "counting tokens…"
    # for ever; the status line and the analysis pane said "press c to compact", and c then
    # answered "no session loaded yet".
    from textual.widgets import Static

    broken = tmp_path / "not-a-session.jsonl"
    broken.write_bytes(content)
    app = GooseTUI(broken)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ErrorModal)
        await pilot.press("escape")
        await settle(pilot)
        title = str(app.main.query_one("#session-title", Static).render())
        assert "loading" not in title and "no session open" in title and "o opens one" in title
        gauge = str(app.main.query_one(ContextGauge).render())
        assert "counting" not in gauge and "no session" in gauge
        status = app.main.query_one(CompactionStatus).render_line(0).text
        analysis = app.main.query_one("#analysis-view", TextViewer)
        assert "to compact" not in status and "to compact" not in analysis.placeholder
        assert status.startswith("no session open · press o to open one"), status
        assert analysis.placeholder == "no session open · press o to open one"
        # The keys that need a session say the same, not "no session loaded yet".
        for key in ("c", "l", "g", "u", "v"):
            app.clear_notifications()
            await pilot.press(key)
            await settle(pilot)
            assert [n.message for n in app._notifications] == [
                "no session open · press o to open one"
            ], key
        app.load_session(Path(__file__).parent / "data" / "small_session.jsonl", None)
        await settle(pilot)  # a session opened: the hints are the compact key's again
        status = app.main.query_one(CompactionStatus).render_line(0).text
        assert status.startswith("press c to compact") and "no session" not in status, status
        assert analysis.placeholder == "press c to compact"


async def test_lines_too_long_for_a_narrow_terminal_end_in_an_ellipsis(
    session_file: Path, reply_file: Path
) -> None:
    # At 90 columns the gauge's details and the status line after a compaction were cut
    # mid-figure ("after compaction: 2,351", "/ out") with nothing to say more was there.
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(90, 40)) as pilot:
        await compacted(pilot)
        details = app.main.query_one(ContextGauge).render_line(1).text.rstrip()
        status = app.main.query_one(CompactionStatus).render_line(0).text.rstrip()
    assert details.startswith("after compaction: ") and details.endswith("…"), details
    assert status.startswith("done") and status.endswith("…"), status


async def test_the_gauge_names_the_sessions_model_apart_from_the_summarizer() -> None:
    # Two "model …" on one screen (the gauge's "model qwen2.5-coder:14b" over the status
    # line's "model offline"): which one compacts? (a review). The gauge's is the session's.
    app = GooseTUI(None)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        details = app.main.query_one(ContextGauge).render_line(1).text
        status = app.main.query_one(CompactionStatus).render_line(0).text
    assert "· session model qwen2.5-coder:14b" in details, details
    assert "model offline" in status and "session model" not in status, status
