"""The HTML report in a real headless browser (Debian's chromium): it renders every section,
the untrusted text in it stays text, and opening it sends no request anywhere. A beacon
server on loopback, named in the session's hostile text, counts the requests; a control
page that does load from it proves the browser would have reached it."""

from __future__ import annotations

import asyncio
import os
import shutil
import struct
import subprocess
import threading
from collections.abc import Iterator
from html.parser import HTMLParser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from goose_tui.analysis.report import SECTIONS
from goose_tui.inspector import Inspector
from goose_tui.llm.spec import ModelSpec
from goose_tui.session.loader import load_session
from tests.analysis.report_cases import write_hostile_session


def browser() -> str:
    """The headless browser; CI installs it (.ci/run), so there its absence is a failure."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    if os.environ.get("CI") == "true":
        pytest.fail("chromium is not installed: .ci/run installs it (apt-get install chromium)")
    pytest.skip("no chromium on this machine (apt-get install chromium); CI runs this test")


class Beacon(ThreadingHTTPServer):
    def __init__(self) -> None:
        self.paths: list[str] = []
        beacon = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                beacon.paths.append(self.path)
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        super().__init__(("127.0.0.1", 0), Handler)


@pytest.fixture
def beacon() -> Iterator[Beacon]:
    server = Beacon()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def run_browser(page: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    # No host name resolves: whatever else happens, no request leaves the machine. Loopback
    # is kept so the beacon can count what the page tries.
    return subprocess.run(
        [
            browser(),
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
            "--virtual-time-budget=3000",
            *flags,
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=page.parent,
    )


class Elements(HTMLParser):
    """The elements of a DOM dump, and the ids of its sections."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.ids: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.ids += [value or "" for name, value in attrs if name == "id" and tag == "section"]


def test_the_report_page_renders_offline_and_sends_nothing(tmp_path: Path, beacon: Beacon) -> None:
    control = tmp_path / "control.html"
    control.write_text(
        f'<!DOCTYPE html><img src="http://127.0.0.1:{beacon.server_port}/control.png">'
    )
    run_browser(control, "--dump-dom")
    assert beacon.paths == ["/control.png"], "the browser could not reach the beacon"

    session, reply = write_hostile_session(tmp_path, beacon.server_port)
    inspector = Inspector(model=ModelSpec.parse(f"replay:{reply}"))
    inspector.load(load_session(session))
    asyncio.run(inspector.compact())
    _, page = inspector.save_report(tmp_path / "report.md", overwrite=False)

    # One launch of the browser both dumps the page's DOM and draws it.
    shot = tmp_path / "report.png"
    dump = run_browser(page, "--dump-dom", f"--screenshot={shot}", "--window-size=1200,2000")
    assert dump.returncode == 0, dump.stderr[-2000:]
    elements = Elements()
    elements.feed(dump.stdout)
    assert elements.ids == [anchor for anchor, _ in SECTIONS]
    for tag in ("img", "script", "iframe", "link", "a"):
        # The table of contents is the page's only links.
        count = elements.tags.count(tag)
        assert count == (len(SECTIONS) if tag == "a" else 0), (tag, count)
    assert "&lt;script src=" in dump.stdout  # the session's HTML, shown as text

    width, height = struct.unpack(">II", shot.read_bytes()[16:24])  # the PNG's IHDR
    assert (width, height) == (1200, 2000)
    assert shot.stat().st_size > 20_000  # a drawn page, not a blank one
    assert beacon.paths == ["/control.png"]
