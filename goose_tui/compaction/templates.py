"""SPEC §4: the two templates, override lookup, rendering.

Rendering follows what the goose-sdk wheel does (checked over loopback, see
tests/test_templates.py): ``trim_blocks``/``lstrip_blocks``, undefined names render empty,
the result is trimmed of Unicode whitespace as Rust's ``str::trim`` does, and non-string
values print the way Goose's template engine prints them (``None``, ``True``,
``["a", 1e16]``) rather than as Python reprs. jinja2 is imported on first render: it is not
needed to list or load templates, and the core must import fast.
"""

from __future__ import annotations

import os
import re
import traceback
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

from goose_tui.compaction.structured import StructuredSummary

if TYPE_CHECKING:
    import jinja2

TemplateName = Literal["compaction.md", "compaction_summary.md"]
TemplateOrigin = Literal["prompts-dir", "goose-path-root", "xdg-config", "built-in", "edited"]

COMPACTION: TemplateName = "compaction.md"
SUMMARY: TemplateName = "compaction_summary.md"

# Rust's char::is_whitespace (Unicode White_Space). Python's str.strip() also strips
# U+001C..U+001F, which Goose keeps.
RUST_WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


class TemplateSource(BaseModel):
    name: TemplateName
    origin: TemplateOrigin
    path: Path | None = None  # None for text edited in memory


class Template(BaseModel):
    text: str
    source: TemplateSource

    def check(self) -> None:
        """Compile now; raises TemplateError naming file and line on a syntax error."""
        _compiled(self)


class Templates(BaseModel):
    compaction: Template
    summary: Template
    # Overrides skipped by load_templates(fallback=True), e.g. "x.md:3: unexpected '}'".
    warnings: list[str] = Field(default_factory=list)

    def get(self, name: TemplateName) -> Template:
        return self.compaction if name == COMPACTION else self.summary

    def with_template(self, template: Template) -> Templates:
        field = "compaction" if template.source.name == COMPACTION else "summary"
        return self.model_copy(update={field: template})

    def with_text(self, name: TemplateName, text: str) -> Templates:
        """A copy with one template replaced by text edited in memory (origin "edited")."""
        return self.with_template(
            Template(text=text, source=TemplateSource(name=name, origin="edited"))
        )


class TemplateError(Exception):
    """A template that does not compile or render; ``str()`` names file and line."""

    def __init__(self, message: str, *, name: str, path: Path | None, line: int | None):
        self.name, self.path, self.line = name, path, line
        where = str(path) if path else name
        super().__init__(f"{where}:{line}: {message}" if line else f"{where}: {message}")


# --- where templates come from ---------------------------------------------------------


def builtin_prompts_dir() -> Path:
    """``goose_tui/_prompts`` in an installed wheel, ``<repo>/prompts`` in a checkout."""
    packaged = Path(__file__).resolve().parents[1] / "_prompts"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "prompts"


def _absolute_env_dir(variable: str) -> Path | None:
    # Goose (like the XDG spec) ignores a relative or empty value.
    value = os.environ.get(variable, "")
    path = Path(value).expanduser() if value else None
    return path if path is not None and path.is_absolute() else None


def override_dirs(prompts_dir: Path | None = None) -> list[tuple[TemplateOrigin, Path]]:
    """The directories searched, first hit wins, per file (SPEC §4), built-in last."""
    dirs: list[tuple[TemplateOrigin, Path]] = []
    if prompts_dir is not None:
        dirs.append(("prompts-dir", Path(prompts_dir)))
    if (root := _absolute_env_dir("GOOSE_PATH_ROOT")) is not None:
        dirs.append(("goose-path-root", root / "config" / "prompts"))
    config_home = _absolute_env_dir("XDG_CONFIG_HOME") or Path.home() / ".config"
    dirs.append(("xdg-config", config_home / "goose" / "prompts"))
    dirs.append(("built-in", builtin_prompts_dir()))
    return dirs


def _read(name: TemplateName, origin: TemplateOrigin, path: Path) -> Template:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        message = f"cannot read template: {exc}"
        raise TemplateError(message, name=name, path=path, line=None) from exc
    return Template(text=text, source=TemplateSource(name=name, origin=origin, path=path))


