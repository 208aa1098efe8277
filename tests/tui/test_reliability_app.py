"""Issue 11, the app's part: the user's files and edits are never lost, a slow template never
freezes the app, and no file name, path, toast or dialog sends a byte to the terminal unasked.
Real keys on the real app; waits are ``settle`` (or a condition), never a time."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, RadioButton, TabbedContent, TextArea

from goose_tui.inert import inert, restore
from goose_tui.pieces import Pieces
from goose_tui.samples import samples_dir
from goose_tui.saving import default_target
from goose_tui.session.models import Session
from goose_tui.tui.app import GooseTUI
from goose_tui.tui.screens.confirm import ConfirmScreen
from goose_tui.tui.screens.error_modal import ErrorModal
from goose_tui.tui.screens.help import HelpScreen
from goose_tui.tui.screens.save_dialog import SaveDialog
from goose_tui.tui.screens.template_editor import TemplateEditor
from goose_tui.tui.widgets.compaction_status import CompactionStatus
from goose_tui.tui.widgets.summary_preview import SummaryPreview

from .conftest import compacted, paste, settle, wait_until

RE_RENDERED = "edited by hand: read leniently and re-rendered"


def _banner(app: GooseTUI) -> str:
    return str(app.main.query_one("#fields-banner").render())


async def _hand_edited(pilot) -> None:
    """Compacted, then the summary JSON edited by hand (left unsaved)."""
    await compacted(pilot)
    await pilot.press("e", "end", "enter", "space")
    await settle(pilot)


# -- saving ------------------------------------------------------------------------------


async def test_choosing_another_kind_puts_the_cursor_at_the_end_of_its_path(
    session_file: Path, reply_file: Path, tmp_path: Path
) -> None:
    # Found by a walk-through: the path was replaced but the cursor stayed where the shorter
    # one ended, so ctrl+u and a typed name left the old tail after it ("….jsonlonl").
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(200, 50)) as pilot:
        await compacted(pilot)
        await pilot.press("s")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, SaveDialog)
        await pilot.press("shift+tab", "down", "down", "enter")  # a compacted session
        await settle(pilot)
        path = dialog.query_one(Input)
        assert path.value.endswith(".jsonl") and dialog.kind != "json"
        # Which kind is chosen shows in the mark's shape, not its colour alone (a review:
        # each button drew the same ●, dim or bright).
        marks = {
            str(button.id): str(button.render()).split()[0] for button in dialog.query(RadioButton)
        }
        assert marks == {
            "save-json": "▐○▌",
            "save-markdown": "▐○▌",
            "save-session": "▐●▌",
            "save-export": "▐○▌",
            "save-report": "▐○▌",
            "save-goose-db": "▐○▌",
        }, marks
        assert path.cursor_position == len(path.value)
        target = tmp_path / "mine.jsonl"
        assert app.focused is path  # a kind chosen: back on the path, for enter to write
        await pilot.press("ctrl+u")
        await paste(pilot, str(target))
        await pilot.press("enter")
        await settle(pilot)
        assert target.is_file()
        assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("mine")) == [
            "mine.jsonl"
        ]


async def test_save_asks_before_replacing_an_existing_file(
    session_file: Path, reply_file: Path
) -> None:
    existing = session_file.with_name("small_session.summary.json")
    existing.write_text("keep me\n")
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(200, 50)) as pilot:
        await compacted(pilot)
        await pilot.press("s")
        await settle(pilot)
        await pilot.press("enter")  # the default target: the file that already exists
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert str(existing) in app.screen.question and "Replace" in app.screen.question
        await pilot.press("escape")  # no: the file is kept
        await settle(pilot)
        assert app.screen is app.main
        assert existing.read_text() == "keep me\n"

        await pilot.press("s")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        assert '"reviewer": "extra field kept"' in existing.read_text()


async def test_save_default_is_never_inside_the_package_or_the_samples(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, session_file: Path
) -> None:
    """No argument opens the bundled sample; its folder ships with goose-tui (inside the
    installed package for a wheel), so the default goes to the current directory. A session
    in a writable folder of the user's keeps its own folder."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    app = GooseTUI()
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        assert app.inspector.session is not None
        assert app.inspector.session.source_path.parent == samples_dir()
        await pilot.press("c")  # (no summary yet: `s` says so and asks nothing)
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        target = Path(app.screen.query_one("#save-path", Input).value)
        assert target == work / "long_session.summary.json"
    app = GooseTUI(session_file)
    async with app.run_test(size=(200, 50)) as pilot:
        await compacted(pilot)
        await pilot.press("s")
        await settle(pilot)
        target = Path(app.screen.query_one("#save-path", Input).value)
        assert target.parent == session_file.parent


