"""Live template overrides, the template editor, cancelling and model errors through a
loopback OpenAI-compatible server."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from textual.widgets import Input

from goose_tui.compaction.templates import builtin_prompts_dir
from goose_tui.tui.app import GooseTUI
from goose_tui.tui.screens.confirm import ConfirmScreen
from goose_tui.tui.screens.error_modal import ErrorModal
from goose_tui.tui.screens.session_picker import SessionPicker
from goose_tui.tui.screens.template_editor import TemplateEditor
from goose_tui.tui.widgets.compaction_status import CompactionStatus
from goose_tui.tui.widgets.pane import Pane
from goose_tui.tui.widgets.summary_preview import SummaryPreview
from goose_tui.tui.widgets.text_viewer import TextViewer
from tests.loopback import LoopbackServer, Reply

from .conftest import (
    MODEL_CALL_SECONDS,
    REPLY,
    edit,
    paste,
    rewrite,
    screen_text,
    settle,
    wait_until,
)


async def test_override_file_change_on_disk_rerenders(
    session_file: Path, reply_file: Path, prompts: Path
) -> None:
    app = GooseTUI(session_file, model=f"replay:{reply_file}", prompts_dir=prompts)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        # A compaction template change rebuilds the prompt.
        viewer = app.main.query_one("#input-view", TextViewer)
        rewrite(prompts / "compaction.md", "SUMMARIZE THIS\n{{ messages }}")
        await wait_until(pilot, lambda: viewer.text.startswith("SUMMARIZE THIS\n[user]:"))
        await pilot.press("c")
        await settle(pilot)
        preview = app.main.query_one(SummaryPreview)
        assert preview.markdown.startswith("# Conversation Summary")
        override = prompts / "compaction_summary.md"
        rewrite(override, "# Custom\n{% for i in user_intent %}* {{ i }}\n{% endfor %}")
        await wait_until(pilot, lambda: preview.markdown.startswith("# Custom"))
        assert "* Fix test_parse_dates" in preview.markdown
        # The gauge's "after compaction" counts the summary the new template rendered.
        from goose_tui.compaction.summarize import summary_message
        from goose_tui.tokens import TokenCounter
        from goose_tui.tui.widgets.context_gauge import ContextGauge

        expected = TokenCounter().total([summary_message(preview.markdown)])
        gauge = app.main.query_one(ContextGauge)
        await wait_until(pilot, lambda: gauge.projected == expected)
        subtitle = str(app.main.query_one("#pane-markdown", Pane).border_subtitle)
        assert str(override) in subtitle
        good = preview.markdown
        rewrite(override, "# Broken\n\n{% for i in user_intent %}\n")
        banner = app.main.query_one("#fields-banner")
        await wait_until(pilot, lambda: str(banner.render()).startswith("template error"))
        assert f"{override}:" in str(banner.render())
        assert preview.markdown == good


async def test_keys_reaching_a_picker_early_or_late_do_nothing_and_saving_over_a_changed_override(
    session_file: Path, tmp_path: Path
) -> None:
    # A crash: enter reached the picker before it was composed (or as it closed), and
    # action_choose's query_one(Input) raised NoMatches, which ended the app. After it was
    # dismissed, a second enter would have dismissed it again: popping the inspector.
    from goose_tui.session.loader import list_sessions

    sessions = list_sessions(_two_sessions(tmp_path, session_file))
    target = Path(os.environ["XDG_CONFIG_HOME"]) / "goose" / "prompts" / "compaction.md"
    app = GooseTUI(session_file)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        chosen: list[object] = []
        picker = SessionPicker(sessions, "many")
        app.push_screen(picker, chosen.append)
        picker.action_choose()  # not composed yet
        picker.action_cursor(1)
        await settle(pilot)
        assert app.screen is picker and chosen == []
        picker.action_choose()  # enter: the first session chosen
        picker.action_choose()  # enter again, before the dismissed picker is removed
        picker.action_cursor(1)
        await settle(pilot)
        picker.action_choose()  # dismissed and removed
        picker.action_cursor(-1)
        await settle(pilot)
        assert chosen == [picker.shown[0]]
        assert app.screen is app.main and app.is_running
        # The second ctrl+s asked the generic "Save this template as an override?" and
        # replaced the file another program had written meanwhile: it asks about that.

        async def edit_and_save(text: str) -> ConfirmScreen:
            await pilot.press("T")
            assert isinstance(app.screen, TemplateEditor)
            await edit(pilot, None, text)
            await pilot.press("ctrl+s")
            assert isinstance(app.screen, ConfirmScreen)
            return app.screen

        first = await edit_and_save("FIRST\n{{ messages }}")
        assert first.question.startswith("Save this template as an override?")
        await pilot.press("y")
        await settle(pilot)
        assert target.read_text() == "FIRST\n{{ messages }}"

        await pilot.press("T")
        editor = app.screen
        assert isinstance(editor, TemplateEditor)
        rewrite(target, "OUTSIDE\n{{ messages }}")  # another program writes it meanwhile
        await edit(pilot, None, "SECOND\n{{ messages }}")
        await pilot.press("ctrl+s")
        question = app.screen
        assert isinstance(question, ConfirmScreen)
        assert question.question.startswith(
            "compaction.md changed on disk since you opened it; replace it?"
        )
        await pilot.press("escape")  # No: both stay, the file and the edit
        assert app.screen is editor and editor.text == "SECOND\n{{ messages }}"
        assert target.read_text() == "OUTSIDE\n{{ messages }}"
        await pilot.press("ctrl+s")
        await pilot.press("y")
        await settle(pilot)
        assert target.read_text() == "SECOND\n{{ messages }}"
        assert app.screen is app.main


async def test_saving_where_an_override_appeared_since_the_editor_opened_asks_about_that(
    session_file: Path, prompts: Path
) -> None:
    app = GooseTUI(session_file, prompts_dir=prompts)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("t")
        editor = app.screen
        assert isinstance(editor, TemplateEditor)
        target = prompts / "compaction_summary.md"
        target.write_text("OUTSIDE", encoding="utf-8")
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.question.startswith(
            "compaction_summary.md was created on disk since you opened the editor; replace it?"
        )
        await pilot.press("escape")
        assert target.read_text() == "OUTSIDE" and app.screen is editor
        await pilot.press("ctrl+s")
        target.write_text("OUTSIDE AGAIN", encoding="utf-8")  # while the question is up
        await pilot.press("y")
        assert isinstance(app.screen, ConfirmScreen)  # asked again, nothing written
        assert target.read_text() == "OUTSIDE AGAIN"


async def test_an_override_that_cannot_be_written_names_it_not_the_temporary_file(
    session_file: Path, prompts: Path, monkeypatch
) -> None:
    from goose_tui import files

    def refused(target: Path) -> tuple[int, Path]:
        raise PermissionError(13, "Permission denied", str(target.with_name(".goose-tui-1.tmp")))

    monkeypatch.setattr(files, "_temp_beside", refused)
    app = GooseTUI(session_file, prompts_dir=prompts)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("t", "ctrl+s", "y")
        target = prompts / "compaction_summary.md"
        assert [n.message for n in app._notifications] == [
            f"not saved: {target}: cannot write: Permission denied (no file can be created in "
            f"{prompts})"
        ]
        assert isinstance(app.screen, TemplateEditor)


async def test_a_summary_template_is_checked_before_there_is_a_summary(
    session_file: Path, reply_file: Path, prompts: Path
) -> None:
    # Found by a walk-through: with no summary yet, the editor said "rendered" for a template
    # that cannot render (an unknown filter) and ctrl+s saved it into Goose's prompts folder
    # without the warning; it said "(Goose reads it too)" of a --prompts-dir folder as well.
    app = GooseTUI(session_file, model=f"replay:{reply_file}", prompts_dir=prompts)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("t")
        editor = app.screen
        assert isinstance(editor, TemplateEditor)
        status = editor.query_one("#template-status")
        await edit(pilot, None, "{{ user_intent | upper }}")
        assert "upper" in str(status.render()), str(status.render())
        assert "rendered" not in str(status.render())
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, ConfirmScreen)
        assert "does not render" in app.screen.question
        assert "Goose reads it too" not in app.screen.question
        await pilot.press("escape")
        await edit(pilot, None, "# Mine {{ next_step }}")
        assert "with an empty summary" in str(status.render()), str(status.render())
        assert app.inspector.summary.text == ""  # still no summary
        assert app.inspector.templates.summary.source.origin == "edited"


async def test_escape_cancels_a_streaming_compaction(session_file: Path) -> None:
    with LoopbackServer([Reply.stream_then_hang("first words ")]) as server:
        app = GooseTUI(session_file, model="openai/test-model", api_base=f"{server.url}/v1")
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("c")
            status = app.main.query_one(CompactionStatus)
            analysis = app.main.query_one("#analysis-view", TextViewer)
            await wait_until(
                pilot, lambda: "first words" in analysis.text, timeout=MODEL_CALL_SECONDS
            )
            assert status.state == "running"
            await pilot.press("escape")
            await wait_until(pilot, lambda: status.state == "cancelled")
            assert not isinstance(app.screen, ErrorModal)
            assert app.inspector.session is not None and len(app.inspector.session.messages) == 9
            assert str(app.main.query_one("#pane-analysis", Pane).border_title) == (
                "analysis · partial reply, not used"
            )


async def _cancel_once_the_request_is_out(pilot, server: LoopbackServer) -> None:
    """Press c, wait for the model's request, press escape, wait for the cancel."""
    await pilot.press("c")
    await wait_until(pilot, lambda: bool(server.requests), timeout=MODEL_CALL_SECONDS)
    await pilot.press("escape")
    status = pilot.app.main.query_one(CompactionStatus)
    await wait_until(pilot, lambda: status.state == "cancelled")


