"""Command-palette entries: every action of the screen the palette was opened on (its
bindings, its focused widget's and the app's, with their keys), opening another session,
and switching the summarizer model and the Goose version."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.markup import escape
from textual.message import Message

from goose_tui.compaction.profiles import DESCRIPTIONS, PROFILES
from goose_tui.tui.messages import GooseProfileRequested, ModelChoiceRequested

# (name, help, what choosing it does)
Entry = tuple[str, str, Callable[[], object]]


class Commands(Provider):
    """Every palette entry from one provider, in one order: the actions of the screen under
    the palette, the models and Goose versions, then Textual's own commands. The palette
    shows each provider's entries as they arrive, so several providers would list them in
    another order each time it opens."""

    def actions(self) -> list[Entry]:
        """Every binding with a description that is active on the screen under the palette,
        so the palette and the footer can never disagree; plus the app's own entries."""
        app = self.app
        screen = self.screen
        entries: list[Entry] = []
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
                partial(self._run, app, "open_session"),
            )
        )
        return entries

    def models(self) -> list[Entry]:
        """Switching the summarizer model, and the Goose version."""
        ask = self._ask
        return [
            (
                "Model: the session's own",
                "Summarize with the provider and model the session recorded (litellm)",
                partial(ask, ModelChoiceRequested("session")),
            ),
            (
                "Model: offline (extractive, no network)",
                "Summarize with the built-in deterministic summarizer",
                partial(ask, ModelChoiceRequested("offline")),
            ),
            (
                "Model: replay a reply file…",
                "Use a saved model reply as the summarizer's answer",
                partial(ask, ModelChoiceRequested("replay")),
            ),
            (
                "Model: litellm model string…",
                "e.g. openai/gpt-4o-mini, anthropic/claude-3-5-haiku, ollama/llama3",
                partial(ask, ModelChoiceRequested("litellm")),
            ),
            *(
                (
                    f"Goose version: {profile}",
                    DESCRIPTIONS[profile],
                    partial(ask, GooseProfileRequested(profile)),
                )
                for profile in PROFILES
            ),
        ]

    def _system(self, every: bool) -> list[Entry]:
        """Textual's own commands; some are found by a search only (``discover`` False)."""
        commands = sorted(self.app.get_system_commands(self.screen), key=lambda c: c.title)
        return [(c.title, c.help, c.callback) for c in commands if every or c.discover]

    def entries(self) -> list[Entry]:
        """What a search looks through."""
        return [*self.actions(), *self.models(), *self._system(every=True)]

    def listed(self) -> list[Entry]:
        """What the palette lists with nothing typed."""
        return [*self.actions(), *self.models(), *self._system(every=False)]

    async def discover(self) -> Hits:
        for name, help_text, callback in self.listed():
            yield DiscoveryHit(Content(name), callback, help=escape(help_text))

    async def search(self, query: str) -> Hits:
        """Entries whose name matches, then those whose help does (``probe`` finds "Lost?",
        whose help names the probes)."""
        matcher = self.matcher(query)
        for name, help_text, callback in self.entries():
            # The palette parses help as markup: escaped, "[role]" stays text.
            by_name, by_help = matcher.match(name), matcher.match(help_text)
            if by_name > 0:
                yield Hit(by_name, matcher.highlight(name), callback, help=escape(help_text))
            elif by_help > 0:
                yield Hit(by_help / 2, Content(name), callback, help=escape(help_text))

    def _ask(self, message: Message) -> None:
        """What the app does for the palette it does for any screen: a message up."""
        self.app.post_message(message)

    def _run(self, node: object, action: str) -> None:
        self.app.call_later(self.app.run_action, action, node)