def _unwritable_folder(tmp_path: Path) -> Path | None:
    """A folder this process cannot write: a read-only one of its own, or (as root, who may
    write anywhere chmod allows) a read-only mount if the machine has one."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    if not os.access(folder, os.W_OK):
        return folder
    for candidate in (Path("/proc/sys"), Path("/sys/fs")):
        if candidate.is_dir() and not os.access(candidate, os.W_OK):
            return candidate
    return None


def test_save_default_leaves_an_unwritable_session_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _unwritable_folder(tmp_path)
    if folder is None:
        pytest.skip("no folder this process cannot write (root, and no read-only mount)")
    monkeypatch.chdir(tmp_path)
    session = Session(id="s1", source_path=folder / "s1.jsonl")
    assert default_target(session, "json") == tmp_path / "s1.summary.json"


def test_save_default_leaves_a_current_directory_that_ships_with_goose_tui(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Started from inside the samples folder on the bundled sample: the home folder."""
    monkeypatch.chdir(samples_dir())
    session = Session(id="s1", source_path=samples_dir() / "long_session.jsonl")
    assert default_target(session, "json") == Path.home() / "long_session.summary.json"


async def _save_dialog_path(app: GooseTUI, pilot: Pilot[None]) -> Input:
    """Compacted, then the save dialog (s): its path field."""
    await compacted(pilot)
    await pilot.press("s")
    await settle(pilot)
    return app.screen.query_one("#save-path", Input)


async def test_a_failed_save_names_the_path_and_why_not_the_temporary_file(
    session_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A walk-through, saving to /proc/x.json: "Not saved · [Errno 2] No such file or
    # directory: '/proc/.goose-tui-789fe3ead71f.tmp'".
    from goose_tui import files

    def refused(target: Path) -> tuple[int, Path]:
        tmp = target.with_name(".goose-tui-789fe3ead71f.tmp")
        raise FileNotFoundError(2, "No such file or directory", str(tmp))

    monkeypatch.setattr(files, "_temp_beside", refused)
    app = GooseTUI(session_file)
    async with app.run_test(size=(200, 50)) as pilot:
        field = await _save_dialog_path(app, pilot)
        target = session_file.with_name("x.json")
        field.value = inert(str(target))
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ErrorModal)
        assert app.screen.message == (
            f"{target}: cannot write: No such file or directory (no file can be created in "
            f"{target.parent})"
        )


async def test_save_dialog_does_not_start_with_its_path_selected(session_file: Path) -> None:
    app = GooseTUI(session_file)
    async with app.run_test(size=(200, 50)) as pilot:
        field = await _save_dialog_path(app, pilot)
        default = field.value
        assert app.focused is field
        await pilot.press("x")  # one key must not wipe the path
        assert field.value == default + "x"


async def test_enter_on_an_empty_save_path_says_a_path_is_needed(session_file: Path) -> None:
    # A walk-through: enter did nothing and said nothing.
    app = GooseTUI(session_file)
    async with app.run_test(size=(200, 50)) as pilot:
        field = await _save_dialog_path(app, pilot)
        field.value = "  "
        await pilot.press("enter")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, SaveDialog)
        note = dialog.query_one("#save-note")
        assert str(note.render()) == "type a path to save to (escape cancels)"
        await pilot.press("x")  # typing a path: the note has been read
        assert str(note.render()) == ""


