"""The core Inspector without a pilot: compaction, hand edits of the JSON and the reply,
template fallback and swaps, the Goose profile, and saving."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from goose_tui.compaction.templates import Templates
from goose_tui.files import OverwriteRefused
from goose_tui.inspector import PREVIOUS_SUMMARY, Inspector, Notice, describe_source
from goose_tui.llm.spec import ModelSpec
from goose_tui.session.loader import load_session

DATA = Path(__file__).parent.parent / "tui" / "data"


@pytest.fixture
def session_file(tmp_path: Path) -> Path:
    target = tmp_path / "session" / "small_session.jsonl"
    target.parent.mkdir()
    shutil.copy(DATA / "small_session.jsonl", target)
    return target


@pytest.fixture
def reply_file(tmp_path: Path) -> Path:
    path = tmp_path / "reply.md"
    shutil.copy(DATA / "reply.md", path)
    return path


def _inspector(session_file: Path, model: str = "offline", **options: object) -> Inspector:
    inspector = Inspector(model=ModelSpec.parse(model), **options)  # type: ignore[arg-type]
    inspector.load(load_session(session_file))
    return inspector


def _compacted(session_file: Path, reply_file: Path, **options: object) -> Inspector:
    inspector = _inspector(session_file, f"replay:{reply_file}", **options)
    asyncio.run(inspector.compact())
    return inspector


def test_compact_offline_makes_a_summary_and_counts_as_saved(session_file: Path) -> None:
    inspector = _inspector(session_file)
    chunks: list[str] = []
    result = asyncio.run(inspector.compact(on_chunk=chunks.append))
    assert inspector.result is result
    assert inspector.summary.text == result.summary and result.summary
    assert inspector.prompt.text == result.request.system_prompt
    assert inspector.prompt.note == "as sent"
    assert inspector.json_state == "loaded"
    assert inspector.unsaved_edits() == []
    assert inspector.summary_label() == "summary by offline"


def test_compact_with_a_replay_file_reads_its_summary(session_file: Path, reply_file: Path) -> None:
    inspector = _compacted(session_file, reply_file)
    assert inspector.summary.structured is not None
    assert inspector.summary.structured.next_step == "Write the changelog entry"
    assert inspector.notice.message.startswith("read ")
    assert inspector.loaded.reply.startswith("<analysis>")
    assert json.loads(inspector.loaded.json)["next_step"] == "Write the changelog entry"


def test_compact_with_a_missing_reply_file_fails_before_any_work(
    session_file: Path, tmp_path: Path
) -> None:
    inspector = _inspector(session_file, f"replay:{tmp_path / 'missing.md'}")
    # FileNotFoundError, as the app raised it before the Inspector: the error modal reads
    # "FileNotFoundError: …/missing.md: no such reply file".
    with pytest.raises(FileNotFoundError, match="missing.md: no such reply file"):
        asyncio.run(inspector.compact())
    assert inspector.result is None


def test_a_failed_compaction_keeps_the_last_one_and_says_so(
    session_file: Path, reply_file: Path, tmp_path: Path
) -> None:
    inspector = _compacted(session_file, reply_file)
    result, summary = inspector.result, inspector.summary
    inspector.set_model(ModelSpec.parse(f"replay:{tmp_path / 'missing.md'}"))
    with pytest.raises(FileNotFoundError):
        asyncio.run(inspector.compact())
    assert inspector.result is result and inspector.summary is summary
    assert inspector.notice == Notice(PREVIOUS_SUMMARY, "fallback")


def test_hand_edited_json_re_renders_the_summary(session_file: Path, reply_file: Path) -> None:
    inspector = _compacted(session_file, reply_file)
    before = inspector.summary
    edited = json.loads(inspector.edits.json or "")
    edited["next_step"] = "Tag the release"
    notices: list[Notice] = []
    changed = asyncio.run(
        inspector.edit_json(json.dumps(edited), rendering=lambda: notices.append(inspector.notice))
    )
    assert changed and inspector.json_state == "edited"
    assert notices == [Notice("edited by hand: read leniently, rendering…")]
    assert "Tag the release" in inspector.summary.text
    assert inspector.notice == Notice("edited by hand: read leniently and re-rendered")
    assert inspector.previous == before
    assert inspector.summary_label() == "summary edited by hand"
    assert inspector.unsaved_edits() == ["the hand-edited summary JSON"]


def test_invalid_json_keeps_the_last_good_summary_and_says_why(
    session_file: Path, reply_file: Path
) -> None:
    inspector = _compacted(session_file, reply_file)
    good = inspector.summary
    assert not asyncio.run(inspector.edit_json('{"next_step": '))
    assert inspector.json_state == "invalid"
    message, kind = inspector.notice.message, inspector.notice.kind
    assert kind == "error" and message.startswith("invalid JSON:")
    assert message.endswith("showing the last good render")
    assert inspector.summary is good


def test_undo_back_to_the_loaded_json_clears_edited(session_file: Path, reply_file: Path) -> None:
    inspector = _compacted(session_file, reply_file)
    loaded_notice, good = inspector.notice, inspector.summary
    edit = inspector.loaded.json.replace("Write the changelog", "Skip the changelog")
    asyncio.run(inspector.edit_json(edit))
    assert inspector.json_state == "edited" and inspector.summary != good
    assert asyncio.run(inspector.edit_json(inspector.loaded.json))
    assert inspector.json_state == "loaded"
    assert inspector.summary == good
    assert inspector.notice == loaded_notice
    assert inspector.unsaved_edits() == []


def test_undo_after_a_template_change_renders_with_the_new_template(
    session_file: Path, reply_file: Path
) -> None:
    inspector = _compacted(session_file, reply_file)
    edit = inspector.loaded.json.replace("Write the changelog", "Skip the changelog")
    asyncio.run(inspector.edit_json(edit))
    custom = inspector.templates.with_text("compaction_summary.md", "# Mine {{ next_step }}")
    assert asyncio.run(inspector.set_templates(custom)).error is None
    assert asyncio.run(inspector.edit_json(inspector.loaded.json))
    assert inspector.summary.text == "# Mine Write the changelog entry"


def test_edited_reply_is_extracted_again(session_file: Path, reply_file: Path) -> None:
    inspector = _compacted(session_file, reply_file)
    original = inspector.loaded.reply
    reply = original.replace("Write the changelog entry", "Open a pull request")
    assert asyncio.run(inspector.edit_reply(reply))
    assert inspector.summary.structured is not None
    assert inspector.summary.structured.next_step == "Open a pull request"
    assert "Open a pull request" in inspector.loaded.json
    # The JSON it was read into changed with it.
    assert inspector.unsaved_edits() == ["the hand-edited summary JSON", "the hand-edited reply"]
    asyncio.run(inspector.edit_reply("just some words"))
    assert inspector.summary.structured is None
    assert inspector.notice.kind == "fallback"
    assert inspector.summary.text == "just some words"
    # Undone back to the compaction's reply: read again, nothing left unsaved.
    assert asyncio.run(inspector.edit_reply(original))
    assert inspector.summary.structured is not None
    assert inspector.summary.structured.next_step == "Write the changelog entry"
    assert inspector.unsaved_edits() == []


def test_a_broken_override_falls_back_to_the_built_in(tmp_path: Path) -> None:
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    broken = prompts / "compaction_summary.md"
    broken.write_text("# Broken\n\n{% for i in user_intent %}\n", encoding="utf-8")
    inspector = Inspector(prompts_dir=prompts)
    assert inspector.templates.summary.source.origin == "built-in"
    described = inspector.describe_template("compaction_summary.md")
    assert re.fullmatch(
        rf"compaction_summary\.md: built-in \(override broken: {re.escape(str(broken))}:\d+\)",
        described,
    ), described
    assert inspector.template_problem("compaction_summary.md") is not None
    assert inspector.template_problem("compaction.md") is None


def test_an_override_in_use_that_breaks_keeps_its_last_good_text(
    session_file: Path, reply_file: Path, tmp_path: Path
) -> None:
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    override = prompts / "compaction_summary.md"
    override.write_text("# Custom {{ next_step }}", encoding="utf-8")
    inspector = _compacted(session_file, reply_file, prompts_dir=prompts)
    assert inspector.summary.text == "# Custom Write the changelog entry"
    override.write_text("# Broken {% for i in user_intent %}", encoding="utf-8")
    reload = inspector.reload_templates()
    assert reload.kept is not None and reload.kept.startswith(f"{override}:")
    # The notice leads with the error and what is in use, until the file is fixed.
    assert inspector.notice.kind == "error"
    assert inspector.notice.message.startswith("template error (its last good text in use")
    assert f"{reload.kept}: syntax error" in inspector.notice.message
    assert reload.warnings
    assert reload.templates.summary.text == "# Custom {{ next_step }}"
    assert inspector.same_templates(reload.templates)


def test_templates_that_do_not_compile_or_render_are_not_used(
    session_file: Path, reply_file: Path
) -> None:
    inspector = _compacted(session_file, reply_file)
    good: Templates = inspector.templates
    broken = good.with_text("compaction_summary.md", "{% for x in y %}")
    assert asyncio.run(inspector.set_templates(broken)).error is not None
    assert inspector.templates == good
    assert inspector.notice.kind == "error"
    assert inspector.notice.message.startswith("template error")
    custom = good.with_text("compaction_summary.md", "# Mine {{ next_step }}")
    swap = asyncio.run(inspector.set_templates(custom))
    assert swap.error is None and swap.with_summary
    assert inspector.summary.text == "# Mine Write the changelog entry"
    assert inspector.notice == Notice("re-rendered with the changed template")
    assert describe_source(inspector.templates.summary) == (
        "compaction_summary.md: edited in the app, not saved"
    )
    assert inspector.unsaved_edits() == ["the template compaction_summary.md edited in the app"]


def test_profile_switch_changes_the_formatted_input(session_file: Path) -> None:
    inspector = _inspector(session_file)
    sdk = inspector.build_request().system_prompt
    assert "[user]: The test test_parse_dates" in sdk
    inspector.set_profile("goose-pr-11845")
    main = inspector.build_request().system_prompt
    assert main != sdk
    assert "[user]: The test test_parse_dates" not in main


def test_focus_goes_into_the_prompt_and_the_title(session_file: Path) -> None:
    inspector = _inspector(session_file)
    inspector.set_focus("the date parser")
    assert "the date parser" in inspector.build_request().system_prompt
    inspector.show_prompt("x", "as it will be sent")
    # The focus first: a narrow pane cuts the title's end.
    assert inspector.prompt_title() == "input · focus: the date parser · as it will be sent"
    assert not inspector.prompt_counted("another prompt", 7)
    assert inspector.prompt_counted("x", 1234)
    assert inspector.prompt_title().endswith("as it will be sent · 1,234 tokens")


def test_input_files_name_the_session_overrides_and_reply_file(
    session_file: Path, reply_file: Path, tmp_path: Path
) -> None:
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    (prompts / "compaction.md").write_text("{{ messages }}", encoding="utf-8")
    inspector = _inspector(session_file, f"replay:{reply_file}", prompts_dir=prompts)
    files = inspector.input_files()
    assert session_file in files and reply_file in files
    assert prompts / "compaction.md" in files


@pytest.mark.parametrize("kind", ["json", "markdown", "session", "export"])
def test_save_refuses_the_inputs(session_file: Path, reply_file: Path, kind: str) -> None:
    inspector = _compacted(session_file, reply_file)
    for target in (session_file, reply_file):
        before = target.read_bytes()
        with pytest.raises(OverwriteRefused):
            inspector.check_save(kind, target)  # type: ignore[arg-type]
        with pytest.raises(OverwriteRefused):
            inspector.save(kind, target)  # type: ignore[arg-type]
        assert target.read_bytes() == before


def test_save_writes_atomically_and_marks_the_edits_saved(
    session_file: Path, reply_file: Path, tmp_path: Path
) -> None:
    inspector = _compacted(session_file, reply_file)
    edit = inspector.loaded.json.replace("Write the changelog", "Ship the changelog")
    asyncio.run(inspector.edit_json(edit))
    assert inspector.unsaved_edits()
    target = tmp_path / "out.summary.md"
    target.write_text("old", encoding="utf-8")
    link = tmp_path / "link.md"
    os.symlink(target, link)
    assert inspector.check_save("markdown", link) == link
    written = inspector.save("markdown", link)
    assert written == link and link.is_symlink()
    assert target.read_text(encoding="utf-8") == inspector.summary.text + "\n"
    assert "Ship the changelog" in target.read_text(encoding="utf-8")
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp left
    assert inspector.unsaved_edits() == []
    summary_json = json.loads(inspector.save_text(tmp_path / "copy.json", edit).read_text())
    assert summary_json["next_step"].startswith("Ship")


def test_save_compacted_session_asks_before_replacing(
    session_file: Path, reply_file: Path, tmp_path: Path
) -> None:
    inspector = _compacted(session_file, reply_file)
    target = tmp_path / "out.compacted.jsonl"
    assert inspector.save("session", target, overwrite=False) == target
    assert inspector.summary.text.splitlines()[0] in target.read_text(encoding="utf-8")
    with pytest.raises(OverwriteRefused, match="already exists"):
        inspector.save("session", target, overwrite=False)
    assert inspector.check_save("session", target) == target
    inspector.save("session", target, overwrite=True)


def test_the_cli_options_strict_templates_overwrite_and_keep(
    session_file: Path, reply_file: Path, tmp_path: Path
) -> None:
    """What `goose-tui compact` passes: its own (strictly loaded) templates, the summarizer
    it checked, --overwrite for the early check, and the -o file as one more to keep."""
    from goose_tui.compaction.templates import load_templates
    from goose_tui.llm.replay import ReplaySummarizer

    templates = load_templates(None).with_text("compaction_summary.md", "S: {{ next_step }}")
    inspector = Inspector(model=ModelSpec.parse(f"replay:{reply_file}"), templates=templates)
    inspector.load(load_session(session_file))
    assert inspector.templates is templates and inspector.template_problems() == []
    result = asyncio.run(inspector.compact(summarizer=ReplaySummarizer(reply_file)))
    assert result.summary == "S: Write the changelog entry"
    assert inspector.summary.text == result.summary

    target, summary = tmp_path / "out.compacted.json", tmp_path / "summary.md"
    target.write_text("old")
    with pytest.raises(OverwriteRefused, match="already exists"):
        inspector.check_save("export", target, overwrite=False)
    assert inspector.check_save("export", target, overwrite=True) == target
    with pytest.raises(OverwriteRefused, match="input file"):
        inspector.check_save("export", summary, keep=[summary])
    with pytest.raises(OverwriteRefused, match="input file"):
        inspector.save("session", summary, keep=[summary])
    assert not summary.exists()


def test_unsaved_edits_lists_every_edit(
    session_file: Path, reply_file: Path, tmp_path: Path
) -> None:
    inspector = _compacted(session_file, reply_file)
    assert inspector.unsaved_edits() == []
    asyncio.run(inspector.edit_reply(inspector.loaded.reply + "x"))
    asyncio.run(inspector.edit_json(inspector.loaded.json + " "))
    edited = inspector.templates.with_text("compaction.md", "{{ messages }}")
    assert asyncio.run(inspector.set_templates(edited)).error is None
    assert inspector.unsaved_edits() == [
        "the hand-edited summary JSON",
        "the hand-edited reply",
        "the template compaction.md edited in the app",
    ]
    inspector.save("markdown", tmp_path / "out.md")
    assert inspector.unsaved_edits() == ["the template compaction.md edited in the app"]
    asyncio.run(inspector.edit_json("{"))  # a save writes the last good summary, not this
    inspector.save("json", tmp_path / "out.json")
    assert inspector.unsaved_edits()[0] == "the hand-edited summary JSON"


def test_the_editors_json_escapes_what_is_not_inert_and_nothing_else() -> None:
    # json_text escapes in one translation, not a Python step per character; checked here
    # against that per-character rule.
    import random

    from goose_tui.compaction.structured import StructuredSummary
    from goose_tui.inert import INVISIBLE
    from goose_tui.inspector import json_text
    from goose_tui.terminal import json_escape  # a surrogate pair past U+FFFF (tags)

    def per_character(text: str) -> str:
        return "".join(
            json_escape(ord(c)) if 0x7F <= ord(c) <= 0x9F or ord(c) in INVISIBLE else c
            for c in text
        )

    pool = [chr(c) for c in (*range(0x7E, 0xA1), *INVISIBLE)] + list('ab \n"\\é🚀\x01')
    rng = random.Random(5)
    for _ in range(200):
        words = ["".join(rng.choices(pool, k=rng.randrange(0, 30))) for _ in range(3)]
        summary = StructuredSummary.model_validate({"user_intent": words})
        plain = json.dumps(summary.to_json_dict(), indent=2, ensure_ascii=False)
        assert json_text(summary) == per_character(plain)
        assert json.loads(json_text(summary)) == summary.to_json_dict()


def test_a_compaction_sends_the_prompt_built_for_the_input_pane(
    session_file: Path, monkeypatch
) -> None:
    # The app builds the prompt for its input pane; compacting the same session with the
    # same templates, focus and profile sends that one, not a second copy built again.
    # Anything changed since: built anew.
    from goose_tui.compaction import summarize as pipeline

    built: list[str] = []
    real = pipeline.render_compaction_prompt

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        built.append("prompt")
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline, "render_compaction_prompt", counting)
    inspector = _inspector(session_file)
    shown = inspector.build_request()
    result = asyncio.run(inspector.compact())
    assert built == ["prompt"] and result.request is shown
    inspector.set_focus("the deploy")
    result = asyncio.run(inspector.compact())
    assert built == ["prompt", "prompt"] and "the deploy" in result.request.system_prompt
    inspector.build_request()
    inspector.load(load_session(session_file))  # another session (the same file, reread)
    result = asyncio.run(inspector.compact())
    assert len(built) == 4
    fresh = pipeline.build_request(inspector.session.messages, inspector.templates, "the deploy")
    assert result.request == fresh