async def test_a_cancelled_compaction_says_the_summary_shown_is_the_previous_one(
    session_file: Path,
) -> None:
    # After a cancel the fields and markdown panes kept the last summary with nothing to say
    # it was not this compaction's (a tmux walk-through).
    from goose_tui.inspector import PREVIOUS_SUMMARY, Notice

    reply = session_file.parent / "reply.md"
    reply.write_text(REPLY)
    with LoopbackServer([Reply.hang()]) as server:
        app = GooseTUI(session_file, model=f"replay:{reply}", api_base=f"{server.url}/v1")
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("c")
            await settle(pilot)
            assert "previous" not in app.main.notice.message
            app.set_model("openai/test-model")
            await _cancel_once_the_request_is_out(pilot, server)
            assert app.main.notice == Notice(PREVIOUS_SUMMARY, "fallback")
            assert "Write the changelog entry" in app.main.query_one(SummaryPreview).markdown


async def test_save_during_the_first_compaction_says_it_runs_and_a_cancel_says_no_reply_came(
    session_file: Path,
) -> None:
    # A walk-through: s said "no summary yet: press c to compact" while c's compaction ran.
    with LoopbackServer([Reply.hang()]) as server:
        app = GooseTUI(session_file, model="openai/test-model", api_base=f"{server.url}/v1")
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("c")
            await wait_until(pilot, lambda: bool(server.requests), timeout=MODEL_CALL_SECONDS)
            await pilot.press("s")
            await pilot.pause()
            assert [str(n.message) for n in app._notifications][-1] == (
                "no summary yet: a compaction is running (wait for it, or escape cancels it)"
            )
            await pilot.press("escape")
            status = app.main.query_one(CompactionStatus)
            await wait_until(pilot, lambda: status.state == "cancelled")
            # Cancelled before any reply: it said "partial reply, not used" over an empty pane.
            assert (
                str(app.main.query_one("#pane-analysis", Pane).border_title)
                == "analysis · no reply"
            )
            # Not "press c to compact", as if nothing had been tried.
            view = app.main.query_one("#analysis-view", TextViewer)
            assert view.placeholder == "cancelled before any reply · press c to compact again"