def load_template(
    name: TemplateName, prompts_dir: Path | None = None, *, fallback: bool = False
) -> tuple[Template, list[str]]:
    """The first existing file for ``name``. With ``fallback``, an override that cannot be
    read or compiled is skipped (and reported in the warnings) instead of raising."""
    warnings: list[str] = []
    for origin, directory in override_dirs(prompts_dir):
        path = directory / name
        if not path.is_file():
            continue
        try:
            template = _read(name, origin, path)
            if fallback and origin != "built-in":
                template.check()
        except TemplateError as exc:
            if not fallback or origin == "built-in":
                raise
            warnings.append(f"{exc} (override skipped)")
            continue
        return template, warnings
    raise TemplateError("no template found", name=name, path=None, line=None)


def load_templates(prompts_dir: Path | None = None, *, fallback: bool = False) -> Templates:
    compaction, warnings_c = load_template(COMPACTION, prompts_dir, fallback=fallback)
    summary, warnings_s = load_template(SUMMARY, prompts_dir, fallback=fallback)
    return Templates(compaction=compaction, summary=summary, warnings=warnings_c + warnings_s)


# --- rendering ---------------------------------------------------------------------------


def code_fence(code: str) -> str:
    """Fence ``code`` with more backticks than its longest run (at least three), so code that
    itself holds a fence cannot end the block. Trailing newlines are dropped, as Goose does."""
    code = str(code)
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    fence = "`" * max(longest + 1, 3)
    return f"{fence}\n{code.rstrip(chr(10))}\n{fence}"


def _rust_float_debug(value: float) -> str:
    # Python's repr has the same digits and the same switch to exponents (<1e-4, >=1e16);
    # Rust writes the exponent without "+" and leading zeros.
    text = repr(value)
    if text in ("nan", "inf", "-inf"):
        return {"nan": "NaN", "inf": "inf", "-inf": "-inf"}[text]
    if "e" in text:
        mantissa, exponent = text.split("e")
        return f"{mantissa}e{int(exponent)}"
    return text


def _rust_string_debug(text: str) -> str:
    out = []
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif char in "\n\r\t\0":
            out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t", "\0": "\\0"}[char])
        elif not char.isprintable() and char != " ":
            out.append(f"\\u{{{ord(char):x}}}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def _value_debug(value: Any) -> str:
    """A value inside a list or map, as Goose's engine shows it."""
    if isinstance(value, str):
        return _rust_string_debug(value)
    if isinstance(value, float):
        return _rust_float_debug(value)
    return _value_display(value)


def _value_display(value: Any) -> str:
    """A value printed by ``{{ }}``, as Goose's engine shows it."""
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return _rust_float_debug(value)
        text = format(Decimal(repr(value)), "f")
        return text if "." in text else text + ".0"
    if isinstance(value, BaseModel):
        value = value.model_dump()
    if isinstance(value, dict):
        pairs = (f"{_value_debug(k)}: {_value_debug(v)}" for k, v in value.items())
        return "{" + ", ".join(pairs) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value_debug(item) for item in value) + "]"
    return str(value)


def _finalize(value: Any) -> Any:
    if isinstance(value, str):
        return value
    import jinja2

    if isinstance(value, jinja2.Undefined):
        return value  # renders as "" (Goose's engine prints undefined names as nothing)
    return _value_display(value)