async def test_choosing_the_kind_keeps_a_path_the_user_typed(session_file: Path) -> None:
    # Choosing "summary Markdown" after typing a path put the default path back.
    app = GooseTUI(session_file)
    async with app.run_test(size=(200, 50)) as pilot:
        field = await _save_dialog_path(app, pilot)
        app.screen.query_one("#save-markdown", RadioButton).value = True  # untouched: follows
        await settle(pilot)
        assert field.value.endswith(".summary.md")
        field.value = "/tmp/my_own_name.md"
        app.screen.query_one("#save-session", RadioButton).value = True
        await settle(pilot)
        assert field.value == "/tmp/my_own_name.md"


# -- editors and quitting ------------------------------------------------------------------


async def test_escape_leaves_every_editor_without_typing_into_it(
    session_file: Path, reply_file: Path
) -> None:
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(200, 50)) as pilot:
        await compacted(pilot)
        main = app.main
        for key, editor_id in (("e", "#json-editor"), ("r", "#reply-editor")):
            editor = main.query_one(editor_id, TextArea)
            before = editor.text
            await pilot.press(key)
            assert app.focused is editor
            await pilot.press("escape")
            assert not isinstance(app.focused, TextArea)
            await pilot.press("m")  # a key after escape is a command again, not text
            assert editor.text == before
            await settle(pilot)
        await pilot.press("t")
        assert isinstance(app.screen, TemplateEditor)
        assert isinstance(app.focused, TextArea)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is main
        assert app.inspector.templates.summary.source.origin == "built-in"


async def test_quit_with_an_unsaved_hand_edit_asks_first(
    session_file: Path, reply_file: Path
) -> None:
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(200, 50)) as pilot:
        await _hand_edited(pilot)
        await pilot.press("escape", "q")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert "hand-edited summary JSON" in app.screen.question
        await pilot.press("escape")  # no: keep working
        await settle(pilot)
        assert app.screen is app.main and app.is_running
        await pilot.press("s")
        await settle(pilot)
        await pilot.press("enter")  # saved: nothing is lost by quitting now
        await settle(pilot)
        assert session_file.with_name("small_session.summary.json").is_file()
        assert app.return_code is None
        await pilot.press("q")
        assert app.return_code == 0  # quit at once, without asking


async def test_saving_over_a_json_edit_that_does_not_parse_asks_and_keeps_it_unsaved(
    session_file: Path, reply_file: Path
) -> None:
    # Found by a walk-through: with the JSON editor's text not parsing, `s` wrote the last
    # good summary and said "saved", and `q` then quit without asking: the edit was lost.
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(200, 50)) as pilot:
        await compacted(pilot)
        await pilot.press("e", "end", "backspace")  # drop the closing brace: no JSON
        await settle(pilot)
        assert _banner(app).startswith("invalid JSON")
        broken = app.main.query_one("#json-editor", TextArea).text
        await pilot.press("escape", "s")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert "does not parse" in app.screen.question
        await pilot.press("escape")  # no: nothing is written
        await settle(pilot)
        assert app.screen is app.main
        target = session_file.with_name("small_session.summary.json")
        assert not target.exists()
        await pilot.press("s")
        await settle(pilot)
        await pilot.press("y")  # yes: the last good summary, without the edit
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert target.is_file()
        assert any("the last good summary" in n.message for n in app._notifications)
        assert app.main.query_one("#json-editor", TextArea).text == broken  # still there
        await pilot.press("q")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)  # the edit itself was never saved
        assert "hand-edited summary JSON" in app.screen.question
        assert app.return_code is None


