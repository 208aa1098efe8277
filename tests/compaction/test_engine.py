"""Goose's template engine in goose-tui (goose_tui/compaction/engine.py, issue 10 section 3):
the hand-written table of tests/template_cases.py, the sandbox budgets, the panics Goose
does not survive, and the pieces the engine is configured with. The same table is checked
against the goose-sdk wheel in tests/differential/test_templates_engine.py."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goose_tui.compaction import engine
from goose_tui.compaction.engine import Compiled, EngineError, literal, scan
from goose_tui.compaction.summarize import finish
from goose_tui.compaction.templates import (
    Template,
    TemplateError,
    TemplateSource,
    load_templates,
    render_template,
)
from tests.template_cases import CASES, CRASHES, MESSAGES, Err


def render(text: str, context: dict | None = None) -> str:
    return Compiled(text).render({"messages": MESSAGES} if context is None else context)


@pytest.mark.parametrize(("text", "expected"), CASES.values(), ids=list(CASES))
def test_hand_written_cases_render_as_goose_does(text: str, expected: str | Err) -> None:
    if isinstance(expected, Err):
        with pytest.raises(EngineError) as caught:
            render(text)
        assert (caught.value.message, caught.value.line) == expected
    else:
        assert render(text) == expected


@pytest.mark.parametrize("text", CRASHES.values(), ids=list(CRASHES))
def test_where_goose_panics_we_raise_a_clear_error(text: str) -> None:
    """Goose's minijinja 2.24.0 panics here (value/ops.rs: "index out of bounds: the len is
    0 but the index is 0") and the compaction task dies; goose-tui keeps running and says
    so. The environment a panic poisons is rebuilt: the next render works."""
    compiled = Compiled(text + "{{ messages }}")
    for _ in range(2):
        with pytest.raises(EngineError) as caught:
            compiled.render({"messages": MESSAGES})
        assert caught.value.kind == "crash"
        assert "Goose's template engine crashes" in caught.value.message
        assert "index out of bounds" in caught.value.message
    assert Compiled("{{ messages }}").render({"messages": "after"}) == "after"


def test_a_summary_template_that_crashes_fails_the_compaction(tmp_path: Path) -> None:
    """Goose fails the whole compaction on the panic (the wheel raises "task panicked"), it
    does not keep the raw reply as it does for an ordinary template error."""
    (tmp_path / "compaction_summary.md").write_text("{{ user_intent[:0][::-1] }}")
    with pytest.raises(TemplateError) as caught:
        finish('{"user_intent": ["a"]}', load_templates(tmp_path))
    assert caught.value.kind == "crash"


# --- sandbox budgets (docs/reliability.md) ------------------------------------------------------

BUDGET_SECONDS = 30  # generous for a loaded 2-core machine; 0.2-1.1 s measured unloaded


NEVER_ENDING = [
    (
        "nested billion-iteration loops",
        "{% for a in [0] * 1000000000 %}{% for b in [0] * 1000000000 %}x{% endfor %}{% endfor %}",
        "time budget exhausted",
    ),
    (
        "nested loops printing",
        "{% for a in messages %}{% for b in messages %}{{ b }}{% endfor %}{% endfor %}",
        "time budget exhausted",
    ),
    (
        "100 MB strings in a loop",
        "{% for a in [0] * 1000000000 %}{{ 'x' * 100000000 }}{% endfor %}",
        "output budget exhausted",
    ),
    (
        "the whole conversation in a nested loop",
        "{% for a in messages %}{% for b in messages %}{{ messages }}{% endfor %}{% endfor %}",
        "output budget exhausted",
    ),
    (
        # It printed without end; the sandbox called it a loop without end.
        "10 KB of template text in a loop",
        "{% for a in [0] * 1000000000 %}" + "y" * 10_000 + "{% endfor %}",
        "output budget exhausted",
    ),
    (
        # Whitespace only and a raw block's text are not counted (engine.count_loop_text):
        # the instruction budget bounds them.
        "a loop printing only whitespace",
        "{% for a in [0] * 1000000000 %}" + " " * 10_000 + "{% endfor %}",
        "time budget exhausted",
    ),
    (
        "a raw block in a loop",
        "{% for a in [0] * 1000000000 %}{% raw %}" + "r" * 10_000 + "{% endraw %}{% endfor %}",
        "time budget exhausted",
    ),
]


@pytest.mark.parametrize(("name", "text", "reason"), NEVER_ENDING, ids=[c[0] for c in NEVER_ENDING])
def test_a_template_that_never_ends_stops_within_the_budget(
    name: str, text: str, reason: str, tmp_path: Path
) -> None:
    """Goose has no budget (``range`` does not exist there, ``[0] * 10**9`` is its lazy
    equivalent): the override would hang Goose; goose-tui stops it and reports it as a broken
    override with the reason."""
    (tmp_path / "compaction.md").write_text(text)
    templates = load_templates(tmp_path)
    start = time.perf_counter()
    with pytest.raises(TemplateError) as caught:
        render_template(templates.compaction, {"messages": "m" * 100_000})
    assert time.perf_counter() - start < BUDGET_SECONDS
    assert caught.value.kind == "budget"
    assert reason in str(caught.value)
    assert str(caught.value).startswith(f"{tmp_path / 'compaction.md'}:")


def test_range_does_not_exist_so_the_billion_loop_of_the_brief_fails_at_once() -> None:
    with pytest.raises(EngineError, match="unknown function: range is unknown"):
        render("{% for i in range(10**9) %}{% for j in range(10**9) %}{% endfor %}{% endfor %}")


def test_a_long_text_in_a_loop_leaves_the_instruction_budget_whole() -> None:
    # The text a loop prints is counted as output: a long paragraph in a loop once lowered
    # the budget for the whole template (2 KB: 33,026 instructions).
    assert Compiled("{{ messages }}").fuel == engine.FUEL
    for body in ("x" * 2_000, " \n  " + "x" * 2_000 + " \n", "é" * 2_000):
        assert Compiled("{% for m in messages %}" + body + "{% endfor %}").fuel == engine.FUEL
    items = list(range(10_000))
    loop = "{% for i in items %}{{ i }}" + "z" * 2_000 + "\n{% endfor %}"
    assert Compiled(loop).render({"items": items}).count("z" * 2_000) == 10_000
    # What is not counted still lowers it.
    for body in (" " * 2_000, "{% raw %}" + "r" * 2_000 + "{% endraw %}"):
        assert Compiled("{% for m in messages %}" + body + "{% endfor %}").fuel < engine.FUEL


# --- the pieces ------------------------------------------------------------------------------


def test_context_lists_and_maps_are_engine_values_not_python_objects() -> None:
    """Handed over as Python objects they would print as Python reprs and have Python's
    methods; as literals they are the engine's own, as serde makes them in Goose."""
    context = {"obj": {"z": [1, None, True], "a": 'q"\\'}, "items": ["x"]}
    assert (
        render("{{ obj }}|{{ items }}", context) == '{"a": "q\\"\\\\", "z": [1, None, True]}|["x"]'
    )
    with pytest.raises(EngineError, match="map has no method named items"):
        render("{{ obj.items() }}", context)
    with pytest.raises(EngineError, match="sequence has no method named append"):
        render("{{ items.append(1) }}", context)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, "none"),
        (True, "true"),
        (-3, "(-3)"),
        (2**64, "18446744073709551616"),
        (1e-05, "1e-05"),
        (-0.0, "-0.0"),
        (float("inf"), "1e999"),
        ('a"\\b', '"a\\"\\\\b"'),
        ({"b": 1, "a": [2]}, '{"a": [2], "b": 1}'),
    ],
)
def test_literal(value: object, text: str) -> None:
    assert literal(value) == text