async def test_model_error_opens_one_modal_and_edits_survive(session_file: Path) -> None:
    with LoopbackServer([Reply.server_error()]) as server:
        app = GooseTUI(session_file, model="openai/test-model", api_base=f"{server.url}/v1")
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("c")
            await wait_until(
                pilot, lambda: isinstance(app.screen, ErrorModal), timeout=MODEL_CALL_SECONDS
            )
            assert app.screen.error_title == "Compaction failed"
            await pilot.press("escape")
            assert app.main.query_one(CompactionStatus).state == "failed"
            # The app still works: a replay compaction succeeds afterwards.
            reply = session_file.parent / "reply.md"
            reply.write_text(REPLY)
            app.set_model(f"replay:{reply}")
            await pilot.press("c")
            await settle(pilot)
            assert "Write the changelog entry" in app.main.query_one(SummaryPreview).markdown


def _two_sessions(tmp_path: Path, session_file: Path) -> Path:
    """A folder of two sessions: the small one and a copy titled "Refactor the CLI"."""
    folder = tmp_path / "many"
    folder.mkdir()
    shutil.copy(session_file, folder / "dates.jsonl")
    other = session_file.read_text().replace("Fix date parsing test", "Refactor the CLI")
    (folder / "cli.jsonl").write_text(other)
    return folder


