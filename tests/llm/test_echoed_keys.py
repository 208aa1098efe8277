"""A server that echoes the request, its ``Authorization: Bearer sk-…`` header included, as its
reply: the key the process used must not reach what goose-tui writes (the ``-o`` summary,
the saved session, batch reports, the probe cache, Goose's database), and the user is told
that something was left out. One mechanism at the write layer: ``files.atomic_write_text``
through ``redact.remove_known_keys``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goose_tui.files import atomic_write_text
from goose_tui.redact import KEY_REMOVED, remember_key, remove_known_keys
from tests.conftest import write_two_message_session
from tests.loopback import LoopbackServer, RecordedRequest, Reply
from tests.secret_keys import OPENAI_KEY

# The key of the litellm worker these tests share with tests/cli/test_compact_keys.py.
KEY = OPENAI_KEY
FRAGMENTS = (KEY, "OPENAIFAKE-7f3e9a1c", "openaifake-7f3e9a1c")
MODEL = "openai/gpt-4o-mini"


def echo(request: RecordedRequest) -> Reply:
    """The reply a careless proxy gives: a summary that quotes the request's headers."""
    seen = request.headers.get("authorization", "")
    return Reply.ok(
        f"<analysis>the request carried authorization: {seen}</analysis>\n"
        f'```json\n{{"user_intent": ["ship the fix", "headers seen: {seen}"]}}\n```'
    )


def assert_no_key(*texts: str) -> None:
    for text in texts:
        for fragment in FRAGMENTS:
            assert fragment not in text


@pytest.fixture
def session(tmp_path: Path) -> Path:
    return write_two_message_session(tmp_path / "session.jsonl")


@pytest.mark.xdist_group("secrets-keyed-worker")
def test_a_key_echoed_by_the_server_is_left_out_of_the_summary_and_the_saved_session(
    keyed_worker: None,
    monkeypatch: pytest.MonkeyPatch,
    session: Path,
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
) -> None:
    from goose_tui.cli import main

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    summary, saved = tmp_path / "summary.md", tmp_path / "compacted.json"
    with LoopbackServer(request_responder=echo) as server:
        code = main(
            [
                "compact",
                str(session),
                "--model",
                MODEL,
                "--api-base",
                f"{server.url}/v1",
                "-o",
                str(summary),
                "--save-session",
                str(saved),
            ]
        )
    out, err = capfd.readouterr()
    assert code == 0, err
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    summary_text, saved_text = summary.read_text(), saved.read_text()
    assert_no_key(out, err, summary_text, saved_text)
    assert "ship the fix" in summary_text and KEY_REMOVED in summary_text
    assert KEY_REMOVED in saved_text and json.loads(saved_text)
    assert f"{summary}: an API key this process uses came back in the text" in err
    assert f"{saved}: " in err and "left out of the file" in err


def test_every_write_leaves_out_the_keys_the_process_knows(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("SHORT_TOKEN", "enabled")  # a word, not a key: left alone
    given = "gk-GIVENKEY-0123456789abcdef"
    remember_key(given)
    text = f"a {KEY} b {KEY.upper()} c {KEY.removeprefix('sk-test-')} d {given} e enabled"
    told: list[tuple[Path, int]] = []
    target = tmp_path / "out.txt"
    count = atomic_write_text(target, text, on_keys_removed=lambda p, n: told.append((p, n)))
    written = target.read_text()
    assert count == 4 and told == [(target, 4)]
    assert_no_key(written)
    assert given not in written and written.count(KEY_REMOVED) == 4
    assert written.endswith("e enabled")
    assert remove_known_keys("nothing to remove") == ("nothing to remove", 0)


def test_the_probe_cache_and_goose_db_lose_the_key_too(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import shutil

    from goose_tui.session.goose_db import add_session
    from goose_tui.session.loader import load_session
    from tests.conftest import ROOT

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    db = tmp_path / "sessions.db"
    shutil.copyfile(ROOT / "tests" / "fixtures" / "goose" / "sessions-v13.db", db)
    session = load_session(db)
    added = add_session(db, session, f"the summary, as echoed: Bearer {KEY}")
    assert any("left out" in note for note in added.notes)
    assert_no_key(db.read_bytes().decode("utf-8", "replace"))
    reread = load_session(db, added.session_id)
    assert any(KEY_REMOVED in json.dumps(m.content) for m in reread.messages)

    from goose_tui.analysis.probe_model import ProbeCache

    cache = ProbeCache(tmp_path / "probes")
    cache.put("ab" * 32, {"text": f"an answer quoting Bearer {KEY}"})
    assert cache.get("ab" * 32) == {"text": f"an answer quoting Bearer {KEY_REMOVED}"}


@pytest.mark.xdist_group("secrets-keyed-worker")
@pytest.mark.parametrize("json_out", [False, True])
def test_a_key_echoed_by_the_server_is_left_out_of_stdout(
    keyed_worker: None,
    monkeypatch: pytest.MonkeyPatch,
    session: Path,
    capfd: pytest.CaptureFixture[str],
    json_out: bool,
) -> None:
    # `compact > summary.md` writes the summary through stdout.
    from goose_tui.cli import main

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with LoopbackServer(request_responder=echo) as server:
        args = ["compact", str(session), "--model", MODEL, "--api-base", f"{server.url}/v1"]
        code = main([*args, *(["--json"] if json_out else [])])
    out, err = capfd.readouterr()
    assert code == 0, err
    assert_no_key(out, err)
    assert KEY_REMOVED in out and "ship the fix" in out
    if json_out:
        assert json.loads(out)["structured"]["user_intent"][0] == "ship the fix"