_HTML_ESCAPES = str.maketrans(
    {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;", "/": "&#x2f;"}
)


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else _value_display(value)


def _escape(value: Any) -> str:
    # Goose's engine escapes "/" and "'" as hex entities, unlike markupsafe.
    return _as_text(value).translate(_HTML_ESCAPES)


@lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    from jinja2.exceptions import SecurityError
    from jinja2.sandbox import SandboxedEnvironment

    class GooseLikeEnvironment(SandboxedEnvironment):
        # Goose's engine has no printf-style "%" on strings; fail as it does.
        intercepted_binops = frozenset({"%"})

        def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
            if operator == "%" and isinstance(left, str):
                raise SecurityError("string formatting with % is not supported")
            return super().call_binop(context, operator, left, right)

    env = GooseLikeEnvironment(
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        finalize=_finalize,
    )
    # Goose's engine is built without the jinja built-in library: only these filters and
    # tests exist and there are no globals (range, dict, ...), so a template using more fails
    # here as it fails in Goose (tests/differential/test_findings.py).
    env.filters = {"code_fence": code_fence, "safe": _as_text, "escape": _escape, "e": _escape}
    builtin_tests = env.tests
    env.tests = {name: builtin_tests[name] for name in ("defined", "undefined", "none")}
    env.tests["escaped"] = env.tests["safe"] = lambda value: False
    env.globals = {}
    return env


def _filename(template: Template) -> str:
    source = template.source
    return str(source.path) if source.path else f"<{source.origin} {source.name}>"


@lru_cache(maxsize=64)
def _compile(text: str, name: str, filename: str) -> jinja2.Template:
    # Cached by text: re-rendering after every keystroke in the app must not recompile.
    env = _environment()
    code = env.compile(text, name=name, filename=filename)
    return env.template_class.from_code(env, code, env.make_globals(None), None)


def _compiled(template: Template) -> jinja2.Template:
    import jinja2

    try:
        return _compile(template.text, template.source.name, _filename(template))
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateError(
            exc.message or "syntax error",
            name=template.source.name,
            path=template.source.path,
            line=exc.lineno,
        ) from exc


def _error_line(exc: BaseException, filename: str) -> int | None:
    # jinja2 rewrites tracebacks so that template frames carry the template's own line.
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == filename:
            line = frame.lineno
    return line


def render_template(template: Template, context: dict[str, Any]) -> str:
    """Render with ``context`` as top-level variables, trimmed as Goose trims."""
    compiled = _compiled(template)
    try:
        text = compiled.render(context)
    except Exception as exc:  # any failure inside a user's template is a template error
        raise TemplateError(
            f"{type(exc).__name__}: {exc}",
            name=template.source.name,
            path=template.source.path,
            line=_error_line(exc, _filename(template)),
        ) from exc
    return text.strip(RUST_WHITESPACE)


# A one-off focus for a compaction (``--focus``, the app's focus field) is the template
# variable ``focus``. A compaction template that uses ``{{ focus }}`` places it itself; one
# that does not (the built-in, Goose's own) gets it as a last paragraph after the rendered
# prompt, this heading and then the text. Without a focus nothing changes, byte for byte.
FOCUS_VARIABLE = "focus"
FOCUS_HEADING = "Focus requested by the user for this summary (keep everything about it in full):"


@lru_cache(maxsize=64)
def _uses_variable(text: str, name: str) -> bool:
    from jinja2 import meta

    try:
        return name in meta.find_undeclared_variables(_environment().parse(text))
    except Exception:  # noqa: BLE001 - a template that does not parse fails when rendered
        return False


def focus_paragraph(focus: str) -> str:
    return f"{FOCUS_HEADING}\n{focus}"


def render_compaction_prompt(
    templates: Templates, messages_text: str, focus: str | None = None
) -> str:
    """The system prompt: compaction template rendered with ``messages`` (and ``focus``),
    stripped; a focus the template does not place is appended (see FOCUS_VARIABLE)."""
    focus = (focus or "").strip() or None
    if focus is None:
        return render_template(templates.compaction, {"messages": messages_text})
    prompt = render_template(
        templates.compaction, {"messages": messages_text, FOCUS_VARIABLE: focus}
    )
    if _uses_variable(templates.compaction.text, FOCUS_VARIABLE):
        return prompt
    return f"{prompt}\n\n{focus_paragraph(focus)}"


def render_summary_context(templates: Templates, context: dict[str, Any]) -> str:
    """The summary template rendered with an explicit variable mapping (e.g. hand-edited JSON
    that is not a StructuredSummary yet)."""
    return render_template(templates.summary, context)


def render_summary(templates: Templates, summary: StructuredSummary) -> str:
    """The summary template rendered with every field (extras too), stripped."""
    return render_summary_context(templates, summary.template_context())
