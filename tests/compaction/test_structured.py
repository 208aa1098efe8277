"""docs/pipeline.md §5: reading the structured summary leniently, normalizing, usability.

Expected strings marked "wheel" were read off goose-sdk (Provider.compact against a loopback
server, with a summary template that prints each field) — where it differs from a plain
reading of docs/pipeline.md §5, the wheel wins:
- numbers are serde_json's: 1.0 -> "1.0", 1e3 -> "1000.0", 1e16 -> "1e+16", 1e-6 -> "1e-6",
  -0 -> "-0.0", integers exact up to u64 / down to i64, larger ones become floats, and its
  fast float parser is not correctly rounded (1.5e-300 -> "1.4999999999999998e-300");
- 1E400, NaN, Infinity, lone surrogate escapes and nesting deeper than 127 do not parse;
- "blank" is Rust's trim(): NBSP and newlines are blank, \\x1c and zero-width space are not;
  kept values are never trimmed.
"""

from __future__ import annotations

import json

import pytest

from goose_tui.compaction.structured import (
    FileEntry,
    StructuredSummary,
    loads_json,
    stringify,
)
from goose_tui.session.serde import format_float
from tests.summary_fields import SUMMARY_FIELDS


def read(text: str) -> StructuredSummary:
    return StructuredSummary.parse_json_text(text)


@pytest.mark.parametrize(
    ("literal", "expected"),
    [
        ('"s"', "s"),
        ("null", ""),
        ("true", "true"),
        ("false", "false"),
        ("10", "10"),
        ("1.5", "1.5"),
        ("1.0", "1.0"),  # wheel
        ("1e3", "1000.0"),  # wheel
        ("1E2", "100.0"),  # wheel
        ("2.5E+3", "2500.0"),  # wheel
        ("12e-6", "0.000012"),  # wheel
        ("0.00001", "0.00001"),  # wheel
        ("0.000001", "1e-6"),  # wheel
        ("1e-7", "1e-7"),  # wheel
        ("1.5e-7", "1.5e-7"),  # wheel
        ("1e15", "1000000000000000.0"),  # wheel
        ("1e16", "1e+16"),  # wheel
        ("1.2345e20", "1.2345e+20"),  # wheel
        ("-0", "-0.0"),  # wheel: serde reads -0 as a float
        ("-0.0", "-0.0"),
        ("1e-400", "0.0"),  # wheel: underflow is zero, not an error
        ("5e-324", "5e-324"),
        ("18446744073709551615", "18446744073709551615"),  # wheel: u64::MAX stays exact
        ("18446744073709551616", "1.8446744073709552e+19"),  # wheel
        ("-9223372036854775808", "-9223372036854775808"),  # wheel: i64::MIN stays exact
        ("-9223372036854775809", "-9.223372036854776e+18"),  # wheel
        ("1234567890123456.7", "1234567890123456.8"),  # wheel
        ("12345678901234567.0", "1.2345678901234566e+16"),  # wheel
        ("1.5e-300", "1.4999999999999998e-300"),  # wheel: serde's fast, inexact float path
        ("123456789012345678901234567890.5e-10", "1.2345678901234567e+19"),  # wheel
        ('{"b": 1, "a": [1, {"c": null}]}', "b: 1; a: 1; c: "),  # wheel: written order
        ("[1, [2, 3]]", "1; 2; 3"),  # wheel: nested arrays flatten
        ('{"k": 1, "k": 2, "j": 3}', "k: 2; j: 3"),  # wheel: last value, first position
        ('{"a: b": "c; d"}', "a: b: c; d"),  # wheel: no quoting
        ("[]", ""),
        ("{}", ""),
    ],
)
def test_stringify_like_the_wheel(literal: str, expected: str) -> None:
    assert stringify(loads_json(literal)) == expected
    summary = read('{"user_intent": [' + literal + '], "current_work": "w"}')
    assert summary.user_intent == [expected]


@pytest.mark.parametrize("literal", ["1E400", "-1e99999999999", "1.7976931348623157e309"])
def test_numbers_out_of_range_do_not_parse(literal: str) -> None:
    with pytest.raises(ValueError, match="out of range"):
        read('{"user_intent": [' + literal + "]}")


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_non_json_constants_are_rejected(literal: str) -> None:
    with pytest.raises(ValueError):
        read('{"user_intent": [' + literal + "]}")


