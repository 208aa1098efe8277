"""The CLI's help: one wording per shared option on every command that takes it, each
command's summary the same at the top and in its own --help, and the defaults it states."""

from __future__ import annotations

import re

import pytest

from goose_tui.cli import SUBCOMMANDS, main

# The app's own arguments come first: `goose-tui --help`.
APP: tuple[str, ...] = ()


def help_of(capsys: pytest.CaptureFixture[str], *command: str) -> str:
    with pytest.raises(SystemExit) as exit_:
        main([*command, "--help"])
    assert exit_.value.code == 0
    return capsys.readouterr().out


def entries(text: str) -> dict[str, str]:
    """Each argument's help, by its first name (``--prompts-dir``, ``SESSION``), its lines
    joined: argparse puts the help beside the name or on the lines below, indented."""
    found: dict[str, str] = {}
    name: str | None = None
    for line in text.splitlines():
        start = re.match(r"^  (-{0,2}[\w-]+)(.*)$", line)
        if start is not None:
            name = start.group(1)
            rest = start.group(2)
            # After the names and metavars, two spaces or more separate the help.
            parts = re.split(r"\s{2,}", rest, maxsplit=1)
            found[name] = parts[1] if len(parts) == 2 else ""
        elif name is not None and line.startswith("     ") and line.strip():
            found[name] = (found[name] + " " + line.strip()).strip()
        else:
            name = None
    return found


def all_helps(capsys: pytest.CaptureFixture[str]) -> dict[str, dict[str, str]]:
    out = {"(app)": entries(help_of(capsys, *APP))}
    for command in SUBCOMMANDS:
        out[command] = entries(help_of(capsys, command))
    return out


SHARED = (
    "SESSION",
    "--session",
    "--all-sessions",
    "--prompts-dir",
    "--replay",
    "--api-base",
    "--timeout",
    "--offline-context-limit",
    "--threshold",
    "--context-limit",
    "--goose-profile",
    "--focus",
    "--raw",
    "--json",
)


def test_each_shared_option_says_one_thing_on_every_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    helps = all_helps(capsys)
    for option in SHARED:
        wordings = {cmd: h[option] for cmd, h in helps.items() if option in h}
        assert len(set(wordings.values())) <= 1 or option == "--json", (option, wordings)
    # The summarizer's --model reads alike wherever a command compacts; usage takes one only
    # to say whether the request fits its context window, and says so.
    models = {cmd: h["--model"] for cmd, h in helps.items() if "--model" in h}
    assert set(models) >= {"(app)", "compact", "retention", "probe", "audit", "batch"}
    window = {cmd: text for cmd, text in models.items() if "context window" in text}
    assert set(window) == {"usage"}
    assert len({text for cmd, text in models.items() if cmd not in window}) == 1


def test_session_help_is_one_wording(capsys: pytest.CaptureFixture[str]) -> None:
    helps = all_helps(capsys)
    takes_a_session = {cmd for cmd, h in helps.items() if "SESSION" in h}
    assert takes_a_session >= {
        "(app)", "format", "prompt", "usage", "compact", "retention", "probe", "compare",
        "timeline", "audit",
    }  # fmt: skip
    assert {helps[cmd]["SESSION"] for cmd in takes_a_session} == {
        "a Goose session file, a sessions.db, or a folder"
    }


@pytest.mark.parametrize("command", ["sessions", "batch", "compact"])
def test_all_sessions_says_what_it_does_where_nothing_is_picked(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    text = entries(help_of(capsys, command))["--all-sessions"]
    assert "pick" not in text
    assert "every session" in text and "`goose session list`" in text


def test_each_command_says_the_same_at_the_top_and_in_its_own_help(
    capsys: pytest.CaptureFixture[str],
) -> None:
    top = " ".join(help_of(capsys).split())
    for command in SUBCOMMANDS:
        own = help_of(capsys, command)
        description = " ".join(own.split("\n\n")[1].split())
        assert description in top, command
    assert "find, read and render the summary in a model reply" in top
    assert "extract, read and render" not in top + own


def test_threshold_help_is_the_full_precedence_on_the_app_too(
    capsys: pytest.CaptureFixture[str],
) -> None:
    app = entries(help_of(capsys))["--threshold"]
    assert app == entries(help_of(capsys, "usage"))["--threshold"]
    assert "$GOOSE_AUTO_COMPACT_THRESHOLD" in app and "0.8" in app


def test_save_session_says_what_it_writes(capsys: pytest.CaptureFixture[str]) -> None:
    text = entries(help_of(capsys, "compact"))["--save-session"]
    assert "README" not in text
    assert "summary" in text and "Goose" in text


def test_batch_model_defaults_to_offline_as_every_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    helps = all_helps(capsys)
    assert helps["batch"]["--model"] == helps["compact"]["--model"]
    assert "offline (the default)" in helps["batch"]["--model"]