def test_file_entries_keep_their_struct_field_order() -> None:
    """Goose's FileEntry is a Rust struct: serialized in field order, not sorted (checked
    against the wheel in tests/differential/test_findings.py::file_objects)."""
    template = Template(
        text="{{ files[0] }}", source=TemplateSource(name="compaction_summary.md", origin="edited")
    )
    context = {"files": [{"path": "p", "summary": "s", "key_code": None}]}
    from goose_tui.compaction.templates import Templates

    templates = load_templates().with_template(template)
    assert isinstance(templates, Templates)
    from goose_tui.compaction.templates import render_summary_context

    assert (
        render_summary_context(templates, context)
        == '{"path": "p", "summary": "s", "key_code": None}'
    )


def test_scan_finds_statements_only_in_tags() -> None:
    assert scan("{% raw %}{% macro %}{% endraw %}").goose_error is None
    assert scan("{# {% break %} #}").goose_error is None
    assert scan("{{ '{% call %}' }}").goose_error is None
    assert scan("a\n\n{%- macro m() %}").goose_error == (
        7,
        3,
        "syntax error: unknown statement macro",
    )


def test_template_files_are_read_without_newline_translation(tmp_path: Path) -> None:
    (tmp_path / "compaction.md").write_bytes(b"a\r\n{{ messages }}\r\nb")
    templates = load_templates(tmp_path)
    assert templates.compaction.text == "a\r\n{{ messages }}\r\nb"
    assert render_template(templates.compaction, {"messages": "m"}) == "a\r\nm\r\nb"