async def test_undo_back_to_valid_json_clears_the_invalid_banner_at_once(
    session_file: Path, reply_file: Path
) -> None:
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(200, 50)) as pilot:
        await compacted(pilot)
        loaded_banner = _banner(app)
        good = app.main.query_one(SummaryPreview).markdown
        await pilot.press("e", "end", "backspace")  # drop the opening brace
        await settle(pilot)
        assert _banner(app).startswith("invalid JSON")
        await pilot.press("ctrl+z")
        await pilot.pause()  # the key handled, no debounce or render waited for
        assert not _banner(app).startswith("invalid JSON")
        await settle(pilot)
        assert _banner(app) == loaded_banner
        assert app.main.query_one(SummaryPreview).markdown == good

        # An edit that renders, broken, then undone to the edit: valid again at once.
        await pilot.press("end", "enter", "space")
        await settle(pilot)
        assert _banner(app) == RE_RENDERED
        await pilot.press("backspace", "backspace", "backspace")
        await settle(pilot)
        assert _banner(app).startswith("invalid JSON")
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert not _banner(app).startswith("invalid JSON")


# -- a slow summary template ---------------------------------------------------------------

# Slow within every budget of the sandbox: 200 loop steps (few engine instructions, no
# output) that each copy 10 MB, about a second on a quiet machine. A template that loops many
# times is stopped by the instruction budget after a few tenths of a second, too short to tell
# a held loop from a loaded machine.
SLOW_TEMPLATE = (
    "{% set big = 'x' * 10000000 %}{% for a in 'x' * 100 %}{% set t = big ~ a %}{% endfor %}"
    "# Slow {{ next_step }}"
)
SLOW_RENDER = "# Slow Write the changelog entry"


class HeldRender:
    """Holds every render of the slow template, in the thread that runs it, until the test
    releases it: while it is held, a key the app handles proves the event loop is not the
    thread rendering. A render on the loop would hold the loop too, and the key would only
    be handled after the release. No timing is measured (a loaded machine cannot fail it)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from goose_tui.compaction.engine import Compiled

        self.release, self.holding = threading.Event(), threading.Event()
        self.threads: list[threading.Thread] = []
        real = Compiled.render_pieces

        def render(compiled: Compiled, context: dict) -> Pieces:
            out = real(compiled, context)
            if str(out).startswith("# Slow"):
                self.threads.append(threading.current_thread())
                self.holding.set()
                self.release.wait(60)
                self.holding.clear()
            return out

        monkeypatch.setattr(Compiled, "render_pieces", render)

    async def assert_loop_answers(self, pilot) -> None:
        """Once the slow render is held: ``?`` opens help while it is still held."""
        await wait_until(pilot, self.holding.is_set, timeout=120)
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, HelpScreen), timeout=60)
        assert self.holding.is_set(), "the key was handled only after the render ended"
        await pilot.press("escape")
        self.release.set()

    def assert_off_the_loop(self) -> None:
        assert self.threads and threading.main_thread() not in self.threads


async def test_a_slow_summary_template_renders_off_the_ui_thread(
    session_file: Path, reply_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The override changes on disk; while the summary renders with it (a thread worker),
    the event loop keeps answering keys."""
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    app = GooseTUI(session_file, model=f"replay:{reply_file}", prompts_dir=prompts)
    held = HeldRender(monkeypatch)
    try:
        async with app.run_test(size=(200, 50)) as pilot:
            await compacted(pilot)
            preview = app.main.query_one(SummaryPreview)
            (prompts / "compaction_summary.md").write_text(SLOW_TEMPLATE, encoding="utf-8")
            await held.assert_loop_answers(pilot)
            await wait_until(pilot, lambda: preview.markdown == SLOW_RENDER, timeout=120)
            assert app.inspector.templates.summary.source.path == prompts / "compaction_summary.md"
    finally:
        held.release.set()
    held.assert_off_the_loop()