def test_exponent_overflow_with_zero_or_negative_is_zero() -> None:
    """wheel: 0e99999999999 and 1e-99999999999 read as 0.0 rather than failing."""
    assert read('{"user_intent": [0e99999999999, 1e-99999999999]}').user_intent == ["0.0", "0.0"]


def test_lone_surrogates_are_rejected_pairs_are_joined() -> None:
    """wheel: a lone \\ud800 or \\udc00 escape makes the reply fall back; a pair is one char."""
    for bad in (r'"\ud800"', r'"\ud800x"', r'"\udc00"'):
        with pytest.raises(ValueError, match="surrogate"):
            read('{"user_intent": [' + bad + "]}")
    assert read(r'{"user_intent": ["\ud83d\ude00"]}').user_intent == ["\U0001f600"]


def test_nesting_limit_is_127_like_serde() -> None:
    """wheel: 127 nested containers (the summary object included) parse, 128 do not."""
    ok = '{"current_work": "w", "x": %s}' % ("[" * 126 + "1" + "]" * 126)
    assert read(ok).extras["x"] is not None
    too_deep = '{"current_work": "w", "x": %s}' % ("[" * 127 + "1" + "]" * 127)
    with pytest.raises(ValueError, match="deeper"):
        read(too_deep)
    with pytest.raises(ValueError):  # far deeper than Python's own recursion limit
        read('{"x": %s}' % ("[" * 100_000))


def test_raw_control_characters_inside_strings() -> None:
    summary = read('{"user_intent": ["raw\nnewline\ttab\x01ctl"], "current_work": "a\\u0000z"}')
    assert summary.user_intent == ["raw\nnewline\ttab\x01ctl"]
    assert summary.current_work == "a\x00z"


def test_string_list_fields() -> None:
    summary = read(
        '{"user_intent": "solo", "technical_concepts": null, "errors_and_fixes": 5,'
        ' "problem_solving": false, "user_messages": {"a": "x", "b": null},'
        ' "pending_tasks": ["x", {"k": 1}, [1, 2], null, 1.5]}'
    )
    assert summary.user_intent == ["solo"]
    assert summary.technical_concepts == []
    assert summary.errors_and_fixes == ["5"]
    assert summary.problem_solving == ["false"]
    assert summary.user_messages == ["a: x; b: "]  # wheel
    assert summary.pending_tasks == ["x", "k: 1", "1; 2", "", "1.5"]
    assert summary.normalized().pending_tasks == ["x", "k: 1", "1; 2", "1.5"]


def test_current_work_and_next_step() -> None:
    assert read('{"current_work": null}').current_work is None
    assert read('{"current_work": ["a", "b"]}').current_work == "a; b"  # wheel
    assert read('{"next_step": {"a": 1}}').next_step == "a: 1"  # wheel
    assert read('{"next_step": true}').next_step == "true"
    blank = read('{"current_work": [], "next_step": {}}').normalized()
    assert blank.current_work is None and blank.next_step is None
    assert read('{"current_work": "  w  "}').normalized().current_work == "  w  "  # not trimmed


def test_files_lenient() -> None:
    """wheel: a bare value is one file; non-objects are paths; key_code false stays 'false'."""
    assert read('{"files": "single.py"}').files == [FileEntry(path="single.py")]
    assert read('{"files": 0}').files == [FileEntry(path="0")]
    assert read('{"files": false}').files == [FileEntry(path="false")]
    assert read('{"files": {"path": "p"}}').files == [FileEntry(path="p")]
    assert read('{"files": null}').files == []
    files = (
        read(
            '{"files": ["a.py", 3, null, {"path": 1, "summary": null, "key_code": null},'
            ' {"key_code": {"x": 1}}, [1, 2], {"path": "p", "key_code": false},'
            ' {"path": "q", "key_code": []}, {"summary": "s", "extra": 1}]}'
        )
        .normalized()
        .files
    )
    assert files == [
        FileEntry(path="a.py"),
        FileEntry(path="3"),
        FileEntry(path="1"),
        FileEntry(key_code="x: 1"),
        FileEntry(path="1; 2"),
        FileEntry(path="p", key_code="false"),
        FileEntry(path="q"),  # [] -> "" -> blank key_code -> none
        FileEntry(summary="s"),
    ]


