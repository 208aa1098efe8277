"""docs/pipeline.md §4: loading, override order, rendering, code_fence, errors, and our built-in
prompts.

Where rendering details are not in docs/pipeline.md (how None/True/lists print, which whitespace the
result is trimmed of, how many trailing newlines code_fence drops) the goose-sdk wheel was
asked over loopback; ``test_rendering_matches_the_wheel`` keeps asking it. What it answered:
``None``/``True`` print capitalised, lists and maps print as ``["a", 1e16]``/``{"k": 1}``,
floats print without exponents at top level, the trim is Rust's (U+001F survives), and
code_fence drops every trailing ``\\n`` but not ``\\r`` or spaces.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from pathlib import Path
from typing import Any

import pytest

from goose_tui.compaction import templates as tm
from goose_tui.compaction.templates import (
    Template,
    TemplateError,
    Templates,
    TemplateSource,
    builtin_prompts_dir,
    code_fence,
    load_templates,
    override_dirs,
    render_compaction_prompt,
    render_summary_context,
    render_template,
)
from tests.summary_fields import SUMMARY_FIELDS


def edited(text: str, name: tm.TemplateName = "compaction_summary.md") -> Template:
    return Template(text=text, source=TemplateSource(name=name, origin="edited"))


def goose_defaults() -> Any:
    goose = pytest.importorskip("goose", reason="goose-sdk (the reference wheel) not installed")
    return goose.default_compaction_templates()


def write_pair(directory: Path, compaction: str, summary: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "compaction.md").write_text(compaction, encoding="utf-8")
    (directory / "compaction_summary.md").write_text(summary, encoding="utf-8")
    return directory


# --- code_fence ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("x = 1", "```\nx = 1\n```"),
        ("x = 1\n", "```\nx = 1\n```"),
        ("x\n\n\n", "```\nx\n```"),
        ("x  \n ", "```\nx  \n \n```"),
        ("\r\nx\r\n", "```\n\r\nx\r\n```"),
        ("use `a` and ``b``", "```\nuse `a` and ``b``\n```"),
        ("```py\nprint()\n```", "````\n```py\nprint()\n```\n````"),
        ("````a``b", "`````\n````a``b\n`````"),
        ("", "```\n\n```"),
    ],
)
def test_code_fence(code: str, expected: str) -> None:
    assert code_fence(code) == expected


# --- the summary template -------------------------------------------------------------------

SUMMARIES: list[dict[str, Any]] = [
    {},
    {"current_work": "only this"},
    {"next_step": "run pytest -k gauge"},
    {"user_intent": ["ship the gauge", "keep 0.8 default"], "pending_tasks": ["docs"]},
    {
        "files": [
            {"path": "goose_tui/tokens.py", "summary": "added the counter", "key_code": "x = 1\n"},
            {"path": "", "summary": "a file with no path", "key_code": None},
            {"path": "README.md", "summary": "", "key_code": "````md\n```\n````"},
        ]
    },
    {"files": [{"path": "only/path.py", "summary": "s"}]},
    {
        "user_intent": ["ünïcödé ✓", "line one\nline two"],
        "technical_concepts": ["jinja2", "tiktoken"],
        "errors_and_fixes": ['E   AssertionError: assert 3 == 4\n  File "t.py", line 9'],
        "problem_solving": ["chose the sandbox"],
        "user_messages": ["please fix {{ it }}", "{% if x %}literal{% endif %}"],
        "pending_tasks": ["a"],
        "current_work": "multi\nline\n\nwork",
        "next_step": "n",
    },
    {"technical_concepts": ["b"], "user_messages": ["u"], "extra_field": ["ignored"]},
    {"errors_and_fixes": ["  indented entry  "], "current_work": "  padded  "},
    {"problem_solving": ["p"], "files": [], "current_work": None, "next_step": "end"},
    {"user_messages": ["{{ 7 * 7 }}", "{#- not a comment -#}", "</analysis>"]},
]


def test_builtin_pair_exists_and_loads() -> None:
    directory = builtin_prompts_dir()
    assert (directory / "compaction.md").is_file()
    assert (directory / "compaction_summary.md").is_file()
    loaded = load_templates()
    assert loaded.compaction.source.origin == "built-in"
    assert loaded.summary.source.path == directory / "compaction_summary.md"
    assert loaded.warnings == []


@pytest.mark.parametrize("summary", SUMMARIES, ids=[str(i) for i in range(len(SUMMARIES))])
def test_our_summary_template_renders_exactly_like_goose_default(summary: dict[str, Any]) -> None:
    ours = load_templates()
    theirs = ours.with_text("compaction_summary.md", goose_defaults().summary)
    assert render_summary_context(ours, summary) == render_summary_context(theirs, summary)


def test_summary_sections_and_values_are_never_template_code() -> None:
    text = render_summary_context(load_templates(), SUMMARIES[6])
    assert text.startswith("# Conversation Summary\n\n## User Intent\n- ünïcödé ✓\n")
    assert "- please fix {{ it }}\n- {% if x %}literal{% endif %}\n" in text
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings == [
        "## User Intent",
        "## Technical Concepts",
        "## Errors + Fixes",
        "## Problem Solving",
        "## User Messages",
        "## Pending Tasks",
        "## Current Work",
        "## Next Step",
    ]
    literal = render_summary_context(load_templates(), SUMMARIES[-1])
    assert "- {{ 7 * 7 }}\n- {#- not a comment -#}\n- </analysis>" in literal
    assert "49" not in literal


def test_key_code_with_a_four_backtick_run_gets_a_five_backtick_fence() -> None:
    text = render_summary_context(load_templates(), SUMMARIES[4])
    assert "### README.md\n\n`````\n````md\n```\n````\n`````" in text
    assert "### goose_tui/tokens.py\nadded the counter\n```\nx = 1\n```" in text


# --- the compaction prompt -------------------------------------------------------------------


def test_our_compaction_prompt_keeps_the_contract() -> None:
    text = load_templates().compaction.text
    assert "{{ messages }}" in text
    for key in SUMMARY_FIELDS:
        assert f'"{key}"' in text
    assert "<analysis>" in text and "</analysis>" in text and "```json" in text
    prompt = str(render_compaction_prompt(load_templates(), "[user]: hello {{ not code }}"))
    assert "[user]: hello {{ not code }}" in prompt
    assert prompt == prompt.strip()
    assert "{#" not in prompt  # the explanatory comment never reaches the model


def test_our_prompt_wording_is_not_goose_wording() -> None:
    ours = load_templates().compaction.text
    theirs = goose_defaults().compaction
    their_lines = {line.strip() for line in theirs.splitlines() if len(line.strip()) > 30}
    # Only the shared contract (variable, schema keys) may coincide, never a sentence.
    assert not [line for line in their_lines if line in ours]


# --- loading and the override order ----------------------------------------------------------


def test_goose_templates_from_prompts_dir_load_byte_for_byte(tmp_path: Path) -> None:
    defaults = goose_defaults()
    directory = write_pair(tmp_path / "p", defaults.compaction, defaults.summary)
    loaded = load_templates(directory)
    assert loaded.compaction.text == defaults.compaction
    assert loaded.summary.text == defaults.summary
    assert loaded.compaction.source.origin == "prompts-dir"


def test_override_order_first_hit_wins_per_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    explicit = tmp_path / "explicit"
    root = tmp_path / "root"
    xdg = tmp_path / "xdg"
    explicit.mkdir()
    (explicit / "compaction.md").write_text("explicit {{ messages }}")
    write_pair(root / "config" / "prompts", "root {{ messages }}", "root summary")
    write_pair(xdg / "goose" / "prompts", "xdg {{ messages }}", "xdg summary")
    monkeypatch.setenv("GOOSE_PATH_ROOT", str(root))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(xdg))

    assert [origin for origin, _ in override_dirs(explicit)] == [
        "prompts-dir",
        "goose-path-root",
        "xdg-config",
        "built-in",
    ]
    both = load_templates(explicit)
    assert (both.compaction.text, both.compaction.source.origin) == (
        "explicit {{ messages }}",
        "prompts-dir",
    )
    assert (both.summary.text, both.summary.source.origin) == ("root summary", "goose-path-root")

    (root / "config" / "prompts" / "compaction_summary.md").unlink()
    assert load_templates(explicit).summary.source.origin == "xdg-config"
    (xdg / "goose" / "prompts" / "compaction_summary.md").unlink()
    assert load_templates(explicit).summary.source.origin == "built-in"


def test_relative_goose_path_root_and_xdg_are_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write_pair(tmp_path / "rel" / "config" / "prompts", "rel", "rel")
    write_pair(tmp_path / "home" / ".config" / "goose" / "prompts", "home {{ messages }}", "h")
    monkeypatch.setenv("GOOSE_PATH_ROOT", "rel")
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/config")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    origins = dict(override_dirs())
    assert "goose-path-root" not in origins
    assert origins["xdg-config"] == tmp_path / "home" / ".config" / "goose" / "prompts"
    assert load_templates().compaction.text == "home {{ messages }}"


# --- errors ------------------------------------------------------------------------------------


def test_syntax_error_names_file_and_line(tmp_path: Path) -> None:
    directory = write_pair(tmp_path, "line one\nline two\n{% if messages %}\nno endif", "ok")
    templates = load_templates(directory)
    with pytest.raises(TemplateError) as caught:
        render_compaction_prompt(templates, "x")
    error = caught.value
    assert error.path == directory / "compaction.md"
    assert error.line == 4
    assert str(error).startswith(f"{directory / 'compaction.md'}:4: ")


def test_render_error_names_file_and_line(tmp_path: Path) -> None:
    directory = write_pair(tmp_path, "{{ messages }}", "# S\n\n{{ user_intent.nope.deeper }}\n")
    with pytest.raises(TemplateError) as caught:
        render_summary_context(load_templates(directory), {"user_intent": ["a"]})
    assert caught.value.line == 3
    assert str(caught.value).startswith(f"{directory / 'compaction_summary.md'}:3: ")


def test_edited_template_error_names_the_template() -> None:
    with pytest.raises(TemplateError, match=r"^compaction_summary\.md:2: "):
        render_template(edited("fine\n{{ broken "), {})


def test_sandbox_blocks_python_internals() -> None:
    with pytest.raises(TemplateError):
        render_template(edited("{{ cycler.__init__.__globals__.os }}"), {})
    with pytest.raises(TemplateError):
        render_template(edited("{{ ''.__class__.__mro__[1].__subclasses__() }}"), {})


def test_broken_override_falls_back_to_builtin_with_a_warning(tmp_path: Path) -> None:
    directory = write_pair(tmp_path, "{% for %}", "fine")
    with pytest.raises(TemplateError):
        load_templates(directory).compaction.check()
    loaded = load_templates(directory, fallback=True)
    assert loaded.compaction.source.origin == "built-in"
    assert loaded.summary.source.origin == "prompts-dir"
    assert len(loaded.warnings) == 1 and "compaction.md:1:" in loaded.warnings[0]


def test_unreadable_override_raises_or_falls_back(tmp_path: Path) -> None:
    tmp_path.joinpath("compaction.md").write_bytes(b"\xff\xfe not utf-8")
    with pytest.raises(TemplateError, match="cannot read"):
        load_templates(tmp_path)
    assert load_templates(tmp_path, fallback=True).compaction.source.origin == "built-in"


def test_an_override_that_is_a_folder_raises_or_falls_back_with_a_warning(tmp_path: Path) -> None:
    # A compaction.md that is a folder was passed over in silence, the built-in used.
    tmp_path.joinpath("compaction.md").mkdir()
    with pytest.raises(TemplateError, match="is a folder, not a file"):
        load_templates(tmp_path)
    loaded = load_templates(tmp_path, fallback=True)
    assert loaded.compaction.source.origin == "built-in"
    assert loaded.warnings == [
        f"{tmp_path / 'compaction.md'}: is a folder, not a file (override skipped)"
    ]


# --- edits, caching, speed -----------------------------------------------------------------------


def test_with_text_replaces_one_template_in_memory() -> None:
    base = load_templates()
    changed = base.with_text("compaction_summary.md", "S: {{ current_work }}")
    assert changed.summary.source.origin == "edited" and changed.summary.source.path is None
    assert changed.compaction == base.compaction
    assert render_summary_context(changed, {"current_work": "w"}) == "S: w"
    assert base.summary.source.origin == "built-in"  # the original is untouched


def test_compiled_templates_are_cached_by_text() -> None:
    template = edited("cache probe {{ current_work }} 1f3a")
    render_template(template, {"current_work": "a"})
    before = tm._compile.cache_info()
    for i in range(5):
        render_template(edited(template.text), {"current_work": str(i)})
    after = tm._compile.cache_info()
    assert after.misses == before.misses
    assert after.hits == before.hits + 5


def test_rerendering_a_20kb_summary_is_fast() -> None:
    templates = load_templates()
    summary = {
        "user_intent": [f"goal {i} " + "x" * 80 for i in range(40)],
        "files": [
            {"path": f"src/m{i}.py", "summary": "s" * 100, "key_code": "def f():\n    pass\n" * 20}
            for i in range(20)
        ],
        "user_messages": [f"message {i} " + "y" * 120 for i in range(40)],
        "current_work": "w" * 2000,
    }
    assert len(render_summary_context(templates, summary)) > 20_000
    times = []
    for _ in range(15):
        start = time.perf_counter()
        render_summary_context(templates, summary)
        times.append(time.perf_counter() - start)
    assert statistics.median(times) < 0.05


def test_templates_model_round_trips() -> None:
    loaded = load_templates()
    assert Templates.model_validate(loaded.model_dump()) == loaded


# --- the wheel decides the details docs/pipeline.md leaves open ---------------------------------

PROBES: list[tuple[str, dict[str, Any]]] = [
    # Each summary has a usable field, or the wheel would fall back to the raw reply.
    ("{{ none }}|{{ true }}|{{ false }}|{{ nope }}|{{ current_work }}", {"user_intent": ["a"]}),
    ("{{ user_intent }}|{{ files }}", {"user_intent": ["a", 'q"\\'], "files": []}),
    (
        "{{ extra }}|{{ n }}|{{ f }}|{{ big }}",
        {"user_intent": ["a"], "extra": {"k": [1, "x", None, True, 1e20]}, "f": 1.5, "big": 1e20},
    ),
    ("{{ small }}|{{ [1e16, 1e15, 1e-5, 0.0001, -0.0] }}", {"user_intent": ["a"], "small": 1e-7}),
    ("\u001f  {{ user_intent[0] }}\u00a0\u3000 \n", {"user_intent": ["mid"]}),
    (
        "{% for f in files %}<{{ f.key_code | code_fence }}>{% endfor %}",
        {
            "files": [
                {"path": "a", "summary": "s", "key_code": "x\n\n"},
                {"path": "b", "summary": "s", "key_code": "````a``b"},
                {"path": "c", "summary": "s", "key_code": "x  \n "},
            ]
        },
    ),
]


PROBES += [
    ("{{ \"<a href='/x'>&\\\"\" | escape }}|{{ '<b>' | e }}", {"user_intent": ["a"]}),
    ("{{ user_intent | safe }}|{{ 7 | safe }}|{{ none | safe }}", {"user_intent": ["a"]}),
    (
        "{{ user_intent is none }}|{{ current_work is none }}|{{ x is defined }}",
        {"user_intent": ["a"]},
    ),
    ("{% set x = 1 %}{{ x }}|{{ namespace }}|{{ 'a' ~ 'b' }}", {"user_intent": ["a"]}),
]

# Templates Goose's engine cannot render (no jinja built-in filters, tests or globals, no "%"):
# the wheel keeps the raw reply, and we raise TemplateError so the caller can do the same.
FAILING = [
    "{{ user_intent | upper }}",
    "{{ user_intent | length }}",
    "{{ user_intent | default('d') }}",
    "{% for i in range(2) %}{{ i }}{% endfor %}",
    "{{ dict(a=1) }}",
    "{{ user_intent is string }}",
    "{{ '%s' % 1 }}",
    "{{ nope.deeper }}",
]


def _wheel_render(summary_template: str, summary: dict[str, Any]) -> str:
    """What goose-sdk makes of ``summary`` with ``summary_template``, through a scripted
    model on loopback."""
    goose = pytest.importorskip("goose", reason="goose-sdk (the reference wheel) not installed")
    from tests.loopback import LoopbackServer, Reply

    reply = "<analysis>checked</analysis>\n```json\n" + json.dumps(summary) + "\n```"

    async def run() -> str:
        with LoopbackServer([Reply.ok(reply)]) as server:
            provider = goose.openai_provider("test-key", server.url)
            pair = goose.CompactionTemplates(compaction="{{ messages }}", summary=summary_template)
            message = goose.CompactionMessage(role=goose.MessageRole.USER, text="hi")
            result = await provider.compact("gpt-4o", [message], pair)
            return result.text

    return asyncio.run(run())


@pytest.mark.parametrize(("template", "summary"), PROBES, ids=[str(i) for i in range(len(PROBES))])
def test_rendering_matches_the_wheel(template: str, summary: dict[str, Any]) -> None:
    expected = _wheel_render(template, summary)
    context = {key: None for key in ("current_work", "next_step")} | summary
    assert render_template(edited(template), context) == expected


@pytest.mark.parametrize("index", [0, 4, 6, 8])
def test_our_summary_template_matches_the_wheel_end_to_end(index: int) -> None:
    summary = SUMMARIES[index]
    expected = _wheel_render(goose_defaults().summary, summary)
    if expected.startswith("<analysis>"):
        # The wheel fell back to raw text: nothing usable, nothing to compare.
        assert index == 0
        return
    assert render_summary_context(load_templates(), summary) == expected


@pytest.mark.parametrize("template", FAILING)
def test_what_the_wheel_cannot_render_is_a_template_error(template: str) -> None:
    summary = {"user_intent": ["a"]}
    raw_reply = _wheel_render(template, summary)
    assert raw_reply.startswith("<analysis>checked</analysis>")  # the wheel kept the reply
    with pytest.raises(TemplateError):
        render_template(edited(template), summary)


def test_goose_s_own_templates_come_from_the_installed_wheel_never_shipped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    from goose_tui.compaction.templates import goose_own_templates
    from goose_tui.inspector import NO_GOOSE_TEMPLATES, Inspector

    goose = pytest.importorskip("goose", reason="the goose-sdk wheel (Linux x86_64) is absent")
    defaults = goose.default_compaction_templates()
    assert goose_own_templates() == {
        "compaction.md": defaults.compaction,
        "compaction_summary.md": defaults.summary,
    }
    assert not (builtin_prompts_dir() / "goose").exists()
    monkeypatch.setitem(sys.modules, "goose", None)  # as on a machine without the wheel
    assert goose_own_templates() is None
    assert Inspector().template_diffs().count(NO_GOOSE_TEMPLATES) == 2