def test_lone_surrogates_never_escape_as_python_errors() -> None:
    """A reply's JSON may hold "\\ud800" (Python's json reads it); the binding turns it into
    U+FFFD whether the value is passed directly or written as a literal."""
    assert render("{{ x }}|{{ y }}", {"x": "\ud800", "y": ["\ud800"]}) == (
        '\ufffd\ufffd\ufffd|["\ufffd\ufffd\ufffd"]'
    )
    with pytest.raises(EngineError, match="lone surrogate"):
        Compiled("\ud800{{ x }}")


@pytest.mark.parametrize(
    "value",
    ['q"\\b', "{{ x }}{% if %}", "\\n\\u0041", "a\ud800b", "é🙂\u202e", "", " \n\t"],
)
def test_a_string_handed_over_as_a_global_renders_as_its_literal(value: str) -> None:
    """A string value reaches the template from a global, not written into the source: the
    same text as its literal (escapes, tags and surrogates alike), the same tests and
    methods, and the global is gone after the render."""
    template = (
        "{{ x }}|{{ x ~ x }}|{{ x is defined }}|{{ x[1:] }}|{% for c in x %}<{{ c }}>{% endfor %}"
    )
    handed = Compiled(template)
    assert handed.render({"x": value}) == Compiled(
        "{% set x = " + literal(value) + " %}" + template
    ).render({})
    assert not [name for name in handed._env.globals if name.startswith(engine._SLOT)]


