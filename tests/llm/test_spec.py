"""ModelSpec: the model choice parsed once (issue 13)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from goose_tui.llm.offline import OfflineSummarizer
from goose_tui.llm.replay import ReplaySummarizer
from goose_tui.llm.spec import ModelSpec
from goose_tui.session.models import Session


def test_offline_is_the_default_and_names_itself() -> None:
    spec = ModelSpec.from_options(None)
    assert spec.kind == "offline"
    assert spec.name == str(spec) == "offline"
    assert spec.request_fit(Session(), 10) is None  # no window of its own
    assert spec.input_files() == []
    assert spec.problem() is None
    assert isinstance(spec.summarizer(), OfflineSummarizer)


def test_offline_context_limit_only_with_offline() -> None:
    limited = ModelSpec.parse("offline", offline_context_limit=5).summarizer()
    assert isinstance(limited, OfflineSummarizer) and limited.context_limit == 5
    with pytest.raises(ValueError, match="offline-context-limit"):
        ModelSpec.parse("openai/x", offline_context_limit=3)
    with pytest.raises(ValueError, match="offline-context-limit"):
        ModelSpec.from_options(None, Path("r.txt"), offline_context_limit=3)


def test_replay_parsed_from_text_and_from_the_option(tmp_path: Path) -> None:
    reply = tmp_path / "reply.txt"
    reply.write_text("hi")
    typed = ModelSpec.parse(f"  replay:{reply} ")
    option = ModelSpec.from_options(None, reply)
    assert typed == option
    assert typed.kind == "replay" and typed.reply_file == reply
    assert typed.name == f"replay:{reply}"
    assert typed.input_files() == [reply]
    assert typed.request_fit(Session(), 10) is None
    assert isinstance(typed.summarizer(), ReplaySummarizer)


def test_replay_file_problems_are_reported_before_any_call(tmp_path: Path) -> None:
    missing = ModelSpec.parse(f"replay:{tmp_path / 'nope.txt'}")
    assert missing.problem() == f"{tmp_path / 'nope.txt'}: no such reply file"
    with pytest.raises(ValueError, match="no such reply file"):
        missing.summarizer()
    folder = ModelSpec.parse(f"replay:{tmp_path}")
    assert folder.problem() == f"{tmp_path}: the reply file is not a regular file"


def test_replay_expands_the_home_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert ModelSpec.parse("replay:~/r.txt").reply_file == tmp_path / "r.txt"


def test_litellm_model_keeps_its_api_base_without_importing_litellm() -> None:
    before = "litellm" in sys.modules
    spec = ModelSpec.parse("openai/gpt-4o-mini", api_base="http://127.0.0.1:9/v1")
    assert spec.is_litellm and spec.model == "openai/gpt-4o-mini"
    fit = spec.request_fit(Session(), 200_000)
    assert fit is not None and (fit.window, fit.fits) == (128_000, False)
    assert spec.api_base == "http://127.0.0.1:9/v1"
    assert spec.with_text("ollama/llama3").api_base == "http://127.0.0.1:9/v1"
    # Through another kind of model and back, the server the user named stays named.
    for other in ("offline", "replay:reply.md"):
        back = spec.with_text(other).with_text("openai/gpt-4o-mini")
        assert back.api_base == "http://127.0.0.1:9/v1"
    assert spec.with_text("offline").kind == "offline"
    assert ("litellm" in sys.modules) == before


@pytest.mark.parametrize("bad", ["", "   ", "replay:"])
def test_unusable_text_is_a_clear_error(bad: str) -> None:
    with pytest.raises(ValueError):
        ModelSpec.parse(bad)


def test_model_and_replay_together_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="either --model or --replay"):
        ModelSpec.from_options("openai/x", tmp_path / "r.txt")


def test_a_spec_is_frozen_and_hashable() -> None:
    spec = ModelSpec.offline()
    with pytest.raises(ValueError):
        spec.kind = "litellm"  # type: ignore[misc]
    assert {spec, ModelSpec.parse("offline")} == {spec}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("REPLAY:r.txt", "REPLAY:r.txt: did you mean replay:r.txt? (the prefix is lower case)"),
        ("Replay:", "Replay:: did you mean replay:? (the prefix is lower case)"),
        ("offline:x", "offline:x: did you mean offline? (the built-in model takes no argument)"),
        ("OFFLINE", "OFFLINE: did you mean offline? (the built-in model takes no argument)"),
    ],
)
def test_a_near_miss_of_a_built_in_model_is_not_sent_to_litellm(text: str, message: str) -> None:
    # They were litellm model strings, refused by litellm after its import (seconds) with
    # "knows no provider by that name".
    with pytest.raises(ValueError) as caught:
        ModelSpec.parse(text)
    assert str(caught.value) == message
