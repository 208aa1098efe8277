"""Templates never run code, end to end: an override that tries to climb out of the sandbox,
read by the CLI and the pipeline from ``--prompts-dir``, and template code inside session
messages and inside a model's summary, which renders literally. tests/compaction/
test_templates.py checks the template module on its own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goose_tui.cli import main
from goose_tui.compaction.summarize import build_request, finish
from goose_tui.compaction.templates import TemplateError, load_templates
from goose_tui.session.models import Message

# Each tries to climb from a template to Python objects, the filesystem or a shell. The
# marker file must never appear; the output must never show a Python object's repr.
ESCAPES = [
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{{ cycler.__init__.__globals__.os.popen('touch MARKER').read() }}",
    "{{ lipsum.__globals__['os'].system('touch MARKER') }}",
    "{{ joiner.__init__.__globals__.__builtins__.open('MARKER', 'w') }}",
    "{{ self.__init__.__globals__ }}",
    "{{ namespace.__init__.__globals__ }}",
    "{% set c = ''|attr('__class__') %}{{ c.__mro__ }}",
    "{{ '{0.__class__.__mro__}'.format('') }}",
    "{{ user_intent.__class__.__base__.__subclasses__() }}",
    "{{ self._TemplateReference__context }}",
]
PY_REPRS = ("<class", "<function", "<module", "<built-in", "__builtins__", "subclasses")


def override(tmp_path: Path, name: str, body: str) -> Path:
    folder = tmp_path / "prompts"
    folder.mkdir(exist_ok=True)
    # Two lines of preamble so the error's line number is not trivially 1.
    (folder / name).write_text("Intro line\n\n" + body + "\n", encoding="utf-8")
    return folder


def summary_file(tmp_path: Path, summary: dict) -> Path:
    path = tmp_path / "summary.json"
    path.write_text(json.dumps(summary), encoding="utf-8")
    return path


@pytest.mark.parametrize("payload", ESCAPES)
def test_override_cannot_escape_the_sandbox_through_the_cli(
    payload: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.chdir(tmp_path)
    prompts = override(tmp_path, "compaction_summary.md", payload)
    summary = summary_file(tmp_path, {"user_intent": ["fix the build"]})

    code = main(["render", str(summary), "--prompts-dir", str(prompts)])

    out, err = capsys.readouterr()
    assert not (tmp_path / "MARKER").exists()
    assert not any(marker in out for marker in PY_REPRS)
    if code != 0:
        # Blocked loudly (a global, filter or method that Goose's engine does not offer):
        # exit 1, one line naming the file and the line.
        assert code == 1
        assert f"{prompts / 'compaction_summary.md'}:3: " in err
        assert len(err.strip().splitlines()) == 1
    else:
        # Blocked quietly: the engine has no such attribute, so it renders as undefined.
        assert out.strip() == "Intro line"


@pytest.mark.parametrize("payload", ESCAPES[:3])
def test_compaction_override_cannot_escape_the_sandbox_in_the_pipeline(
    payload: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    templates = load_templates(override(tmp_path, "compaction.md", payload))
    message = Message(role="user", content=[{"type": "text", "text": "hello"}])
    with pytest.raises(TemplateError) as caught:
        build_request([message], templates)
    assert caught.value.line == 3
    assert caught.value.path == tmp_path / "prompts" / "compaction.md"
    assert not (tmp_path / "MARKER").exists()


HOSTILE_VALUES = [
    "{{ 7*7 }}",
    "{% for x in range(3) %}loop{% endfor %}",
    "{{ ''.__class__.__mro__ }}",
    "{# hidden #}",
    "{% raw %}",
    "{{ lipsum.__globals__ }}",
]


def hostile_summary() -> dict:
    return {
        "user_intent": HOSTILE_VALUES,
        "technical_concepts": ["{{ technical_concepts }}"],
        "files": [
            {
                "path": "{{ 6*6 }}.py",
                "summary": "{% if true %}yes{% endif %}",
                "key_code": "{{ 5*5 }}",
            }
        ],
        "errors_and_fixes": ["{%- set leak = 1 -%}"],
        "problem_solving": ["{{ self }}"],
        "user_messages": ["{{ cycler }}"],
        "pending_tasks": ["{{ messages }}"],
        "current_work": "{{ 8*8 }}",
        "next_step": "{% include 'compaction.md' %}",
        "extra_field": "{{ 9*9 }}",
    }


def test_summary_values_render_literally_from_a_model_reply() -> None:
    """A model (or an injected document it summarized) writes template code in every field:
    the built-in summary template prints it as text, it never runs."""
    reply = "<analysis>ok</analysis>\n```json\n" + json.dumps(hostile_summary()) + "\n```"
    extraction, summary = finish(reply, load_templates())

    assert extraction.structured is not None
    for value in HOSTILE_VALUES:
        assert f"- {value}\n" in summary
    assert "### {{ 6*6 }}.py\n{% if true %}yes{% endif %}\n```\n{{ 5*5 }}\n```" in summary
    assert "## Current Work\n{{ 8*8 }}" in summary
    assert "## Next Step\n{% include 'compaction.md' %}" in summary
    assert "- {{ messages }}" in summary
    for evaluated in ("49", "looploop", "36.py", "\nyes\n", "25", "64", "81", "<class"):
        assert evaluated not in summary


def test_extras_and_fields_render_literally_in_a_custom_override(tmp_path: Path) -> None:
    """An override that prints every value raw, extras included: still data, not code."""
    body = "{{ current_work }}|{{ extra_field }}|{% for v in user_intent %}{{ v }},{% endfor %}"
    templates = load_templates(override(tmp_path, "compaction_summary.md", body))
    reply = json.dumps(hostile_summary())
    _, summary = finish(reply, templates)
    assert summary == "Intro line\n\n{{ 8*8 }}|{{ 9*9 }}|" + "".join(
        v + "," for v in HOSTILE_VALUES
    )


def test_session_text_is_never_template_code_in_the_system_prompt() -> None:
    messages = [
        Message(role="user", content=[{"type": "text", "text": value}]) for value in HOSTILE_VALUES
    ]
    prompt = build_request(messages, load_templates()).system_prompt
    for value in HOSTILE_VALUES:
        assert f"[user]: {value}" in prompt
    assert "49" not in prompt and "looploop" not in prompt


def test_cli_parse_prints_hostile_values_literally(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    reply = tmp_path / "reply.txt"
    reply.write_text("```json\n" + json.dumps(hostile_summary()) + "\n```", encoding="utf-8")
    assert main(["parse", str(reply), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["structured"]["current_work"] == "{{ 8*8 }}"
    assert out["structured"]["extra_field"] == "{{ 9*9 }}"
    assert "- {{ 7*7 }}" in out["summary"] and "49" not in out["summary"]
