"""The copies of Goose's own templates goose-tui ships (to diff an override against) are the
released Goose's, byte for byte: the goose-sdk wheel's ``default_compaction_templates()``."""

from __future__ import annotations

import pytest

from goose_tui.compaction.profiles import RELEASED_GOOSE_COMPACTION_SHA256
from goose_tui.compaction.templates import goose_prompts_dir

goose = pytest.importorskip(
    "goose", reason="goose-sdk (the reference wheel, module `goose`) is not installed"
)


def test_the_shipped_goose_templates_are_the_wheels() -> None:
    import hashlib

    defaults = goose.default_compaction_templates()
    folder = goose_prompts_dir()
    compaction = (folder / "compaction.md").read_bytes().decode("utf-8")
    assert compaction == defaults.compaction
    assert (folder / "compaction_summary.md").read_bytes().decode("utf-8") == defaults.summary
    assert hashlib.sha256(compaction.encode()).hexdigest() == RELEASED_GOOSE_COMPACTION_SHA256