def test_normalize_blank_rules_use_rust_whitespace() -> None:
    summary = read(
        '{"user_intent": ["  a  ", "\\u00a0", "\\u001c", "\\u200b", "\\n", ""],'
        ' "current_work": "\\u00a0",'
        ' "files": [{"path": " ", "summary": " "}, {"path": " ", "key_code": " "},'
        ' {"path": "", "summary": "", "key_code": "k"}, {"path": " p ", "summary": " s "}]}'
    ).normalized()
    assert summary.user_intent == ["  a  ", "\x1c", "\u200b"]  # wheel
    assert summary.current_work is None
    assert summary.files == [FileEntry(key_code="k"), FileEntry(path=" p ", summary=" s ")]


def test_duplicate_keys_last_wins() -> None:
    assert read('{"user_intent": ["a"], "user_intent": ["b"]}').user_intent == ["b"]
    dup = read('{"user_intent": ["a"], "user_intent": null, "next_step": "n"}')
    assert dup.user_intent == [] and dup.next_step == "n"


def test_usable_ignores_extras() -> None:
    def usable(text: str) -> bool:  # as extraction decides it
        return read(text).normalized().has_content()

    assert not usable("{}")
    assert not usable('{"extra": 1, "more": [1]}')
    assert not usable('{"user_intent": null, "current_work": "  "}')
    assert not usable('{"user_intent": ["  ", ""], "files": [{"path": " "}]}')
    assert usable('{"files": [{"key_code": "k"}]}')
    assert usable('{"next_step": "n"}')


def test_extras_keep_order_and_parsed_values() -> None:
    summary = read('{"zeta": {"n": 1}, "user_intent": ["x"], "alpha": [1, 2], "zeta2": null}')
    assert list(summary.extras) == ["zeta", "alpha", "zeta2"]
    assert summary.extras["zeta"] == {"n": 1}
    assert summary.normalized().extras == summary.extras


def test_escaped_key_names_are_decoded() -> None:
    assert read('{"user_\\u0069ntent": ["esc"]}').user_intent == ["esc"]  # wheel


def test_parse_of_non_objects() -> None:
    for value in ([], "s", 1, None, True):
        assert StructuredSummary.parse(value) is None
    with pytest.raises(ValueError, match="must be a JSON object, not an array"):
        read('[{"user_intent": ["a"]}]')


def test_parse_json_text_reports_line_and_column() -> None:
    with pytest.raises(ValueError, match=r"line 3, column 5"):
        read('{\n  "user_intent": ["a"],\n    oops\n}')
    with pytest.raises(ValueError, match=r"extra data .* line 1, column 24"):
        read('{"user_intent": ["a"]} trailing')
    with pytest.raises(ValueError, match="line 1, column 1"):
        read("")


def test_template_context_has_every_field_and_extras() -> None:
    summary = read(
        '{"user_intent": ["u"], "files": [{"path": "p", "summary": "s"}], "custom": {"a": 1}}'
    )
    context = summary.template_context()
    assert context["user_intent"] == ["u"]
    assert context["files"] == [{"path": "p", "summary": "s", "key_code": None}]
    assert context["custom"] == {"a": 1}
    assert context["current_work"] is None and context["next_step"] is None
    assert set(context) >= {
        "technical_concepts",
        "errors_and_fixes",
        "problem_solving",
        "user_messages",
        "pending_tasks",
    }


def test_to_json_dict_round_trips() -> None:
    text = (
        '{"extra": [1, {"b": 2}], "next_step": "n", "files": [{"path": "p", "summary": "s",'
        ' "key_code": "````\\ncode\\n````"}, {"path": "q"}], "user_intent": ["u"]}'
    )
    summary = read(text)
    data = summary.to_json_dict()
    assert list(data)[:9] == list(SUMMARY_FIELDS)
    assert list(data)[9:] == ["extra"]
    assert data["files"][1] == {"path": "q", "summary": ""}  # no key_code key when none
    assert read(json.dumps(data)) == summary


def test_format_float_matches_python_digits() -> None:
    assert format_float(0.1) == "0.1"
    assert format_float(0.30000000000000004) == "0.30000000000000004"
    assert format_float(-2.5) == "-2.5"
    assert format_float(float("nan")) == ""
