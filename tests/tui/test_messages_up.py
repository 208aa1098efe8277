"""Issue 13: screens and widgets reach the app only by messages up. A worker's error on any
screen, or in a widget deep inside one, reaches the app's one handler and its error modal;
a request (go back to a message) is handled by the app, whatever screen posts it."""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static

from goose_tui.tui.app import GooseTUI, bundled_sample
from goose_tui.tui.messages import ShowMessage, WorkerErrorsUp
from goose_tui.tui.screens.error_modal import ErrorModal
from goose_tui.tui.widgets.conversation_view import ConversationView

from .conftest import settle, wait_until


class BrokenPanel(WorkerErrorsUp, Vertical):
    """A widget whose worker fails, like the probes panel when a model call breaks."""

    def compose(self) -> ComposeResult:
        yield Static("probing…")

    def on_mount(self) -> None:
        self.probe()

    @work(thread=True, group="probes", exit_on_error=False)
    def probe(self) -> None:
        raise RuntimeError("the judge model answered 500")


class BrokenScreen(WorkerErrorsUp, Screen[None]):
    def __init__(self, *, with_panel: bool) -> None:
        super().__init__()
        self.with_panel = with_panel

    def compose(self) -> ComposeResult:
        if self.with_panel:
            yield BrokenPanel()
        else:
            yield Static("plotting…")

    def on_mount(self) -> None:
        if not self.with_panel:
            self.plot()

    @work(thread=True, group="timeline", exit_on_error=False)
    def plot(self) -> None:
        raise ValueError("no tokens to plot")


async def test_a_screens_or_a_widgets_worker_error_bubbles_up_to_the_one_error_modal() -> None:
    app = GooseTUI(bundled_sample())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for with_panel, title, message in (
            (False, "Timeline failed", "ValueError: no tokens to plot"),
            (True, "Probes failed", "RuntimeError: the judge model answered 500"),
        ):
            broken = BrokenScreen(with_panel=with_panel)
            app.push_screen(broken)
            await wait_until(pilot, lambda: isinstance(app.screen, ErrorModal), timeout=60)
            modal = app.screen
            assert isinstance(modal, ErrorModal)
            assert app.is_running  # the app keeps running under the modal
            assert modal.error_title == title
            assert modal.message == message
            await pilot.press("escape")
            await settle(pilot)
            assert app.screen is broken
            app.pop_screen()
            await settle(pilot)


class Hop(Message):
    """A message that bubbles: each ancestor gets it from its child's queue, one hop at a
    time (as a tab's activation reaches its screen)."""


class HopScreen(Screen[None]):
    def __init__(self) -> None:
        super().__init__()
        self.arrived = False

    def compose(self) -> ComposeResult:
        with Vertical(), Vertical(), Vertical():
            yield Static("relay", id="relay")

    def on_hop(self, message: Hop) -> None:
        self.arrived = True


async def test_show_message_goes_back_from_any_screen_and_settled_waits_for_a_hop() -> None:
    app = GooseTUI(bundled_sample())
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("g")  # the timeline, then a screen above it
        await settle(pilot)
        app.push_screen(Screen())
        await settle(pilot)
        assert len(app.screen_stack) == 4  # default, inspector, timeline, the one above
        app.screen.post_message(ShowMessage(3, [3, 5]))
        await settle(pilot)
        assert app.screen is app.main
        view = app.main.query_one(ConversationView)
        assert view.selected == 3 and view.highlighted == [3, 5]
        # A message still on its way up, a hop behind a drain of the queues, must arrive
        # before settle() returns.
        screen = HopScreen()
        await app.push_screen(screen)
        await settle(pilot)
        for _ in range(20):
            screen.arrived = False
            screen.query_one("#relay").post_message(Hop())
            await settle(pilot)
            assert screen.arrived
