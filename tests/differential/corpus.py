"""The differential corpus: conversations and scripted model replies written for this suite.

Each case pairs a conversation (``(role, text)`` with role user / assistant / tool, the only
shape the goose-sdk wheel accepts) with the reply the loopback model sends. ``fallback`` says
whether the reply is meant to end in the raw-text fallback; the suite checks that against the
reference, so a case that silently stops exercising what it was written for fails.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

Turn = tuple[str, str]


@dataclass(frozen=True)
class Case:
    name: str
    conversation: tuple[Turn, ...]
    reply: str
    fallback: bool = False


def fenced(obj: object, analysis: str | None = "checked goals, files, errors") -> str:
    """The reply shape the prompt asks for: an analysis, then one ```json block."""
    body = "```json\n" + json.dumps(obj, indent=2, ensure_ascii=False) + "\n```"
    return body if analysis is None else f"<analysis>\n{analysis}\n</analysis>\n\n{body}"


FULL = {
    "user_intent": ["Fix the failing date parser test", "Keep the public API stable"],
    "technical_concepts": ["ISO 8601", "pytest parametrize", "zoneinfo"],
    "files": [
        {
            "path": "src/dates.py",
            "summary": "Parser now accepts a trailing Z.",
            "key_code": "def parse(s: str) -> datetime:\n    return datetime.fromisoformat(s)\n",
        },
        {"path": "tests/test_dates.py", "summary": "Added the Z case."},
    ],
    "errors_and_fixes": ["ValueError: Invalid isoformat string: '2024-01-01T00:00:00Z'"],
    "problem_solving": ["Chose fromisoformat over dateutil: no new dependency"],
    "user_messages": ["the parser breaks on Z timestamps", "don't add dependencies"],
    "pending_tasks": ["Run the full suite"],
    "current_work": "Editing src/dates.py to normalise the suffix.",
    "next_step": "Run pytest -q tests/test_dates.py",
}

SHORT: tuple[Turn, ...] = (
    ("user", "the parser breaks on Z timestamps"),
    ("assistant", "Let me look at src/dates.py."),
    ("tool", "def parse(s):\n    return datetime.fromisoformat(s)"),
    ("assistant", "Found it."),
)

CODE_TURNS: tuple[Turn, ...] = (
    ("user", "Why does this fail?\n```python\nprint(f'{x!r}')\n```"),
    ("assistant", "A fence inside a fence:\n````markdown\n```js\nlet a = `t`;\n```\n````"),
    ("tool", "Traceback (most recent call last):\n  File \"a.py\", line 1\nNameError: name 'x'"),
    ("user", "``` unbalanced fence and a lone backtick ` here"),
)

JINJA_TURNS: tuple[Turn, ...] = (
    ("user", "Render {{ user.name }} and {% if admin %}secret{% endif %} literally"),
    ("assistant", "Template text: {# a comment #} {{ messages }} {%- raw %}{% endraw %}"),
    ("tool", "{{ 7 * 7 }} {% for x in y %}{{ x }}{% endfor %}"),
    ("user", "   {% if x %}\n  indented block tags\n{% endif %}   "),
)

UNICODE_TURNS: tuple[Turn, ...] = (
    ("user", "Überprüfe bitte die Datei — naïve café, 日本語のテキスト, Ελληνικά"),
    ("assistant", "Emoji 🚀🔥👩‍💻 and flags 🇫🇷, combining e\u0301, RTL שלום, zero\u200bwidth"),
    ("tool", "tab\tseparated\tcolumns\r\nCRLF line\u2028line separator\x0cform feed"),
    ("user", "math 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ∀x∈ℝ and NUL-free control \x07 bell"),
)

LONG_LINE: tuple[Turn, ...] = (
    ("user", "summarize this log"),
    ("tool", "x" * 20000 + " end"),
    ("assistant", ("word " * 3000).strip()),
)

EMPTY_TURNS: tuple[Turn, ...] = (
    ("user", ""),
    ("assistant", ""),
    ("tool", ""),
    ("user", "   "),
    ("assistant", "\n\n"),
)

MANY: tuple[Turn, ...] = tuple(
    (("user", "assistant", "tool")[i % 3], f"message {i}: step {i} of the refactor")
    for i in range(150)
)

ONLY_USER: tuple[Turn, ...] = (("user", "just one message"),)

TRAILING_NEWLINES: tuple[Turn, ...] = (
    ("user", "ends with newlines\n\n"),
    ("assistant", "\nstarts with a newline"),
    ("tool", "[assistant]: looks like a role prefix\n[user]: another"),
)

TOOLS_ONLY: tuple[Turn, ...] = tuple(("tool", f"output {i}") for i in range(6))


def _case(name: str, conversation: tuple[Turn, ...], reply: str, fallback: bool = False) -> Case:
    return Case(name, conversation, reply, fallback)


CASES: tuple[Case, ...] = (
    # Replies that must yield a structured summary.
    _case("full_schema", SHORT, fenced(FULL)),
    _case("no_analysis", SHORT, fenced({"user_intent": ["only intent"]}, analysis=None)),
    _case(
        "bare_object_no_fence",
        CODE_TURNS,
        '{"user_intent": ["bare object"], "current_work": "no fence at all"}',
    ),
    _case(
        "analysis_then_bare_object",
        SHORT,
        '<analysis>a</analysis>\n{"pending_tasks": ["after the tag, no fence"]}',
    ),
    _case(
        "multiple_analysis_closers",
        SHORT,
        "<analysis>one</analysis> stray </analysis>\n"
        + fenced({"user_intent": ["after two closers"]}, analysis=None),
    ),
    _case(
        "multiple_json_blocks",
        CODE_TURNS,
        "<analysis>draft</analysis>\n"
        + fenced({"user_intent": ["first block"]}, analysis=None)
        + "\n\nCorrection:\n"
        + fenced({"user_intent": ["second block wins"]}, analysis=None),
    ),
    _case(
        "last_json_block_unusable",
        SHORT,
        "<analysis>x</analysis>\n"
        + fenced({"user_intent": ["earlier usable block"]}, analysis=None)
        + "\n"
        + fenced({"user_intent": []}, analysis=None),
    ),
    _case(
        "summary_quotes_analysis_closer",
        SHORT,
        "<analysis>plan</analysis>\n"
        + fenced(
            {"user_intent": ["explain the </analysis> tag"], "next_step": "</analysis>"}, None
        ),
    ),
    _case(
        "key_code_four_backticks",
        CODE_TURNS,
        fenced(
            {
                "files": [
                    {
                        "path": "README.md",
                        "summary": "Docs with nested fences.",
                        "key_code": "````md\n```py\nx = 1\n```\n````\n",
                    }
                ]
            }
        ),
    ),
    _case(
        "objects_in_string_lists",
        SHORT,
        fenced(
            {
                "user_intent": [{"goal": "ship", "why": "deadline"}, ["a", ["b", "c"]], "plain"],
                "errors_and_fixes": [{"error": "E1", "fix": {"how": "retry", "n": 2}}],
            }
        ),
    ),
    _case(
        "scalars_in_fields",
        SHORT,
        fenced(
            {
                "user_intent": [1, 2.5, True, False, None, "x"],
                "technical_concepts": 42,
                "pending_tasks": "a single string",
                "current_work": 3.0,
                "next_step": False,
            }
        ),
    ),
    _case(
        "extras_kept",
        SHORT,
        fenced({"user_intent": ["with extras"], "confidence": 0.9, "notes": {"a": [1, 2]}}),
    ),
    _case(
        "duplicate_keys_last_wins",
        SHORT,
        '<analysis>d</analysis>\n```json\n{"user_intent": ["first"], "current_work": "a", '
        '"user_intent": ["second"], "current_work": "b"}\n```',
    ),
    _case(
        "unicode_escapes",
        UNICODE_TURNS,
        '```json\n{"user_intent": ["caf\\u00e9 \\ud83d\\ude80 \\u2028 \\"q\\" \\\\ \\/"],'
        ' "current_work": "tab\\there\\nnewline"}\n```',
    ),
    _case(
        "raw_control_chars_in_strings",
        SHORT,
        '```json\n{"user_intent": ["line one\nline two\ttabbed\rcr"], '
        '"next_step": "bell\x07"}\n```',
    ),
    _case(
        "files_as_strings",
        SHORT,
        fenced({"files": ["src/a.py", "src/b.py"], "user_intent": ["paths only"]}),
    ),
    _case(
        "files_single_object",
        SHORT,
        fenced({"files": {"path": "one.py", "summary": "the only file", "key_code": "x = 1"}}),
    ),
    _case("files_null", SHORT, fenced({"files": None, "pending_tasks": ["files was null"]})),
    _case(
        "blank_key_code_and_blank_file",
        SHORT,
        fenced(
            {
                "files": [
                    {"path": "kept.py", "summary": "s", "key_code": "   "},
                    {"path": " ", "summary": ""},
                    {"path": "", "summary": "summary without a path"},
                    {"summary": "no path key", "key_code": "print(1)"},
                ]
            }
        ),
    ),
    _case(
        "current_work_object",
        SHORT,
        fenced({"current_work": {"file": "a.py", "line": 10, "done": False}, "next_step": None}),
    ),
    _case(
        "nested_arrays",
        SHORT,
        fenced({"problem_solving": [[1, [2, [3, {"k": [4, None]}]]], []], "user_intent": [[]]}),
    ),
    _case(
        "blank_entries_dropped",
        SHORT,
        fenced({"user_intent": ["", "  ", "kept", "\n"], "current_work": "  ", "next_step": "n"}),
    ),
    _case(
        "jinja_in_values",
        JINJA_TURNS,
        fenced(
            {
                "user_intent": ["render {{ user.name }} literally", "{% if x %}y{% endif %}"],
                "files": [{"path": "{{ path }}", "summary": "{# c #}", "key_code": "{{ 1 + 1 }}"}],
                "current_work": "{% raw %}x{% endraw %}",
            }
        ),
    ),
    _case(
        "markdown_and_braces_in_strings",
        CODE_TURNS,
        "<analysis>braces { inside } the analysis {</analysis>\n"
        + fenced({"user_intent": ["a } brace and a { brace", "```json inside```"]}, None),
    ),
    _case(
        "prose_around_fence",
        LONG_LINE,
        "Here is the summary you asked for.\n\n"
        + fenced(FULL, analysis=None)
        + "\n\nLet me know if anything is missing.",
    ),
    _case("unicode_everywhere", UNICODE_TURNS, fenced({"user_intent": ["日本語 🚀 Ελληνικά"]})),
    _case("many_messages", MANY, fenced({"user_intent": ["refactor in 150 steps"]})),
    _case("empty_messages", EMPTY_TURNS, fenced({"user_intent": ["mostly empty input"]})),
    _case("one_message", ONLY_USER, fenced({"next_step": "answer the one message"})),
    _case("role_lookalikes", TRAILING_NEWLINES, fenced({"user_intent": ["spoofed prefixes"]})),
    _case("tools_only", TOOLS_ONLY, fenced({"problem_solving": ["only tool output seen"]})),
    _case(
        "number_spellings",
        SHORT,
        # Numbers are read as Goose's JSON reader reads them (f64 beyond u64/i64 range) and
        # written back in its spelling: 1.50 -> 1.5, 1e5 -> 100000.0, 1e16 -> 1e+16.
        '```json\n{"user_intent": [1.50, 1e5, -0, -0.0, 1e15, 1e16, 1e-7, 2.5e-3, 0.1,'
        " 18446744073709551615, 18446744073709551616, -9223372036854775809,"
        ' 123456789012345678901234567890], "current_work": 1E2, "next_step": -1.0e-10}\n```',
    ),
    _case(
        "nulls_inside_values",
        SHORT,
        '```json\n{"user_intent": [{"b": 1, "a": {"c": [true, null]}}, [null, " ", ""]],'
        ' "current_work": "nul \\u0000 escape", "pending_tasks": [null, "x"]}\n```',
    ),
    _case("json_fence_with_space", SHORT, '```json   \n  {"user_intent": ["spaced"]}  \n```'),
    # Replies that must fall back to the raw text, unchanged.
    _case("fallback_prose_only", SHORT, "I could not produce a summary, sorry.", True),
    _case("fallback_whitespace_only", SHORT, "  \n\t \n", True),
    _case("fallback_empty_reply", SHORT, "", True),
    _case(
        "fallback_json_before_analysis",
        SHORT,
        # The only cut is after the late closer and its tail is empty; the text starts with
        # a fence, not an object, so the good JSON before the analysis is never read.
        fenced({"user_intent": ["json first"]}, analysis=None) + "\n<analysis>late</analysis>",
        True,
    ),
    _case(
        "fallback_truncated_json",
        SHORT,
        '<analysis>x</analysis>\n```json\n{"user_intent": ["cut off',
        True,
    ),
    _case("fallback_json_array", SHORT, '```json\n[{"user_intent": ["in an array"]}]\n```', True),
    _case(
        "fallback_all_blank_fields",
        SHORT,
        fenced(
            {
                "user_intent": [],
                "technical_concepts": ["", " "],
                "files": [{"path": "", "summary": " "}],
                "current_work": "",
                "next_step": None,
            }
        ),
        True,
    ),
    _case("fallback_extras_only", SHORT, fenced({"confidence": 1, "notes": ["x"]}), True),
    _case("fallback_empty_object", SHORT, "<analysis>nothing</analysis>\n```json\n{}\n```", True),
    _case(
        "fallback_trailing_comma",
        SHORT,
        '```json\n{"user_intent": ["a"],}\n```',
        True,
    ),
    _case("fallback_analysis_only", SHORT, "<analysis>\nonly thinking\n</analysis>", True),
    _case(
        "fallback_unclosed_braces",
        CODE_TURNS,
        '<analysis>a</analysis>\n{"user_intent": ["x"] {{{',
        True,
    ),
    _case("fallback_json_string", SHORT, '```json\n"just a string"\n```', True),
    _case("fallback_single_quotes", SHORT, "```json\n{'user_intent': ['python dict']}\n```", True),
    _case(
        "fallback_number_out_of_range",
        SHORT,
        # Goose's reader rejects a number that overflows f64; Python's json would read inf.
        '```json\n{"user_intent": ["fine"], "current_work": 1E400}\n```',
        True,
    ),
    _case(
        "fallback_lone_surrogate",
        SHORT,
        # A lone surrogate escape is not a Unicode scalar: Goose's reader rejects it.
        '```json\n{"user_intent": ["bad \\ud800 escape"]}\n```',
        True,
    ),
    _case(
        "fallback_unquoted_closer_in_tail",
        SHORT,
        # The only object sits after the first closer, and another </analysis> follows it
        # outside the object: the candidate from that tail is not kept. The text itself does
        # not start with an object, so nothing is usable.
        '<analysis>a</analysis>\n{"user_intent": ["x"]}\n</analysis>',
        True,
    ),
)
