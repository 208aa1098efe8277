"""The command's exit status when the app ends: 0 after a quit, 1 after an error that ended
the app (the README's "exit 1 when something fails"). The app runs headless, through the
real entry point (``goose_tui.cli.main``). Keys queued behind ``q`` open nothing while the
app exits."""

from __future__ import annotations

from pathlib import Path

import pytest

import goose_tui.tui.app as app_module
from goose_tui import cli
from goose_tui.samples import bundled_sample
from goose_tui.tui.app import GooseTUI

from .conftest import settle, wait_until


class _EndingApp(app_module.GooseTUI):
    """The app, headless, running ``ending`` once it is up."""

    CSS_PATH = str(Path(app_module.__file__).with_name("app.tcss"))  # not this folder's
    ending = "quit"

    def on_mount(self) -> None:
        super().on_mount()
        self.call_after_refresh(self.run_action, self.ending)

    def action_fail(self) -> None:
        raise RuntimeError("an action of ours failed")

    def run(self, **options: object) -> None:  # type: ignore[override]
        options["headless"] = True
        super().run(**options)  # type: ignore[arg-type]


@pytest.mark.parametrize(("ending", "status"), [("quit", 0), ("fail", 1)])
def test_the_command_exits_1_when_the_app_ended_on_an_error(
    ending: str, status: int, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # It exited 0 after the app crashed (a NoMatches in the session picker's action).
    monkeypatch.setattr(_EndingApp, "ending", ending)
    monkeypatch.setattr(app_module, "GooseTUI", _EndingApp)
    monkeypatch.setattr(app_module, "has_terminal", lambda: True)  # headless stands in for one
    assert cli.main([str(bundled_sample())]) == status


@pytest.mark.parametrize("kind", ["missing", "file"])
def test_a_prompts_dir_that_is_no_folder_is_refused_before_the_app_opens(
    kind: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The app opened with the built-in templates and said nothing; the CLI refuses it.
    prompts = tmp_path / "prompts"
    if kind == "file":
        prompts.write_text("not a folder")

    def run_app(*args: object, **kwargs: object) -> int:
        raise AssertionError("the app opened")

    monkeypatch.setattr(app_module, "run_app", run_app)
    assert cli.main(["--prompts-dir", str(prompts), str(bundled_sample())]) == 2
    assert capsys.readouterr().err == f"goose-tui: --prompts-dir {prompts}: not a folder\n"


async def test_keys_queued_behind_q_open_nothing_while_the_app_exits(session_file: Path) -> None:
    # tmux: `send-keys question_mark` typed q-u-e-s-…: `q` quit, `u` then pushed the context
    # screen into the exiting app, whose mount failed and printed a traceback on exit. Keys
    # that arrive together (a paste, fast typing) are queued behind `q` the same way.
    from textual import events

    app = GooseTUI(session_file)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for key in "qug":  # quit, then the context and timeline screens
            app.post_message(events.Key(key, key))
        # Every key handled, q first: the app is exiting with nothing left queued.
        await wait_until(pilot, lambda: app.return_code is not None and not app.message_queue_size)
    assert app.return_code == 0 and not app._exit_renderables
