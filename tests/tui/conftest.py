from __future__ import annotations

import asyncio
import inspect
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.worker import WorkerState

DATA = Path(__file__).parent / "data"

REPLY = (DATA / "reply.md").read_text(encoding="utf-8")


@pytest.fixture
def session_file(tmp_path: Path) -> Path:
    """A copy of the small session in a folder of its own, so saves land in tmp_path."""
    target = tmp_path / "session" / "small_session.jsonl"
    target.parent.mkdir()
    shutil.copy(DATA / "small_session.jsonl", target)
    return target


@pytest.fixture
def prompts(tmp_path: Path) -> Path:
    """An empty prompts folder for the app's ``prompts_dir``: overrides the test writes."""
    folder = tmp_path / "prompts"
    folder.mkdir()
    return folder


def rewrite(path: Path, text: str) -> None:
    """``text`` saved to ``path`` as another program would save it; the mtime moves on by
    seconds, so the change is seen even on a file system with a coarse clock."""
    path.write_text(text, encoding="utf-8")
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))


def opened_before(path: Path) -> None:
    """``path`` opened in an earlier run, as the app records it: loaded, then remembered (a
    recent row of the session picker)."""
    from goose_tui.recent import remember
    from goose_tui.session.loader import load_session

    session = load_session(path, None)
    remember(path, None, session.title, len(session.messages), session.model_name)


@pytest.fixture
def reply_file(tmp_path: Path) -> Path:
    path = tmp_path / "reply.md"
    path.write_text(REPLY, encoding="utf-8")
    return path


# settle() gives up after this many rounds: a timer that posts for ever (a spinner's) must not
# hang a test, and each round is a few milliseconds once nothing is left to do.
SETTLE_ROUNDS = 1000


@pytest.fixture
def snap_compare(snap_compare):
    """pytest-textual-snapshot's ``snap_compare``, with blinking cursors drawn steady before
    the picture is taken: a cursor blinks off 0.5 s after its widget is focused, so otherwise
    the picture would depend on how long ``run_before`` took on a busy machine."""

    def compare(app, *, run_before=None, **options):
        async def steady(pilot: Pilot) -> None:
            if run_before is not None:
                result = run_before(pilot)
                if inspect.isawaitable(result):
                    await result
            for widget in pilot.app.screen.query("Input, TextArea"):
                widget.cursor_blink = False
            await pilot.pause()

        return snap_compare(app, run_before=steady, **options)

    return compare


async def settle(pilot: Pilot) -> None:
    """Wait for a defined state, never for a time or an idle CPU: no worker pending or
    running, every message their results posted handled by every widget of the screen, and
    the screen refreshed after that."""
    app = pilot.app
    busy = (WorkerState.PENDING, WorkerState.RUNNING)
    quiet = 0  # rounds in a row that found every queue empty, before and after
    for _ in range(SETTLE_ROUNDS):
        # Each worker's wait, not WorkerManager.wait_for_complete: that raises for a worker
        # that was cancelled (a newer count replaced it), which is settled too.
        await asyncio.gather(*(w.wait() for w in app.workers), return_exceptions=True)
        # Handled messages can start new work (a loaded session starts the token count) or
        # post others (a message bubbles up one node at a time, behind this drain): drain
        # every queue, and again until two rounds in a row found nothing queued.
        nodes = [app, *app.screen.walk_children(with_self=True)]
        queued = any(node.message_queue_size for node in nodes)
        done = [asyncio.Event() for _ in nodes]
        for node, event in zip(nodes, done, strict=True):
            if not node.call_later(event.set):
                event.set()  # a pump that is closing has nothing left to change
        for event in done:
            await event.wait()
        drawn = asyncio.Event()
        app.screen.call_after_refresh(drawn.set)
        await drawn.wait()
        queued = queued or any(node.message_queue_size for node in nodes)
        quiet = 0 if queued else quiet + 1
        if quiet >= 2 and not any(worker.state in busy for worker in app.workers):
            return


async def compacted(pilot: Pilot) -> None:
    """The app settled, compacted with its model (``c``), and settled again."""
    await settle(pilot)
    await pilot.press("c")
    await settle(pilot)


# How long a test waits for the app's litellm worker to answer: the worker runs at niceness
# +10 (the app's frames come first), so on a busy machine its first import of litellm is slow.
MODEL_CALL_SECONDS = 180.0


async def wait_until(pilot: Pilot, condition, timeout: float = 60.0) -> None:
    """Poll ``condition`` until it holds. The timeout only bounds a test that would hang; on
    failure the message shows the screen as text and the toasts, so a stress run says why."""
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time\n" + screen_report(pilot.app))
        await pilot.pause(0.05)


def screen_text(app) -> list[str]:
    """The rows of the current screen as plain text (from Textual's own SVG export)."""
    import html
    import re

    svg = app.export_screenshot()
    rows: dict[int, list[tuple[float, str]]] = {}
    pattern = (
        r'<text[^>]*?x="([\d.]+)"[^>]*?clip-path="url\(#[^)]*?-line-(\d+)\)"[^>]*>(.*?)</text>'
    )
    for x, line, body in re.findall(pattern, svg):
        rows.setdefault(int(line), []).append((float(x), html.unescape(body)))
    return ["".join(t for _, t in sorted(parts)) for _, parts in sorted(rows.items())]


def palette_options(app) -> list[str]:
    """The names the open command palette lists, in its order ([] when it is not open)."""
    from textual.command import CommandList

    options = app.screen.query(CommandList)
    if not options:
        return []
    found = options.first()
    prompts = (found.get_option_at_index(i).prompt for i in range(found.option_count))
    return [getattr(prompt, "plain", str(prompt)).split("\n")[0] for prompt in prompts]


def screen_report(app) -> str:
    toasts = [str(n.message) for n in getattr(app, "_notifications", [])]
    return "\n".join([*screen_text(app), f"toasts: {toasts}", f"screen: {app.screen!r}"])


async def paste(pilot: Pilot, text: str) -> None:
    """A bracketed paste, as the terminal's driver posts it: the app hands it to the focused
    widget. Tests paste long paths rather than typing them (each typed key waits for the
    screen to refresh: seconds for a temporary path)."""
    from textual import events

    pilot.app.post_message(events.Paste(text))
    await pilot.pause()


async def edit(pilot: Pilot, key: str | None, text: str) -> None:
    """An editor's whole text replaced as a user does it: ``key`` opens the editor (``t`` or
    ``T`` a template, ``e`` the summary JSON, ``r`` the reply; None: the focused one), select
    all, paste ``text``; then settled."""
    from textual.widgets import TextArea

    if key is not None:
        await pilot.press(key)
    area = pilot.app.focused
    assert isinstance(area, TextArea), area
    area.select_all()
    await paste(pilot, text)
    await settle(pilot)


@pytest.fixture(autouse=True)
def _no_styles_kept_from_earlier_apps() -> Iterator[None]:
    """Textual caches ``StylesCache.get_inner_outer`` with ``lru_cache(1024)`` on the class,
    and each entry keeps a widget's styles cache alive, with every line it drew (its strips,
    their segments and caches), long after the app ended. An app runs once per process, so it
    costs users nothing; a test worker runs a hundred apps, and every full collection would
    walk their lines. Emptied after each test."""
    yield
    from textual._styles_cache import StylesCache

    StylesCache.get_inner_outer.cache_clear()