async def test_a_slow_template_freezes_neither_the_compaction_nor_hand_edits(
    session_file: Path, reply_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    (prompts / "compaction_summary.md").write_text(SLOW_TEMPLATE, encoding="utf-8")
    app = GooseTUI(session_file, model=f"replay:{reply_file}", prompts_dir=prompts)
    held = HeldRender(monkeypatch)
    try:
        async with app.run_test(size=(200, 50)) as pilot:
            await settle(pilot)
            preview = app.main.query_one(SummaryPreview)
            await pilot.press("c")
            await held.assert_loop_answers(pilot)
            # The summary's panes are drawn from the frame after the result is in.
            await wait_until(pilot, lambda: preview.markdown == SLOW_RENDER, timeout=120)
            assert app.inspector.result is not None

            held.release.clear()
            await pilot.press("e", "end", "enter", "space", "escape")
            await held.assert_loop_answers(pilot)
            await wait_until(pilot, lambda: _banner(app) == RE_RENDERED, timeout=120)
            assert preview.markdown == SLOW_RENDER
    finally:
        held.release.set()
    held.assert_off_the_loop()


# -- nothing reaches the terminal unasked --------------------------------------------------

ESCAPES = {
    "folder": "F\x1b]0;FOLDER-TITLE\x07\u2066",
    "name": "N\x1b[2J\u202eLSNOJ\u200b",
    "prompts": "P\x1b]52;c;SEFDS0VE\x07\u2067",
}
FORBIDDEN = [
    "\x1b]0;FOLDER",
    "N\x1b[2J",
    "\x1b]52;c;SEFDS0VE",
    "\u202e",
    "\u2066",
    "\u2067",
    "\u2068",
    "\u2069",
    "\u200b",
]


def test_inert_shows_bidi_and_zero_width_characters() -> None:
    text = "a\u202eb\u2066c\u2067d\u2068e\u2069f\u200bg\u200dh\ufeffi\x1bj"
    shown = inert(text)
    assert shown == ("a<U+202E>b<U+2066>c<U+2067>d<U+2068>e<U+2069>f<U+200B>g<U+200D>h<U+FEFF>i␛j")
    assert restore(shown) == text


async def test_paths_toasts_inputs_titles_and_modals_are_inert(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, session_file: Path, reply_file: Path
) -> None:
    from textual.drivers.headless_driver import HeadlessDriver

    folder = tmp_path / ESCAPES["folder"]
    folder.mkdir()
    session = folder / f"{ESCAPES['name']}.jsonl"
    text = session_file.read_text().replace("Can you fix it?", "Can you fix it? \u202eevil\u2069")
    session.write_text(text)
    prompts = tmp_path / ESCAPES["prompts"]
    prompts.mkdir()
    (prompts / "compaction.md").write_text("{% for x in %}\n")  # broken: a toast names it
    reply = folder / "reply.md"
    reply.write_text(reply_file.read_text().replace("Add a changelog", "Add a\u2068 changelog"))

    frames: list[str] = []
    monkeypatch.setattr(HeadlessDriver, "write", lambda self, data: frames.append(data))
    monkeypatch.setattr(HeadlessDriver, "is_headless", property(lambda self: False))
    app = GooseTUI(session, model=f"replay:{reply}", prompts_dir=prompts)
    app.NOTIFICATION_TIMEOUT = 3600  # every toast is still there to look at in the end
    async with app.run_test(size=(200, 50)) as pilot:
        await compacted(pilot)
        await pilot.press("e", "escape")  # the JSON editor shown, with the reply's U+2068
        await settle(pilot)
        assert "Add a\\u2068 changelog" in app.main.query_one("#json-editor", TextArea).text
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, SaveDialog)
        value = app.screen.query_one("#save-path", Input).value
        assert "<U+202E>" in value and "\u202e" not in value and "\x1b" not in value
        await pilot.press("enter")  # saved: a toast names the file
        await settle(pilot)
        saved = folder / f"{ESCAPES['name']}.summary.json"
        assert saved.is_file()  # the real name, not the one shown
        await pilot.press("s")
        await settle(pilot)
        await pilot.press("enter")  # it exists now: the question names it
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        app.screen.query_one("#save-path", Input).value = inert(str(session))
        await pilot.press("enter")  # the input itself: the error modal names it
        await settle(pilot)
        assert isinstance(app.screen, ErrorModal)
        await pilot.press("escape")
        await settle(pilot)
        # The toasts still up, as handed to Textual ("saved …", the broken override).
        toasts = [(n.title, n.message, n.markup) for n in app._notifications]
    output = "".join(frames)
    assert "<U+202E>" in output and "FOLDER-TITLE" in output and "Replace it?" in output
    assert any(message.startswith("saved ") for _, message, _ in toasts)
    for title, message, markup in toasts:
        assert not markup and inert(title) == title and inert(message) == message
        assert "<U+202E>LSNOJ" in message or "<U+2067>" in message
    for sequence in FORBIDDEN:
        assert sequence not in output, repr(sequence)