async def test_picker_filters_and_opens(tmp_path: Path, session_file: Path) -> None:
    folder = _two_sessions(tmp_path, session_file)
    app = GooseTUI(folder)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        picker = app.screen
        assert picker.__class__.__name__ == "SessionPicker"
        assert len(picker.shown) == 2
        await paste(pilot, "refactor")
        assert [info.name or info.description for info in picker.shown] == ["Refactor the CLI"]
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is app.main
        assert (
            app.inspector.session is not None and app.inspector.session.title == "Refactor the CLI"
        )


async def test_the_picker_opens_a_typed_path(tmp_path: Path, session_file: Path) -> None:
    # A walk-through: `o` listed recent sessions and the folder, but a session elsewhere
    # could only be opened by restarting the app on it.
    folder = _two_sessions(tmp_path, session_file)
    elsewhere = tmp_path / "elsewhere.jsonl"
    shutil.copy(folder / "cli.jsonl", elsewhere)
    app = GooseTUI(folder)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        picker = app.screen
        assert isinstance(picker, SessionPicker)
        await paste(pilot, str(tmp_path / "nowhere.jsonl"))
        assert "no such file or folder" in str(picker.query_one("#picker-title").render())
        await pilot.press("enter")
        assert app.screen is picker
        assert any("nowhere.jsonl: no such file" in str(n.message) for n in app._notifications)
        picker.query_one(Input).value = ""
        await paste(pilot, str(elsewhere))
        assert f"enter: open {elsewhere}" in str(picker.query_one("#picker-title").render())
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is app.main
        session = app.inspector.session
        assert session is not None and session.source_path == elsewhere
        await pilot.press("o")  # a folder typed: its sessions listed
        await settle(pilot)
        app.screen.query_one(Input).value = ""
        await paste(pilot, str(folder))
        await pilot.press("enter")
        await settle(pilot)
        listed = app.screen
        assert isinstance(listed, SessionPicker) and listed is not picker
        assert sorted(info.path.name for info in listed.sessions) == ["cli.jsonl", "dates.jsonl"]


async def test_a_prompt_template_that_fails_to_render_says_why_in_the_input_pane(
    session_file: Path, tmp_path: Path
) -> None:
    # The modal said "prompt failed: …compaction.md:1: unknown filter: …", and after it was
    # closed (and after c, which failed the same way) the pane read "building prompt…".
    prompts = tmp_path / "bad"
    prompts.mkdir()
    (prompts / "compaction.md").write_text("{{ messages | upper }}\n", encoding="utf-8")
    app = GooseTUI(session_file, prompts_dir=prompts)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, ErrorModal) and "unknown filter" in modal.message
        reason = modal.message
        await pilot.press("escape", "c")
        await settle(pilot)
        assert isinstance(app.screen, ErrorModal)
        await pilot.press("escape")
        await settle(pilot)
        # The analysis pane said "press c to compact", as if c had not just failed.
        analysis = app.main.query_one("#analysis-view", TextViewer)
        assert (
            analysis.placeholder == "the compaction failed before any reply · press c to try again"
        )
        view = app.main.query_one("#input-view", TextViewer)
        assert view.placeholder == f"the prompt could not be built: {reason}"
        shown = " ".join(" ".join(screen_text(app)).replace("\xa0", " ").split())
        assert "the prompt could not be built:" in shown and "filter upper is unknown" in shown
        assert "building prompt" not in shown
        assert "could not be built" in str(app.main.query_one("#pane-input", Pane).border_title)
        # Mended on disk: the prompt is built and shown.
        rewrite(prompts / "compaction.md", "{{ messages }}\n")
        await wait_until(pilot, lambda: bool(app.inspector.prompt.text))
        await settle(pilot)
        assert "could not be built" not in str(app.main.query_one("#pane-input", Pane).border_title)


