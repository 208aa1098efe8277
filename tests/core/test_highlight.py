"""Syntax highlighting's pure parts (goose_tui/tui/highlight.py and the compare diff): pygments
spans by kind, a key code's language from its file heading, the diff's colours. No app."""

from __future__ import annotations

from goose_tui.tui.highlight import highlight_lines, lexer_name, markdown_with_languages
from goose_tui.tui.screens.compare_screen import diff_content


def test_json_spans_mark_keys_strings_and_numbers() -> None:
    text = '{\n  "path": "a.py",\n  "count": 3,\n  "ok": true\n}'
    spans = highlight_lines(text, "json")
    lines = text.split("\n")
    kinds = {lines[n][a:b]: k for n, line in enumerate(spans) for a, b, k in line}
    assert kinds['"a.py"'] == "string" and kinds["3"] == "number"
    assert kinds["true"] == "constant"
    assert '"path"' in kinds  # keys are coloured too
    assert highlight_lines(text, None) == [[] for _ in lines]


def test_key_code_language_comes_from_the_file_heading() -> None:
    assert lexer_name(path="src/app/totals.py") == "python"
    assert lexer_name(path="notes/readme-without-extension") is None
    text = "### src/totals.py\nsummary\n```\nx = 1\n```\n### web/app.ts\n````\nlet a\n````"
    shown = markdown_with_languages(text)
    assert "```python\nx = 1\n```" in shown
    assert "````typescript\nlet a\n````" in shown
    assert markdown_with_languages("```json\n{}\n```") == "```json\n{}\n```"  # kept


def test_diff_lines_take_the_error_and_success_colours() -> None:
    diff = "--- A\n+++ B\n@@ -1 +1 @@\n-old line\n+new line\n same"
    content = diff_content(diff)
    styled = {diff[s.start : s.end]: str(s.style) for s in content.spans}
    assert styled["-old line"] == "$text-error"
    assert styled["+new line"] == "$text-success"
    assert styled["--- A"] == "bold" and " same" not in styled