def test_renders_of_one_template_from_several_threads() -> None:
    """The app renders from worker threads; one compiled template serves them one at a time
    (the binding releases the GIL while rendering, and the finalizer takes it back)."""
    import threading

    compiled = Compiled("{% for a in messages %}{{ a }}{% endfor %}")
    results: list[int] = []

    def run() -> None:
        results.append(len(compiled.render({"messages": "x" * 20_000})))

    threads = [threading.Thread(target=run) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert results == [20_000] * 6


# Uses of x that print it whole (the output holds x as it is, unless a block around it
# captures or transforms it), and uses that do not.
_PRINTS_WHOLE = [
    "text ",
    "\n",
    "  ",
    "{{ x }}",
    "{{- x -}}",
    "{{ y }}",
    "{% for i in [1, 2] %}[{{ x }}]{% endfor %}",
    "{% if y %}Y{{ x }}{% else %}N{% endif %}",
    "{% filter code_fence %}{{ x }}{% endfilter %}",
    "{% set z %}<{{ x }}>{% endset %}{{ z }}",
    "{% set z %}{{ x }}{% endset %}{% if 'a' in z %}A{% endif %}{{ z[2:] }}",
    "{% set z = 1 %}{{ z }}",
    "{% autoescape true %}{{ x }}{% endautoescape %}",
    "{% raw %}{{ x }}{% endraw %}",
    "{# {{ x }} #}",
]
_OTHER_USES = [
    "{{ x ~ '!' }}",
    "{{ x[1:] }}",
    "{% if 'a' in x %}has a{% endif %}",
    "{{ x | code_fence }}",
    "{% set z = x %}{{ z }}",
    "{% for c in x %}{% endfor %}",
    "{{ x is defined }}",
]


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(
    parts=st.lists(st.sampled_from(_PRINTS_WHOLE), max_size=5),
    other=st.one_of(st.just(""), st.sampled_from(_OTHER_USES)),
    x=st.one_of(st.text(max_size=30), st.text(alphabet="a`<&\n ", max_size=30)),
    y=st.sampled_from(["", "yes"]),
    cuts=st.lists(st.integers(min_value=0, max_value=30), max_size=4),
)
def test_a_long_string_printed_only_whole_is_spliced_as_the_engine_prints_it(
    parts: list[str], other: str, x: str, y: str, cuts: list[int]
) -> None:
    """A string printed only by bare ``{{ x }}`` (the prompt's ``{{ messages }}``) goes into
    the engine as a stand-in and into the output afterwards; any other use of it (an
    expression, a loop, a test, a capturing or escaping block) keeps the engine's own
    render. Both ways render the same text, or fail the same way; and so does the string
    given as the pieces it is the join of (engine.Pieces, how the prompt's conversation
    comes), spliced or not."""
    template = "".join(parts) + other
    bounds = sorted({0, len(x), *(c for c in cuts if c <= len(x))})
    pieces = engine.Pieces([x[a:b] for a, b in zip(bounds, bounds[1:], strict=False)] or [""])
    assert str(pieces) == x

    # One template renders all four ways, as the app renders one compiled prompt many times:
    # what one render hands the engine must not change the next.
    try:
        compiled = Compiled(template)
    except EngineError:
        return  # nothing renders, either way

    def outcome(threshold: int, value: str | engine.Pieces) -> str:
        original = engine.VERBATIM_CHARS
        engine.VERBATIM_CHARS = threshold
        try:
            return compiled.render({"x": value, "y": y})
        except EngineError as exc:
            return f"error: {exc.message}"
        finally:
            engine.VERBATIM_CHARS = original

    engine_render = outcome(1 << 60, x)
    assert outcome(0, x) == engine_render
    assert outcome(0, pieces) == engine_render
    assert outcome(1 << 60, pieces) == engine_render


def test_the_names_printed_only_whole() -> None:
    assert Compiled("a {{ messages }} b {{- messages -}}").printed_verbatim == {"messages"}
    assert not Compiled("{{ messages }}{{ messages ~ 'x' }}").printed_verbatim
    assert not Compiled("{% filter code_fence %}{{ m }}{% endfilter %}").printed_verbatim
    assert not Compiled("{% set z %}{{ m }}{% endset %}").printed_verbatim
    assert Compiled("{% set z = 1 %}{{ m }}").printed_verbatim == {"m"}


def test_the_prompt_is_spliced_and_the_output_budget_still_holds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    long = "[user]: " + "x" * engine.VERBATIM_CHARS
    compiled = Compiled("{{ messages }}\n{{ messages }}")
    assert compiled.render({"messages": long}) == f"{long}\n{long}"
    monkeypatch.setattr(engine, "OUTPUT_CAP", len(long) * 2 - 1)
    with pytest.raises(EngineError, match="output budget exhausted"):
        Compiled("{{ messages }}\n{{ messages }}").render({"messages": long})


def test_pieces_with_a_lone_surrogate_or_past_the_budget_render_as_their_join(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    long = "[user]: " + "x" * engine.VERBATIM_CHARS
    for text in ("a\ud800b" + long, long):
        pieces = engine.Pieces([text[:3], text[3:9], text[9:]])
        compiled = Compiled("<{{ messages }}>{{ messages }}")
        assert compiled.render({"messages": pieces}) == compiled.render({"messages": text})
    monkeypatch.setattr(engine, "OUTPUT_CAP", len(long) * 2 - 1)
    with pytest.raises(EngineError, match="output budget exhausted"):
        Compiled("{{ messages }}\n{{ messages }}").render({"messages": engine.Pieces([long])})
