"""Command-palette entries: every action of the screen the palette was opened on (its
bindings, its focused widget's and the app's, with their keys), opening another session,
and switching the summarizer model and the Goose version."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider

from goose_tui.compaction.profiles import DESCRIPTIONS, PROFILES

if TYPE_CHECKING:
    from goose_tui.tui.app import GooseTUI


class _EntryCommands(Provider):
    """A provider whose commands are a list of (name, help, callback) entries."""

    def _entries(self) -> list[tuple[str, str, object]]:
        raise NotImplementedError

    async def discover(self) -> Hits:
        for name, help_text, callback in self._entries():
            yield DiscoveryHit(name, callback, help=help_text)  # type: ignore[arg-type]

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, callback in self._entries():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, help=help_text)  # type: ignore[arg-type]


class ModelCommands(_EntryCommands):
    def _entries(self) -> list[tuple[str, str, object]]:
        app: GooseTUI = self.app  # type: ignore[assignment]
        return [
            (
                "Model: offline (extractive, no network)",
                "Summarize with the built-in deterministic summarizer",
                partial(app.set_model, "offline"),
            ),
            (
                "Model: replay a reply file…",
                "Use a saved model reply as the summarizer's answer",
                app.ask_replay_file,
            ),
            (
                "Model: litellm model string…",
                "e.g. openai/gpt-4o-mini, anthropic/claude-3-5-haiku, ollama/llama3",
                app.ask_litellm_model,
            ),
            *(
                (
                    f"Goose version: {profile}",
                    DESCRIPTIONS[profile],
                    partial(app.set_goose_profile, profile),
                )
                for profile in PROFILES
            ),
        ]


class ActionCommands(_EntryCommands):
    """Every binding with a description that is active on the screen under the palette, so
    the palette and the footer can never disagree; plus the app's own entries."""

    def _entries(self) -> list[tuple[str, str, object]]:
        app: GooseTUI = self.app  # type: ignore[assignment]
        screen = self.screen
        entries: list[tuple[str, str, object]] = []
        seen: set[str] = set()
        for active in screen.active_bindings.values():
            binding = active.binding
            if not binding.description or binding.action in seen:
                continue
            if binding.action in ("command_palette", "app.command_palette"):
                continue
            seen.add(binding.action)
            key = app.get_key_display(binding)
            entries.append(
                (
                    f"{binding.description} ({key})",
                    binding.tooltip or f"the {key} key on this screen",
                    partial(self._run, active.node, binding.action),
                )
            )
        entries.append(
            (
                "Open another session…",
                "pick a session of Goose's data dir, a folder or a sessions.db; recent ones first",
                app.action_open_session,
            )
        )
        return entries

    def _run(self, node: object, action: str) -> None:
        self.app.call_later(self.app.run_action, action, node)  # type: ignore[arg-type]
