"""A broken override on disk: what the panes show is what the template in use renders, the
messages say which one that is, and the error stays in the fields header until the file is
fixed."""

from __future__ import annotations

from pathlib import Path

from goose_tui.tui.app import GooseTUI
from goose_tui.tui.widgets.pane import Pane
from goose_tui.tui.widgets.summary_preview import SummaryPreview
from goose_tui.tui.widgets.text_viewer import TextViewer

from .conftest import compacted, rewrite, settle, wait_until

GOOD = "## GOOD HEADING\n{{ next_step }}\n"
BROKEN = "## BROKEN\n{% for i in user_intent %}\n"
FIXED = "## FIXED HEADING\n{{ next_step }}\n"


def _banner(app: GooseTUI) -> str:
    return str(app.main.query_one("#fields-banner").render())


async def test_a_broken_override_keeps_its_last_good_text_and_every_message_says_so(
    session_file: Path, reply_file: Path, prompts: Path
) -> None:
    override = prompts / "compaction_summary.md"
    override.write_text(GOOD, encoding="utf-8")
    app = GooseTUI(session_file, model=f"replay:{reply_file}", prompts_dir=prompts)
    async with app.run_test(size=(120, 40)) as pilot:
        await compacted(pilot)
        preview = app.main.query_one(SummaryPreview)
        assert preview.markdown.startswith("## GOOD HEADING")
        rewrite(override, BROKEN)
        await wait_until(pilot, lambda: f"{override}:" in _banner(app))
        await settle(pilot)
        # What is shown is the last good text's render, and every message says that.
        assert preview.markdown.startswith("## GOOD HEADING")
        toasts = [str(n.message) for n in app._notifications]
        assert not any("next template in line" in t for t in toasts), toasts
        assert any("last good" in t and str(override) in t for t in toasts), toasts
        title = str(app.main.query_one("#pane-markdown", Pane).border_subtitle)
        assert "last good" in title and str(override) in title, title
        # A compaction renders with the same text, and the error stays in the header.
        await pilot.press("c")
        await settle(pilot)
        assert preview.markdown.startswith("## GOOD HEADING")
        assert f"{override}:" in _banner(app), _banner(app)
        # Fixed on disk: the error goes, the fixed template renders.
        rewrite(override, FIXED)
        await wait_until(pilot, lambda: preview.markdown.startswith("## FIXED HEADING"))
        await settle(pilot)
        assert str(override) not in _banner(app), _banner(app)


async def test_where_files_cannot_be_watched_the_app_says_so_and_polls(
    session_file: Path, reply_file: Path, prompts: Path, monkeypatch
) -> None:
    # A fake, called one: the system refusing a watch (no inotify watch left) cannot be
    # brought about here without starving the machine's other programs.
    from goose_tui.compaction import template_watch

    def refused(paths, stop):
        raise OSError(28, "inotify watch limit reached")
        yield  # a generator, as the real one

    monkeypatch.setattr(template_watch, "template_changes", refused)
    override = prompts / "compaction_summary.md"
    override.write_text(GOOD, encoding="utf-8")
    app = GooseTUI(session_file, model=f"replay:{reply_file}", prompts_dir=prompts)
    async with app.run_test(size=(120, 40)) as pilot:
        await compacted(pilot)
        toasts = [str(n.message) for n in app._notifications]
        assert any("cannot watch the template folders" in t for t in toasts), toasts
        preview = app.main.query_one(SummaryPreview)
        rewrite(override, FIXED)
        await wait_until(pilot, lambda: preview.markdown.startswith("## FIXED HEADING"))


def _broken_override(folder: Path, name: str = "compaction.md") -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text("line one\nline two\n{{ messages }}\n{% for x in %}\n", encoding="utf-8")
    return path


async def test_overrides_broken_at_start_use_the_built_ins_and_say_so_in_borders_and_banner(
    session_file: Path, reply_file: Path, prompts: Path
) -> None:
    broken = _broken_override(prompts)
    override = prompts / "compaction_summary.md"
    override.write_text(BROKEN, encoding="utf-8")
    app = GooseTUI(session_file, model=f"replay:{reply_file}", prompts_dir=prompts)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.inspector.templates.compaction.source.origin == "built-in"
        border = str(app.main.query_one("#pane-input", Pane).border_subtitle)
        assert border == f"compaction.md: built-in (override broken: {broken}:4)"
        warnings = [n for n in app._notifications if n.severity == "warning"]
        assert any(f"{broken}:4" in n.message for n in warnings)
        prompt = app.main.query_one("#input-view", TextViewer).text
        assert "[user]: The test test_parse_dates" in prompt  # built by the built-in
        # The summary template's stays said after a compaction.
        await compacted(pilot)
        preview = app.main.query_one(SummaryPreview)
        assert preview.markdown.startswith("# Conversation Summary")  # the built-in's render
        banner = _banner(app)
        assert f"{override}:" in banner and "built-in" in banner, banner
        title = str(app.main.query_one("#pane-markdown", Pane).border_subtitle)
        assert "built-in" in title and str(override) in title, title


async def test_an_override_that_is_a_folder_is_reported_as_broken(
    session_file: Path, tmp_path: Path
) -> None:
    # It was passed over in silence: the built-in was used, no toast.
    folder = tmp_path / "prompts" / "compaction.md"
    folder.mkdir(parents=True)
    app = GooseTUI(session_file, prompts_dir=folder.parent)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.inspector.templates.compaction.source.origin == "built-in"
        border = str(app.main.query_one("#pane-input", Pane).border_subtitle)
        assert border == f"compaction.md: built-in (override broken: {folder})"
        toasts = [n for n in app._notifications if n.title == "template override broken"]
        assert [n.message for n in toasts] == [
            f"{folder}: is a folder, not a file (override skipped); using the next template in line"
        ]


async def test_override_that_appears_broken_falls_back_then_is_used_once_fixed(
    session_file: Path, prompts: Path
) -> None:
    app = GooseTUI(session_file, prompts_dir=prompts)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pane = app.main.query_one("#pane-input", Pane)
        broken = _broken_override(prompts)
        rewrite(broken, broken.read_text())
        await wait_until(pilot, lambda: "override broken" in str(pane.border_subtitle))
        assert app.inspector.templates.compaction.source.origin == "built-in"
        # A toast is a message the app handles after the subtitle was set: wait for it too.
        await wait_until(pilot, lambda: any(f"{broken}:4" in n.message for n in app._notifications))
        rewrite(broken, "FIXED\n{{ messages }}")
        viewer = app.main.query_one("#input-view", TextViewer)
        await wait_until(pilot, lambda: viewer.text.startswith("FIXED\n[user]:"))
        assert str(pane.border_subtitle) == f"compaction.md: override {broken} (prompts-dir)"