async def test_the_api_base_survives_switching_to_another_model_and_back(
    session_file: Path, tmp_path: Path
) -> None:
    # A walk-through found `--api-base` lost once the model went through offline or a
    # replay: the litellm model typed afterwards went to the provider's cloud ("no API key").
    reply = tmp_path / "reply.md"
    reply.write_text(REPLY)
    with LoopbackServer([Reply.ok(REPLY)]) as server:
        app = GooseTUI(session_file, model="openai/test-model", api_base=f"{server.url}/v1")
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            app.set_model("offline")
            app.set_model(f"replay:{reply}")
            app.set_model("openai/test-model")
            assert app.inspector.model.api_base == f"{server.url}/v1"
            await settle(pilot)
            await pilot.press("c")
            await settle(pilot)
            assert len(server.requests) == 1
            assert "Write the changelog entry" in app.main.query_one(SummaryPreview).markdown


async def test_template_edits_that_do_not_render_ask_a_good_one_saves_or_is_kept_when_left(
    session_file: Path, reply_file: Path
) -> None:
    # A broken edit was dropped on escape without a word (the panes keep the last good
    # render, and so did the template), and q then quit without asking. Escape within the
    # debounce's pause left a good edit unapplied: it was lost, and the cancelled wait
    # warned "coroutine ... was never awaited" on exit.
    import gc
    import warnings

    config = Path(os.environ["XDG_CONFIG_HOME"])
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("T")
            assert isinstance(app.screen, TemplateEditor)
            editor = app.screen
            await pilot.press("home")
            await paste(pilot, "Mine {% if %}")
            await settle(pilot)
            assert "syntax error" in str(editor.query_one("#template-status").render())
            # ctrl+s saved a failing template into Goose's prompts folder with the plain
            # question (compact then gave a raw-text fallback).
            await pilot.press("ctrl+s")
            await settle(pilot)
            assert isinstance(app.screen, ConfirmScreen)
            assert (
                "does not render" in app.screen.question
                and "Goose reads it too" in app.screen.question
            )
            await pilot.press("escape")
            await settle(pilot)
            assert not (config / "goose" / "prompts" / "compaction.md").exists()
            await pilot.press("escape")
            await settle(pilot)
            assert isinstance(app.screen, ConfirmScreen)
            assert "does not render" in app.screen.question
            await pilot.press("escape")  # no: back to the edit, as it was
            await settle(pilot)
            assert app.screen is editor and editor.text.startswith("Mine {% if %}")
            await pilot.press("ctrl+q")  # quitting asks too
            await settle(pilot)
            assert isinstance(app.screen, ConfirmScreen) and "compaction.md" in app.screen.question
            await pilot.press("escape")
            await settle(pilot)
            await pilot.press("escape")
            await settle(pilot)
            await pilot.press("y")  # yes: the edit is dropped, the template as it was
            await settle(pilot)
            assert app.screen is app.main
            assert app.inspector.templates.compaction.source.origin == "built-in"
            # A good edit of the summary template, saved as an override.
            await pilot.press("c")
            await settle(pilot)
            await pilot.press("t")
            assert isinstance(app.screen, TemplateEditor)
            assert "built-in" in str(app.screen.query_one("#template-source").render())
            await edit(pilot, None, "# Mine {{ next_step }}")
            assert app.inspector.templates.summary.source.origin == "edited"
            assert app.main.query_one(SummaryPreview).markdown == "# Mine Write the changelog entry"
            await pilot.press("ctrl+s")
            assert isinstance(app.screen, ConfirmScreen)
            target = config / "goose" / "prompts" / "compaction_summary.md"
            assert str(target) in app.screen.question
            await pilot.press("y")
            await pilot.pause()
            assert target.read_text() == "# Mine {{ next_step }}"
            assert app.screen is app.main
            assert app.inspector.templates.summary.source.path == target
            # The built-in template is untouched.
            builtin = builtin_prompts_dir() / "compaction_summary.md"
            assert "Mine" not in builtin.read_text()
            # The last key typed, then escape at once: the edit is kept.
            await pilot.press("t")
            area = app.screen.query_one("#template-text")
            area.select_all()
            await paste(pilot, "# Left {{ next_step }")
            await pilot.press("}", "escape")  # the last key typed, then escape at once
            await settle(pilot)
            assert app.screen is app.main
            assert app.inspector.templates.summary.text == "# Left {{ next_step }}"
        gc.collect()
    assert not [w for w in caught if "never awaited" in str(w.message)]
