"""A broken override (a template that does not compile) is named by file and line: the
pipeline raises, the CLI prints one line and exits 2, the app falls back to the built-in
template with a visible warning."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goose_tui.cli import main
from goose_tui.compaction.summarize import build_request
from goose_tui.compaction.templates import TemplateError, load_templates
from goose_tui.session.models import Message
from tests.compaction.test_templates_sandbox import override


def broken_prompts(tmp_path: Path) -> Path:
    return override(tmp_path, "compaction.md", "{{ messages }}\n{% for x in %}")


def test_broken_override_fails_the_pipeline_naming_file_and_line(tmp_path: Path) -> None:
    prompts = broken_prompts(tmp_path)
    message = Message(role="user", content=[{"type": "text", "text": "hi"}])
    with pytest.raises(TemplateError) as caught:
        build_request([message], load_templates(prompts))
    assert str(caught.value).startswith(f"{prompts / 'compaction.md'}:4: ")


def test_broken_override_fails_the_cli_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    prompts = broken_prompts(tmp_path)
    session = tmp_path / "s.jsonl"
    message = {"role": "user", "created": 1, "content": [{"type": "text", "text": "hi"}]}
    session.write_text(json.dumps(message) + "\n", encoding="utf-8")

    code = main(["prompt", str(session), "--prompts-dir", str(prompts)])

    err = capsys.readouterr().err
    assert code != 0
    lines = err.strip().splitlines()
    assert len(lines) == 1 and f"{prompts / 'compaction.md'}:4: " in lines[0]
    assert "Traceback" not in err


@pytest.mark.app
async def test_app_falls_back_to_the_builtin_with_a_visible_warning(tmp_path: Path) -> None:
    """The app must open with a broken override: built-in template in use, the problem
    (file and line) shown, not a crash."""
    from goose_tui.tui.app import GooseTUI

    prompts = broken_prompts(tmp_path)
    session = Path(__file__).parents[1] / "tui" / "data" / "small_session.jsonl"
    app = GooseTUI(session, prompts_dir=prompts)
    notes: list[str] = []
    real_notify = app.notify

    def notify(message: str, *args, **kwargs):
        notes.append(str(message))
        return real_notify(message, *args, **kwargs)

    app.notify = notify  # type: ignore[method-assign]
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause()
        assert app.inspector.templates.compaction.source.origin == "built-in"
        shown = notes + [str(w) for w in app.inspector.templates.warnings]
        assert any(f"{prompts / 'compaction.md'}:4" in text for text in shown)


@pytest.mark.parametrize("command", ["prompt", "compact"])
def test_an_override_that_does_not_compile_is_unusable_input_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture, command: str
) -> None:
    # The README says a broken override is an error with exit 2: unusable input, found
    # before any work, not when rendering.
    from tests.conftest import SAMPLES

    prompts = tmp_path / "prompts"
    prompts.mkdir()
    (prompts / "compaction.md").write_text("{% if %}\n")
    code = main([command, str(SAMPLES / "short.jsonl"), "--prompts-dir", str(prompts)])
    out, err = capsys.readouterr()
    assert code == 2, err
    assert "compaction.md:1: syntax error" in err and out == ""
