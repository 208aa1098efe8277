"""SPEC §4: the two templates, override lookup, rendering. STUB (issue 2, part 3)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from goose_tui.compaction.structured import StructuredSummary

TemplateName = Literal["compaction.md", "compaction_summary.md"]
TemplateOrigin = Literal["prompts-dir", "goose-path-root", "xdg-config", "built-in", "edited"]


class TemplateSource(BaseModel):
    name: TemplateName
    origin: TemplateOrigin
    path: Path | None = None  # None for text edited in memory


class Template(BaseModel):
    text: str
    source: TemplateSource


class Templates(BaseModel):
    compaction: Template
    summary: Template


class TemplateError(Exception):
    """A template that does not compile or render; ``str()`` names file and line."""

    def __init__(self, message: str, *, name: str, path: Path | None, line: int | None):
        self.name, self.path, self.line = name, path, line
        where = str(path) if path else name
        super().__init__(f"{where}:{line}: {message}" if line else f"{where}: {message}")


def builtin_prompts_dir() -> Path:
    raise NotImplementedError


def override_dirs(prompts_dir: Path | None = None) -> list[tuple[TemplateOrigin, Path]]:
    """The directories searched, first hit wins, per file (SPEC §4), built-in last."""
    raise NotImplementedError


def load_templates(prompts_dir: Path | None = None) -> Templates:
    raise NotImplementedError


def code_fence(code: str) -> str:
    raise NotImplementedError


def render_compaction_prompt(templates: Templates, messages_text: str) -> str:
    """The system prompt: compaction template rendered with ``messages``, stripped."""
    raise NotImplementedError


def render_summary(templates: Templates, summary: StructuredSummary) -> str:
    """The summary template rendered with every field (extras too), stripped."""
    raise NotImplementedError
