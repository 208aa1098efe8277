"""Command-palette entries for switching the summarizer model and the Goose version."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider

from goose_tui.compaction.profiles import DESCRIPTIONS, PROFILES

if TYPE_CHECKING:
    from goose_tui.tui.app import GooseTUI


class ModelCommands(Provider):
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

    async def discover(self) -> Hits:
        for name, help_text, callback in self._entries():
            yield DiscoveryHit(name, callback, help=help_text)  # type: ignore[arg-type]

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, callback in self._entries():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, help=help_text)  # type: ignore[arg-type]
