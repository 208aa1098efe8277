"""docs/pipeline.md §4: the two templates, override lookup, rendering.

Rendering is done by Goose's own engine, minijinja, configured as Goose configures it
(engine.py); the binding is imported on first render: it is not needed to list or load
templates, and the core must import fast.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

from goose_tui.compaction.engine import code_fence  # noqa: F401  (the filter Goose registers)
from goose_tui.compaction.structured import FileEntry, StructuredSummary
from goose_tui.dirs import absolute_env_dir, xdg_home
from goose_tui.files import read_regular
from goose_tui.llm.prompt_layout import PromptLayout, use_prompt_layout
from goose_tui.pieces import Pieces

if TYPE_CHECKING:
    from goose_tui.compaction.engine import Compiled, EngineError

TemplateName = Literal[
    "compaction.md",
    "compaction_summary.md",
    # The probe templates of goose_tui/analysis/probe_model.py, found the same way.
    "probe_write.md",
    "probe_answer.md",
    "probe_judge.md",
]
TemplateOrigin = Literal["prompts-dir", "goose-path-root", "xdg-config", "built-in", "edited"]

COMPACTION: TemplateName = "compaction.md"
SUMMARY: TemplateName = "compaction_summary.md"


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
    """A template that does not compile or render; ``str()`` names file and line, then
    Goose's reason. ``kind``: "syntax", "render", "budget" (goose-tui's sandbox stopped it),
    "crash" (Goose's engine panics here) or "io"."""

    kind: str = "io"

    def __init__(self, message: str, *, name: str, path: Path | None, line: int | None):
        self.name, self.path, self.line = name, path, line
        self.reason = message
        where = str(path) if path else name
        super().__init__(f"{where}:{line}: {message}" if line else f"{where}: {message}")


# --- where templates come from ---------------------------------------------------------


def builtin_prompts_dir() -> Path:
    """``goose_tui/_prompts`` in an installed wheel, ``<repo>/prompts`` in a checkout."""
    packaged = Path(__file__).resolve().parents[1] / "_prompts"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "prompts"


def goose_own_templates() -> dict[TemplateName, str] | None:
    """Goose's own two templates from the installed goose-sdk wheel
    (``default_compaction_templates()``), or None without it: goose-tui never ships Goose's
    wording, and nothing is fetched."""
    try:
        import goose  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return None
    defaults = goose.default_compaction_templates()
    return {"compaction.md": defaults.compaction, "compaction_summary.md": defaults.summary}


def template_diff(template: Template, theirs: str, reference_label: str) -> str:
    """The unified diff from ``theirs`` to ``template``; "" when they are the same text."""
    import difflib

    source = template.source
    ours = str(source.path) if source.path else f"{source.name} ({source.origin})"
    lines = difflib.unified_diff(
        theirs.splitlines(),
        template.text.splitlines(),
        fromfile=reference_label,
        tofile=f"in use: {ours}",
        lineterm="",
    )
    return "\n".join(lines)


def override_dirs(prompts_dir: Path | None = None) -> list[tuple[TemplateOrigin, Path]]:
    """The directories searched, first hit wins, per file (docs/pipeline.md §4), built-in last."""
    dirs: list[tuple[TemplateOrigin, Path]] = []
    if prompts_dir is not None:
        dirs.append(("prompts-dir", Path(prompts_dir)))
    if (root := absolute_env_dir("GOOSE_PATH_ROOT")) is not None:
        dirs.append(("goose-path-root", root / "config" / "prompts"))
    dirs.append(("xdg-config", xdg_home("config") / "goose" / "prompts"))
    dirs.append(("built-in", builtin_prompts_dir()))
    return dirs


def _read(name: TemplateName, origin: TemplateOrigin, path: Path) -> Template:
    try:
        # Bytes, then UTF-8: no newline translation, "\r\n" stays as Goose reads it.
        text = read_regular(path).decode("utf-8")
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
        if not path.exists():
            continue
        try:
            if not path.is_file():  # a folder (or a FIFO, which would block the read)
                reason = "is a folder, not a file" if path.is_dir() else "is not a regular file"
                raise TemplateError(reason, name=name, path=path, line=None)
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


@lru_cache(maxsize=64)
def _compile(text: str) -> Compiled:
    # Cached by text: re-rendering after every keystroke in the app must not recompile.
    from goose_tui.compaction.engine import Compiled

    return Compiled(text)


def _template_error(template: Template, exc: EngineError) -> TemplateError:
    error = TemplateError(
        exc.message, name=template.source.name, path=template.source.path, line=exc.line
    )
    error.kind = exc.kind
    return error


def _compiled(template: Template) -> Compiled:
    from goose_tui.compaction.engine import EngineError

    try:
        return _compile(template.text)
    except EngineError as exc:
        raise _template_error(template, exc) from None


def render_template(template: Template, context: dict[str, Any]) -> str:
    """Render with ``context`` as top-level variables in Goose's engine (engine.py), trimmed
    as Goose trims. Raises TemplateError with Goose's reason where Goose fails."""
    return str(_render_pieces(template, context))


def _render_pieces(template: Template, context: dict[str, Any]) -> Pieces:
    """``render_template`` as pieces (engine.Compiled.render_pieces)."""
    from goose_tui.compaction.engine import EngineError

    try:  # compiling and rendering fail alike
        return _compile(template.text).render_pieces(context)
    except EngineError as exc:
        raise _template_error(template, exc) from None


# A one-off focus for a compaction (``--focus``, the app's focus field) is the template
# variable ``focus``. A compaction template whose output depends on ``focus`` (it prints or
# tests ``{{ focus }}``) places it itself; one that does not (the built-in, Goose's own) gets
# it as a last paragraph after the rendered prompt, this heading and then the text. Without a
# focus nothing changes, byte for byte.
FOCUS_VARIABLE = "focus"
FOCUS_HEADING = "Focus requested by the user for this summary (keep everything about it in full):"


def focus_paragraph(focus: str) -> str:
    return f"{FOCUS_HEADING}\n{focus}"


def render_compaction_prompt(
    templates: Templates, messages_text: str | Pieces, focus: str | None = None
) -> Pieces:
    """The system prompt: compaction template rendered with ``messages`` (and ``focus``),
    stripped; a focus the template does not place is appended (see FOCUS_VARIABLE). The
    conversation may come as the pieces of its text, and the prompt is the pieces of its
    text (goose_tui.pieces): the conversation's strings are not copied."""
    focus = (focus or "").strip() or None
    prompt = _render_pieces(templates.compaction, {"messages": messages_text})
    if focus is None:
        return prompt
    focused = _render_pieces(
        templates.compaction, {"messages": messages_text, FOCUS_VARIABLE: focus}
    )
    # Goose's engine does not list a template's variables: render once without the focus to
    # see whether the output depends on it.
    if focused != prompt:
        return focused
    return Pieces([*prompt.parts, f"\n\n{focus_paragraph(focus)}"])


_MESSAGES_SENTINEL = "\u0000GOOSE_TUI_MESSAGES\u0000"


def builtin_prompt_layout() -> PromptLayout:
    """The built-in compaction prompt's text around the conversation, for the offline
    summarizer to read the conversation back out of a prompt."""
    prefix = suffix = ""
    try:
        rendered = str(render_compaction_prompt(load_templates(None), _MESSAGES_SENTINEL))
        if _MESSAGES_SENTINEL in rendered:
            prefix, suffix = rendered.split(_MESSAGES_SENTINEL, 1)
    except Exception:  # noqa: BLE001 - without the frame the line heuristic still works
        pass
    return PromptLayout(prefix=prefix, suffix=suffix, focus_heading=FOCUS_HEADING)


use_prompt_layout(builtin_prompt_layout)


def _file_entries(files: Any) -> Any:
    """Goose's ``files`` are ``FileEntry`` structs, which keep their field order (path,
    summary, key_code) where JSON maps are sorted: entries of that shape become FileEntry."""
    if not isinstance(files, list):
        return files
    fields = set(FileEntry.model_fields)
    return [
        FileEntry(**entry) if isinstance(entry, dict) and set(entry) <= fields else entry
        for entry in files
    ]


def render_summary_context(templates: Templates, context: dict[str, Any]) -> str:
    """The summary template rendered with an explicit variable mapping (e.g. hand-edited JSON
    that is not a StructuredSummary yet)."""
    if "files" in context:
        try:
            context = context | {"files": _file_entries(context["files"])}
        except ValueError:
            pass  # not FileEntry-shaped after all: rendered as the maps they are
    return render_template(templates.summary, context)


def render_summary(templates: Templates, summary: StructuredSummary) -> str:
    """The summary template rendered with every field (extras too), stripped."""
    return render_summary_context(templates, summary.template_context())
