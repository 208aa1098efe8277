"""Which summarizer to call, parsed once from what the user typed: the built-in offline
summarizer, a reply file to replay, or a litellm model with its api base.

Everything that depends on the model string (the ``replay:`` prefix, whether the reply file
exists, the model's own window, which files a run reads) asks the
``ModelSpec``, so the string is read in one place.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from goose_tui.llm.base import DEFAULT_TIMEOUT, MAX_REPLY_CHARS

if TYPE_CHECKING:
    from goose_tui.llm.base import Summarizer
    from goose_tui.session.models import Session
    from goose_tui.tokens import RequestFit

REPLAY_PREFIX = "replay:"
OFFLINE = "offline"
# ``--model session``: the provider and model the session itself recorded.
SESSION_MODEL = "session"
USAGE = "offline, replay:FILE, session or a litellm model string"

# Goose's provider names (create_provider in crates/goose/src/providers/factory.rs, block/goose
# at 01393966d3f9, as released) and litellm's prefix for the same service; None where Goose
# drives a local CLI or a service litellm has no route for.
GOOSE_PROVIDERS: dict[str, str | None] = {
    "anthropic": "anthropic",
    "aws_bedrock": "bedrock",
    "azure_openai": "azure",
    "claude-code": None,
    "databricks": "databricks",
    "deepseek": "deepseek",
    "gcp_vertex_ai": "vertex_ai",
    "gemini-cli": None,
    "google": "gemini",
    "groq": "groq",
    "litellm": "litellm_proxy",
    "ollama": "ollama",
    "openai": "openai",
    "openrouter": "openrouter",
    "sagemaker_tgi": "sagemaker",
    "snowflake": "snowflake",
    "venice": None,
    "xai": "xai",
}


def session_model(provider: str | None, model: str | None) -> str:
    """The litellm model string of the provider and model a session recorded
    (``ollama`` + ``qwen2.5-coder:14b`` is ``ollama/qwen2.5-coder:14b``). Raises
    ``ValueError`` with a message fit for the user when there is none to use."""
    if not model:
        raise ValueError("the session records no model; name one, as in ollama/qwen2.5-coder:14b")
    if not provider:
        return model  # litellm may still know the model by its name alone
    if provider not in GOOSE_PROVIDERS:
        return f"{provider}/{model}"  # a provider added since: litellm names most alike
    prefix = GOOSE_PROVIDERS[provider]
    if prefix is None:
        raise ValueError(
            f"the session's provider {provider} ({model}) has no litellm equivalent; name "
            "a model litellm can call, as in openai/gpt-4o-mini"
        )
    return f"{prefix}/{model}"


ModelKind = Literal["offline", "replay", "litellm"]


class ModelSpec(BaseModel):
    """A parsed model choice. Build it with ``parse`` or ``from_options``."""

    model_config = ConfigDict(frozen=True)

    kind: ModelKind
    model: str | None = None  # the litellm model string
    reply_file: Path | None = None
    # Used by litellm models; the others keep it, so a litellm model typed after them (the
    # app's model switch, ``with_text``) still goes to the server the user named.
    api_base: str | None = None
    offline_context_limit: int | None = None  # offline only
    # litellm only: call the model from a worker process (goose_tui/llm/litellm_worker.py).
    # The app does (litellm's client holds the GIL in long C calls that would stall its
    # screen), and the CLI (litellm's import runs on another core while the session loads).
    in_worker_process: bool = False
    # Seconds a litellm call may take; the others keep it for a litellm model typed after them.
    timeout: float = DEFAULT_TIMEOUT

    @classmethod
    def parse(
        cls,
        text: str,
        *,
        api_base: str | None = None,
        offline_context_limit: int | None = None,
        in_worker_process: bool = False,
        timeout: float | None = None,
    ) -> ModelSpec:
        """``offline``, ``replay:FILE`` or a litellm model string. Raises ``ValueError``
        with a message fit for the user when ``text`` cannot name a model."""
        text = text.strip()
        if not text:
            raise ValueError(f"no model given: use {USAGE}")
        if offline_context_limit is not None and text != OFFLINE:
            raise ValueError("--offline-context-limit goes with the offline model")
        # Every kind keeps the api base and timeout, for a litellm model typed after it.
        common = {"api_base": api_base, "timeout": timeout or DEFAULT_TIMEOUT}
        if text == OFFLINE:
            return cls(kind="offline", offline_context_limit=offline_context_limit, **common)
        if text.startswith(REPLAY_PREFIX):
            path = text[len(REPLAY_PREFIX) :]
            if not path:
                raise ValueError("replay: needs a file, as in replay:reply.txt")
            return cls(kind="replay", reply_file=Path(path).expanduser(), **common)
        _refuse_a_near_miss(text)
        return cls(kind="litellm", model=text, in_worker_process=in_worker_process, **common)

    @classmethod
    def from_options(
        cls,
        model: str | None,
        replay: Path | None = None,
        *,
        api_base: str | None = None,
        offline_context_limit: int | None = None,
        in_worker_process: bool = False,
        timeout: float | None = None,
    ) -> ModelSpec:
        """The command line's ``--model TEXT`` / ``--replay FILE`` (offline when neither)."""
        if replay is not None:
            if model:
                raise ValueError("give either --model or --replay, not both")
            model = f"{REPLAY_PREFIX}{replay}"
        return cls.parse(
            model or OFFLINE,
            api_base=api_base,
            offline_context_limit=offline_context_limit,
            in_worker_process=in_worker_process,
            timeout=timeout,
        )

    @classmethod
    def offline(cls) -> ModelSpec:
        return cls(kind="offline")

    def with_text(self, text: str) -> ModelSpec:
        """Another model typed by the user, keeping this one's api base, timeout and how it is
        called."""
        return ModelSpec.parse(
            text,
            api_base=self.api_base,
            in_worker_process=self.in_worker_process,
            timeout=self.timeout,
        )

    @property
    def name(self) -> str:
        """As the user would type it, and as results record it."""
        if self.kind == "replay":
            return f"{REPLAY_PREFIX}{self.reply_file}"
        if self.kind == "litellm":
            assert self.model is not None
            return self.model
        return OFFLINE

    def __str__(self) -> str:
        return self.name

    @property
    def is_litellm(self) -> bool:
        return self.kind == "litellm"

    def request_fit(self, session: Session, request_tokens: int) -> RequestFit | None:
        """Whether a request of ``request_tokens`` fits this model's window (the session's
        own when it is the session's model); None for a model without one (a replayed reply,
        the offline model without ``--offline-context-limit``)."""
        from goose_tui.tokens import RequestFit, WindowSource, context_window

        window: int | None = None
        source: WindowSource | None = None
        if self.kind == "offline" and self.offline_context_limit is not None:
            window, source = self.offline_context_limit, "offline"
        elif self.kind == "litellm":
            assert self.model is not None
            # The session's own model, as ``--model session`` spells it, has its window.
            try:
                own = session_model(session.provider_name, session.model_name)
            except ValueError:
                own = None
            name = session.model_name if self.model == own else self.model
            limit, limit_source = context_window(session, model=name)
            if limit_source in ("session", "model-map"):  # not assumed
                window, source = limit, limit_source
        else:
            return None
        return RequestFit(
            model=self.name, request_tokens=request_tokens, window=window, window_source=source
        )

    def input_files(self) -> list[Path]:
        """The files a compaction with this model reads (for the output-path check)."""
        return [self.reply_file] if self.reply_file is not None else []

    def problem(self) -> str | None:
        """Why calling this model would fail before any work, or None: a reply file that is
        missing, not a regular file or not UTF-8 text."""
        if self.reply_file is None:
            return None
        if not self.reply_file.exists():
            return f"{self.reply_file}: no such reply file"
        if not self.reply_file.is_file():
            return f"{self.reply_file}: the reply file is not a regular file"
        try:
            # Up to the reply cap (a bigger file fails the call as too long).
            with self.reply_file.open("rb") as handle:
                handle.read(MAX_REPLY_CHARS * 4).decode("utf-8")
        except UnicodeDecodeError as exc:
            if exc.reason == "unexpected end of data":
                return None  # cut inside a character at the cap: the call decides
            return f"{self.reply_file}: the reply file is not UTF-8 text ({exc.reason})"
        except OSError:
            pass  # the call says why it cannot read it
        return None

    def summarizer(self, *, api_key: str | None = None, timeout: float | None = None) -> Summarizer:
        """The backend for this model. Raises ``ValueError`` with ``problem()``'s message."""
        problem = self.problem()
        if problem is not None:
            raise ValueError(problem)
        if self.kind == "offline":
            from goose_tui.llm.offline import OfflineSummarizer

            return OfflineSummarizer(context_limit=self.offline_context_limit)
        if self.kind == "replay":
            from goose_tui.llm.replay import ReplaySummarizer

            assert self.reply_file is not None
            return ReplaySummarizer(self.reply_file)
        assert self.model is not None
        from goose_tui.llm.litellm_backend import LiteLLMSummarizer
        from goose_tui.llm.litellm_worker import WorkerLiteLLMSummarizer

        backend = WorkerLiteLLMSummarizer if self.in_worker_process else LiteLLMSummarizer
        return backend(
            self.model, api_base=self.api_base, api_key=api_key, timeout=timeout or self.timeout
        )

    def _client(self) -> tuple[Callable[[], None], Callable[[], bool]]:
        """How to start and ask after litellm's import where this model is called: in the
        worker process, or in this one."""
        if self.in_worker_process:
            from goose_tui.llm.litellm_worker import prepare, ready

            return prepare, ready
        from goose_tui.llm.litellm_backend import litellm_ready, prepare_litellm

        return prepare_litellm, litellm_ready

    def prepare(self) -> None:
        """Start what calling this model will need, in the background (litellm's import takes
        seconds); returns at once, and does nothing for the built-in models."""
        if self.is_litellm:
            self._client()[0]()

    def client_ready(self) -> bool:
        """Whether a call would start without waiting for litellm's import (always, for the
        built-in models)."""
        return not self.is_litellm or self._client()[1]()


def prefix_case_problem(text: str, prefix: str) -> str | None:
    """What to say of ``text`` that starts with ``prefix`` (``replay:``, ``summary:``) in
    another case (``REPLAY:r.txt``), or None."""
    if text.lower().startswith(prefix) and not text.startswith(prefix):
        return f"{text}: did you mean {prefix}{text[len(prefix) :]}? (the prefix is lower case)"
    return None


def _refuse_a_near_miss(text: str) -> None:
    """``REPLAY:r.txt``, ``offline:x``, ``Offline``: meant as a built-in model, and no model
    string litellm would take (it refused them after its import, seconds, as "no provider")."""
    if (problem := prefix_case_problem(text, REPLAY_PREFIX)) is not None:
        raise ValueError(problem)
    lower = text.lower()
    if lower == OFFLINE or lower.startswith(f"{OFFLINE}:"):
        raise ValueError(f"{text}: did you mean {OFFLINE}? (the built-in model takes no argument)")