async def test_keys_queued_behind_q_open_nothing_while_the_app_exits(session_file: Path) -> None:
    # tmux: `send-keys question_mark` typed q-u-e-s-…: `q` quit, `u` then pushed the context
    # screen into the exiting app, whose mount failed and printed a traceback on exit. Keys
    # that arrive together (a paste, fast typing) are queued behind `q` the same way.
    from textual import events

    app = GooseTUI(session_file)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        for key in "qug":  # quit, then the context and timeline screens
            app.post_message(events.Key(key, key))
        await pilot.pause(0.5)
    assert app.return_code == 0 and not app._exit_renderables


async def test_compacting_again_over_an_unsaved_hand_edit_asks_first(
    session_file: Path, reply_file: Path
) -> None:
    # `c` replaced a hand-edited summary with a new compaction's, without a word, and the
    # edit was gone for good (a walk-through: undo in the editor did not bring it back).
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(200, 50)) as pilot:
        await _hand_edited(pilot)
        edited = app.inspector.edits.json
        await pilot.press("escape", "c")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert "hand-edited summary JSON" in app.screen.question
        await pilot.press("escape")  # no: the edit stays
        await settle(pilot)
        assert app.screen is app.main and app.inspector.edits.json == edited
        await pilot.press("c")
        await settle(pilot)
        await pilot.press("y")  # yes: compacted again, the edit replaced
        await settle(pilot)
        assert app.inspector.edits.json != edited and app.inspector.unsaved_edits() == []


# -- opening another session -------------------------------------------------------------


async def _open_typed(pilot, path: Path) -> None:
    """`o`, then ``path`` typed into the picker and enter."""
    from goose_tui.tui.screens.session_picker import SessionPicker

    await pilot.press("escape", "o")
    await settle(pilot)
    picker = pilot.app.screen
    assert isinstance(picker, SessionPicker)
    picker.query_one(Input).value = ""
    await paste(pilot, str(path))
    await pilot.press("enter")
    await settle(pilot)


def _other_session(session_file: Path) -> Path:
    other = session_file.with_name("other.jsonl")
    text = session_file.read_text().replace("Fix date parsing test", "Refactor the CLI")
    other.write_text(text.replace("test_parse_dates", "test_cli_flags"))
    return other


