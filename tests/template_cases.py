"""What Goose's template engine does with hand-written templates (issue 10, section 3): one
table read by tests/compaction/test_engine.py (goose-tui gives exactly this) and by
tests/differential/test_templates_engine.py (the goose-sdk wheel gives exactly this).

Each case is rendered as a compaction template with ``messages`` = ``MESSAGES`` (Goose's
``SummarizeContext``), the path where the wheel reports its error. An expected ``str`` is
the rendered, trimmed text; an ``Err`` is Goose's reason (minijinja's ``Display`` without
the trailing ``(in template:N)``) and the line N.

Where jinja2 (goose-tui's engine before) differed, the comment says how.
"""

from __future__ import annotations

from typing import NamedTuple

MESSAGES = "[user]: hi"


class Err(NamedTuple):
    reason: str
    line: int | None


CASES: dict[str, tuple[str, str | Err]] = {
    # Maps print and iterate sorted by key (minijinja without preserve_order); jinja2 kept
    # insertion order.
    "map_literal_sorted": ('{{ {"b": 1, "a": 2} }}', '{"a": 2, "b": 1}'),
    "nested_maps_sorted": (
        '{% set x = {"q": 1, "b": [{"z": 0, "c": 1}], "a": 3} %}{{ x }}'
        "{% for k in x %}{{ k }}{% endfor %}",
        '{"a": 3, "b": [{"c": 1, "z": 0}], "q": 1}abq',
    ),
    "map_literal_duplicate_key": ('{{ {"b": 1, "a": 2, "b": 3} }}', '{"a": 2, "b": 3}'),
    "multiline_map_keeps_lines": (
        '{{ {"b": 1,\n"a": 2} }}\n{{ nope.x }}',
        Err("undefined value", 3),
    ),
    # Lists and maps inside ~ print as Goose prints them (jinja2: Python reprs).
    "tilde_lists_and_maps": (
        '{{ 1 ~ [1, "a"] ~ {"b": 2, "a": none, "c": {"z": 1, "y": 2}} }}',
        '1[1, "a"]{"a": None, "b": 2, "c": {"y": 2, "z": 1}}',
    ),
    "tilde_scalars": ('{{ "a" ~ 1 ~ 1.0 ~ none ~ true }}', "a11.0NoneTrue"),
    "code_fence_list": ('{{ [1, "a"] | code_fence }}', '```\n[1, "a"]\n```'),
    "code_fence_map": ('{{ {"b": 1, "a": 2} | code_fence }}', '```\n{"a": 2, "b": 1}\n```'),
    # Escaping: "/" and "'" become hex entities (markupsafe writes &#39; and keeps "/").
    "escape": (
        "{{ \"<&>'/\\\"\" | e }}|{{ 1 | e }}|{{ [1] | e }}|{{ 'a' | e | e }}",
        "&lt;&amp;&gt;&#x27;&#x2f;&quot;|1|[1]|a",
    ),
    "escaped_test": ('{{ "abc" is safe }}|{{ "a" | e is safe }}', "False|True"),
    # Integer division and modulo of negatives: floor division, Euclidean remainder
    # (jinja2: Python's %, so 7 % -2 was -1).
    "floor_div_and_mod": ("{{ -7 // 2 }}|{{ -7 % 2 }}|{{ 7 % -2 }}|{{ 7.5 % -2 }}", "-4|1|1|1.5"),
    # Division by zero: "/" gives inf; "//" fails (jinja2 raised ZeroDivisionError on both).
    "true_div_by_zero": ("{{ 1 / 0 }}", "inf"),
    "floor_div_by_zero": ("{{ 1 // 0 }}", Err("invalid operation: unable to calculate 1 // 0", 1)),
    "big_ints": (
        "{{ 2 ** 100 }}|{{ 9223372036854775807 + 1 }}",
        "1267650600228229401496703205376|9223372036854775808",
    ),
    "floats": ("{{ 0.1 + 0.2 }}|{{ 1.5e300 * 1e300 }}", "0.30000000000000004|inf"),
    # Python methods do not exist (jinja2's sandbox called str.upper, dict.items, ...).
    "method_upper": (
        '{{ "a".upper() }}',
        Err("unknown method: string has no method named upper", 1),
    ),
    "method_items_on_undefined": (
        "{{ x.items() }}",
        Err("unknown method: undefined has no method named items", 1),
    ),
    "method_append": (
        "{{ [1].append(2) }}",
        Err("unknown method: sequence has no method named append", 1),
    ),
    # Goose's minijinja is built without macros and loop controls (jinja2 had both).
    "macro": (
        "{% macro m() %}x{% endmacro %}{{ m() }}",
        Err("syntax error: unknown statement macro", 1),
    ),
    "call_block": (
        "{% call foo() %}x{% endcall %}",
        Err("syntax error: unknown statement call", 1),
    ),
    "break": (
        "line\n{% for i in [1] %}{% break %}{% endfor %}",
        Err("syntax error: unknown statement break", 2),
    ),
    "continue": (
        "{% for i in [1, 2] %}{% continue %}{% endfor %}",
        Err("syntax error: unknown statement continue", 1),
    ),
    "earlier_syntax_error_wins": (
        "{% if %}{% macro %}",
        Err("syntax error: unexpected end of block", 1),
    ),
    # goose-tui edits the source (code_fence's argument, see engine.scan); the first error
    # in the user's text still wins.
    "edit_then_macro_then_error": (
        "{{ x | code_fence }}{% macro %}{% if %}",
        Err("syntax error: unknown statement macro", 1),
    ),
    "edit_then_error_then_macro": (
        "{{ x | code_fence }}{% if %}{% macro %}",
        Err("syntax error: unexpected end of block", 1),
    ),
    "macro_inside_raw_is_text": ("{% raw %}{% macro %}{% endraw %}ok", "{% macro %}ok"),
    "macro_inside_comment": ("{# {% macro %} #}ok", "ok"),
    "macro_inside_string": ('{{ "{% macro %}" }}', "{% macro %}"),
    "self_is_undefined": ("[{{ self }}]", "[]"),
    # Names the context lacks are undefined, also those of a Python dict's methods (the
    # binding hands a Python context over as the dict; engine.py never passes one).
    "dict_method_names_are_undefined": ("[{{ items }}]|{{ keys is defined }}", "[]|False"),
    "dict_method_call": ("{{ keys() }}", Err("unknown function: keys is unknown", 1)),
    # Unknown filters fail only when they run (jinja2 refused them when compiling, outside
    # an if: in a loop body that never runs, for one).
    "unknown_filter_in_empty_loop": ("{% for x in [] %}{{ x | nosuch }}{% endfor %}ok", "ok"),
    "unknown_filter_in_dead_branch": ("{% if false %}{{ x | nosuch }}{% endif %}ok", "ok"),
    "unknown_filter_in_dead_ternary": ("{{ x | upper if false else 1 }}", "1"),
    "unknown_filter": ("{{ messages | upper }}", Err("unknown filter: filter upper is unknown", 1)),
    "unknown_filter_items": (
        '{{ {"a": 1} | items }}',
        Err("unknown filter: filter items is unknown", 1),
    ),
    "unknown_test": ("{{ messages is string }}", Err("unknown test: test string is unknown", 1)),
    "unknown_function_range": ("{{ range(3) }}", Err("unknown function: range is unknown", 1)),
    # Number literals: "5." is a float, "007" the integer 7 (jinja2 refused both).
    "number_literals": ("{{ 5. }}|{{ 007 }}|{{ 0x1F }}|{{ 1_000 }}", "5.0|7|31|1000"),
    # Identifiers are ASCII in Goose's build.
    "unicode_identifier": ("{{ é }}", Err("syntax error: unexpected character", 1)),
    "unicode_after_ascii": ("{{ aé }}", Err("syntax error: unexpected character", 1)),
    "unicode_in_string": ('{{ "é" }}', "é"),
    # loop.previtem / nextitem do not exist; loop.changed does.
    "loop_adjacent_items": (
        "{% for i in [1, 2] %}[{{ loop.previtem }}|{{ loop.nextitem }}|{{ loop.changed(i) }}]"
        "{% endfor %}",
        "[||True][||True]",
    ),
    # CR in the template source is kept (jinja2 normalized "\r\n" to "\n").
    "crlf_source": (
        "a\r\nb{{ 1 }}\r\n{% if true %}\r\nx\r\n{% endif %}\r\nz",
        "a\r\nb1\r\nx\r\nz",
    ),
    "lone_cr": ("a\r{{ messages }}\rb", "a\r[user]: hi\rb"),
    "slices": ('{{ messages[:5] }}|{{ "abc"[::-1] }}|{{ [1, 2][::-1] }}', "[user|cba|[2, 1]"),
    "string_repeat": ("{{ 'ab' * 3 }}|{{ [1] * 3 }}", "ababab|[1, 1, 1]"),
    "include_missing": (
        '{% include "x" %}',
        Err('template not found: tried to include non-existing template "x"', 1),
    ),
    "set_block": ("{% set a %}blk{% endset %}{{ a }}", "blk"),
    "with_block": ("{% with a = 1 %}{{ a }}{% endwith %}", "1"),
    "attribute_and_item": ('{{ {"a": 1}.a }}|{{ {"a": 1}["a"] }}', "1|1"),
    "none_true": ("{{ none }}|{{ true }}|{{ nope }}", "None|True|"),
}

# Goose's engine panics (the compaction task dies with "index out of bounds"); goose-tui
# reports a TemplateError of kind "crash" instead.
CRASHES = {
    "reverse_slice_empty_list": "{{ [][::-1] }}",
    "reverse_slice_empty_string": '{{ ""[::-1] }}',
    "reverse_slice_of_empty_slice": "{{ messages[:0][::-1] }}",
}