async def test_another_session_opens_without_the_last_ones_summary(
    session_file: Path, reply_file: Path
) -> None:
    # A walk-through: after `o` opened another session, the gauge still said "after
    # compaction: 2,351 tokens" and the panes showed the first session's summary; `s` then
    # wrote the new session compacted with the old session's summary.
    from goose_tui.tui.widgets.context_gauge import ContextGauge
    from goose_tui.tui.widgets.text_viewer import TextViewer

    other = _other_session(session_file)
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(200, 50)) as pilot:
        await compacted(pilot)
        main = app.main
        assert main.query_one(ContextGauge).projected is not None
        await pilot.press("e")  # the JSON editor's tab, left open
        await _open_typed(pilot, other)
        assert app.screen is main
        inspector = app.inspector
        assert inspector.session is not None and inspector.session.title == "Refactor the CLI"
        assert inspector.result is None and inspector.summary.structured is None
        assert inspector.summary.text == "" and inspector.unsaved_edits() == []
        assert main.query_one(ContextGauge).projected is None
        assert "after compaction" not in str(main.query_one(ContextGauge).render())
        assert _banner(app) == "no summary yet"
        assert main.query_one(SummaryPreview).markdown == ""
        assert main.query_one("#analysis-view", TextViewer).text == ""
        assert main.query_one("#json-editor", TextArea).text == "{}"
        assert main.query_one("#reply-editor", TextArea).text == ""
        assert main.query_one(CompactionStatus).state == "idle"
        assert main.query_one("#fields-tabs", TabbedContent).active == "fields-tree-tab"
        await pilot.press("s")  # nothing to save: said, and no dialog
        await settle(pilot)
        assert app.screen is main
        assert any("no summary yet" in str(n.message) for n in app._notifications)
        await pilot.press("c")  # the new session compacts as the first did
        await settle(pilot)
        assert inspector.result is not None
        assert "test_cli_flags" in str(inspector.result.request.prompt)


async def test_opening_another_session_over_an_unsaved_hand_edit_asks_first(
    session_file: Path, reply_file: Path
) -> None:
    other = _other_session(session_file)
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(200, 50)) as pilot:
        await _hand_edited(pilot)
        edited = app.inspector.edits.json
        await _open_typed(pilot, other)
        assert isinstance(app.screen, ConfirmScreen)
        assert "hand-edited summary JSON" in app.screen.question
        await pilot.press("escape")  # no: the session and its edit stay
        await settle(pilot)
        assert app.screen is app.main and app.inspector.edits.json == edited
        assert app.inspector.session is not None
        assert app.inspector.session.source_path == session_file
        await _open_typed(pilot, other)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        assert app.inspector.session is not None
        assert app.inspector.session.source_path == other
        assert app.inspector.unsaved_edits() == [] and app.inspector.result is None


async def test_a_save_never_replaces_a_file_that_appeared_after_the_check(
    session_file: Path, reply_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No question is asked for a name that is free; a file made there before the write (by
    # another program) is kept, and the app says it did not save.
    from goose_tui.inspector import Inspector

    target = session_file.with_name("small_session.summary.json")
    real_save = Inspector.save

    def a_file_appears_then_save(self, kind, path, **options):  # type: ignore[no-untyped-def]
        target.write_text("made meanwhile\n")
        return real_save(self, kind, path, **options)

    monkeypatch.setattr(Inspector, "save", a_file_appears_then_save)
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(200, 50)) as pilot:
        await compacted(pilot)
        await pilot.press("s")
        await pilot.press("enter")  # the summary JSON beside the session: a free name
        await wait_until(pilot, lambda: isinstance(app.screen, ErrorModal))
        assert "already exists" in app.screen.message
        assert target.read_text() == "made meanwhile\n"


async def test_the_summary_cannot_be_hand_edited_while_a_compaction_runs(
    session_file: Path, reply_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An edit typed while the model ran was replaced by its summary when it ended, without a
    # word (`c` asks before replacing an edit, but the edit came after `c`).
    import asyncio

    from goose_tui.llm.replay import ReplaySummarizer

    release = asyncio.Event()
    real = ReplaySummarizer.complete

    async def held(self, messages, on_chunk=None):  # type: ignore[no-untyped-def]
        await release.wait()
        return await real(self, messages, on_chunk)

    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(200, 50)) as pilot:
        await compacted(pilot)
        before = app.inspector.edits.json
        monkeypatch.setattr(ReplaySummarizer, "complete", held)
        await pilot.press("c")
        await wait_until(pilot, lambda: app.main.query_one(CompactionStatus).state == "running")
        await pilot.press("e", "end", "E", "D", "I", "T")
        await pilot.pause()
        editor = app.main.query_one("#json-editor", TextArea)
        assert editor.text == before and editor.read_only
        assert app.screen is app.main  # the letters typed were no shortcuts either
        assert any("once the compaction ends" in str(n.message) for n in app._notifications)
        release.set()
        await settle(pilot)
        assert app.main.query_one(CompactionStatus).state == "done"
        assert not editor.read_only
        done = editor.text
        await pilot.press("e", "end", "E")
        await pilot.pause()
        assert editor.text != done  # editing again once it ended


async def test_a_reply_edit_over_a_json_edit_says_so_and_ctrl_z_brings_the_json_back(
    session_file: Path, reply_file: Path
) -> None:
    # Typing in the reply editor re-read the reply and replaced a hand edit of the summary
    # JSON with no word and no undo.
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(200, 50)) as pilot:
        await compacted(pilot)
        main = app.main
        json_editor = main.query_one("#json-editor", TextArea)
        await pilot.press("e")
        json_editor.move_cursor((2, 5))
        await pilot.press(*"HANDEDIT ")
        await settle(pilot)
        edited = json_editor.text
        assert "HANDEDIT" in edited and "HANDEDIT" in app.inspector.summary.text
        await pilot.press("escape", "r", "end", "space")
        await settle(pilot)
        await pilot.press("y")  # the question before the JSON edit is replaced
        await settle(pilot)
        assert "HANDEDIT" not in json_editor.text  # the reply, re-read, is the summary now
        assert any("ctrl+z" in str(n.message) for n in app._notifications)
        await pilot.press("escape", "e", "ctrl+z")
        await settle(pilot)
        assert json_editor.text == edited
        assert "HANDEDIT" in app.inspector.summary.text


async def test_enter_on_a_question_keeps_things_as_they_are(
    session_file: Path, reply_file: Path
) -> None:
    # "Yes" had the focus: a reflex Enter after `c` threw a JSON hand edit away.
    app = GooseTUI(session_file, model=f"replay:{reply_file}")
    async with app.run_test(size=(200, 50)) as pilot:
        await compacted(pilot)
        await pilot.press("e", "end", *"HANDEDIT", "escape")
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is app.main
        assert "HANDEDIT" in app.main.query_one("#json-editor", TextArea).text


async def test_the_picker_tells_sessions_of_one_name_apart() -> None:
    # A walk-through: a folder with short.jsonl and the short.compacted.jsonl saved beside it
    # listed two rows "Makefile uses pinned hugo", with nothing to tell which was which;
    # `goose-tui sessions` shows their ids.
    from datetime import UTC, datetime

    from textual.app import App
    from textual.widgets import DataTable

    from goose_tui.session.models import SessionInfo
    from goose_tui.tui.screens.session_picker import SessionPicker

    when = datetime(2025, 3, 1, 9, 30, tzinfo=UTC)
    sessions = [
        SessionInfo(id=stem, name="Makefile uses pinned hugo", updated_at=when, path=Path(stem))
        for stem in ("short.compacted", "short")
    ]

    class PickerApp(App[None]):
        def on_mount(self) -> None:
            self.push_screen(SessionPicker(sessions, "a folder"))

    app = PickerApp()
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        table = app.screen.query_one(DataTable)
        rows = [" ".join(map(str, table.get_row_at(i))) for i in range(table.row_count)]
        assert len(rows) == 2 and rows[0] != rows[1]
        assert "short.compacted" in rows[0] and "short" in rows[1]


async def test_enter_on_a_kind_then_enter_writes(session_file: Path, tmp_path: Path) -> None:
    # A walk-through: the dialog says "enter writes", but enter on the kinds only chose one
    # and stayed there: a second enter did nothing until tab reached the path.
    from textual.widgets import RadioSet

    app = GooseTUI(session_file)
    async with app.run_test(size=(200, 50)) as pilot:
        path = await _save_dialog_path(app, pilot)
        target = tmp_path / "out.md"
        path.value = str(target)
        app.screen.query_one(RadioSet).focus()
        await pilot.press("down", "enter")  # the summary kind, chosen from the list
        await settle(pilot)
        assert app.focused is path and path.value == str(target)  # typed: kept
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is app.main
        assert target.exists()
