from __future__ import annotations

import contextlib
import functools
import gc
import importlib.abc
import importlib.machinery
import inspect
import io
import json
import os
import sys
import tempfile
import types
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Property tests are bounded by their example counts, not by time: on a loaded machine (the
# suite runs on every core) Hypothesis' 200 ms deadline and its too-slow check fail tests at
# random. Derandomized, so a run in CI is the run a developer repeats.
settings.register_profile(
    "goose-tui", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("goose-tui")

# The collector, tuned for a test process rather than for the app: each worker builds and
# drops some hundred apps, so millions of objects live long enough to reach the oldest
# generation, and full collections of that heap were a large share of a worker's CPU.
# Collecting the youngest generation less often lets most of them die young. Only when cycles
# are freed changes; the app and the CLI processes the tests start keep Python's defaults.
gc.set_threshold(50_000, 20, 10)

# The fake API keys' fixture, for the tests in several folders that prove keys never leak.
pytest_plugins = ["tests.secret_keys"]


def pytest_configure(config: pytest.Config) -> None:
    """The package compiled once, before the workers start, for the processes the suite runs
    (CLI commands, workers, apps in a pty): where PYTHONDONTWRITEBYTECODE is set, each of them
    would compile the modules it imports again. Best effort: a tree that cannot be written to
    is left as it is."""
    if hasattr(config, "workerinput"):  # an xdist worker: the controller did it
        return
    import compileall

    compileall.compile_dir(ROOT / "goose_tui", quiet=2)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """One full collection when the tests are done, then what survives it is kept out of
    later ones (``gc.freeze``). pytest collects five more times as it ends (its check for
    exceptions raised in finalizers), each walking the heap of millions of objects a worker's
    app tests leave, while the whole suite waits. The first
    collection frees the cycles and runs their finalizers, with pytest's check still
    listening; the later ones then walk only what is new."""
    gc.collect()
    gc.freeze()


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto` (pyproject's addopts): one worker per core, plus one.

    The app tests spend part of their time waiting on timers (debounce, refresh ticks, a
    loopback server's reply); a spare worker fills those waits with another test's work.
    """
    return (os.cpu_count() or 1) + 1


ROOT = Path(__file__).resolve().parents[1]
# The xdist group of the modules that import litellm in the test process or call it through
# the process's shared worker: one import of litellm for all of them.
LITELLM_GROUP = "litellm"
# The group whose tests share a litellm worker started with the fake keys (tests/secret_keys.py).
LITELLM_GROUPS = {LITELLM_GROUP, "secrets-keyed-worker"}
# What starting a process goes through, directly or from a test helper.
SPAWNING_MODULES = frozenset({"subprocess", "pty", "tests.cli_child"})
# goose_tui's litellm client and its worker: a test that names them calls litellm.
LITELLM_MODULES = frozenset({"goose_tui.llm.litellm_backend", "goose_tui.llm.litellm_worker"})
# Textual's App.run_test: a test that calls it runs the app, wherever its file is.
APP_RUNNERS = frozenset({"run_test"})


def _names(code: types.CodeType) -> Iterable[str]:
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _names(const)


def _reaches(func: object, modules: frozenset[str], seen: set[types.CodeType]) -> bool:
    """Whether a test (or fixture) function of this suite uses one of ``modules``: it names
    the module, or a function or class of it, or one of the suite's helpers that does. Only
    the suite's own functions are followed; what goose_tui does (its workers) counts where a
    test carries the mark itself."""
    func = inspect.unwrap(func)  # type: ignore[arg-type]
    code = getattr(func, "__code__", None)
    if code is None or code in seen:
        return False
    seen.add(code)
    if not str(getattr(func, "__globals__", {}).get("__name__", "")).startswith("tests"):
        return False
    names, callees = _named(func, modules)
    return names or any(_reaches(callee, modules, seen) for callee in callees)


@functools.cache
def _named(func: types.FunctionType, modules: frozenset[str]) -> tuple[bool, tuple[object, ...]]:
    """Whether ``func`` itself names one of ``modules``, and else the functions it names: kept,
    since every test that calls a shared helper asks again."""
    namespace = func.__globals__
    names = set(_names(func.__code__))
    # A function's own imports name the module: `import subprocess`, `from tests.x import f`,
    # or its package and itself: `from goose_tui.llm import litellm_worker`.
    if any(m in names or set(m.rsplit(".", 1)) <= names for m in modules):
        return True, ()
    imported = [sys.modules[n] for n in names if n.startswith("tests.") and n in sys.modules]
    callees = []
    for name in names:
        value = namespace.get(name)
        for module in imported:
            value = value if value is not None else getattr(module, name, None)
        if inspect.ismodule(value) and value.__name__ in modules:
            return True, ()
        if getattr(value, "__module__", None) in modules:
            return True, ()
        if inspect.isfunction(value):
            callees.append(value)
    return False, tuple(callees)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The markers of pyproject.toml, from where a test is and what it calls: tests/tui, and
    a test elsewhere that runs the app (``run_test``), is `app`; a test in an xdist group
    that shares litellm, or that names goose_tui's litellm client or worker, is `litellm`;
    a test that starts a process is `slow`, and so is every `app` and `litellm` test (each
    through its own code, a helper or a fixture of the suite). Tests may carry the marks
    themselves too."""
    tui = ROOT / "tests" / "tui"
    for item in items:
        if tui in item.path.parents or _uses(item, APP_RUNNERS):
            item.add_marker(pytest.mark.app)
        groups = {m.args[0] for m in item.iter_markers("xdist_group") if m.args}
        groups |= {m.kwargs["name"] for m in item.iter_markers("xdist_group") if "name" in m.kwargs}
        if item.get_closest_marker("litellm") is None and (
            groups & LITELLM_GROUPS or _uses(item, LITELLM_MODULES)
        ):
            item.add_marker(pytest.mark.litellm)
        if item.get_closest_marker("slow") is None and (
            item.get_closest_marker("app") is not None
            or item.get_closest_marker("litellm") is not None
            or _uses(item, SPAWNING_MODULES)
        ):
            item.add_marker(pytest.mark.slow)
    # The modules that run the app first, the rest after (each module's order kept): the
    # workers then end on many short tests rather than one waiting on a long app test.
    app_modules = {item.path for item in items if item.get_closest_marker("app") is not None}
    items.sort(key=lambda item: item.path not in app_modules)


def _uses(item: pytest.Item, modules: frozenset[str]) -> bool:
    seen: set[types.CodeType] = set()
    if _reaches(getattr(item, "function", None), modules, seen):
        return True
    info = getattr(item, "_fixtureinfo", None)
    for defs in getattr(info, "name2fixturedefs", {}).values():
        if any(_reaches(d.func, modules, seen) for d in defs):
            return True
    return False


SAMPLES = ROOT / "sample_sessions"
# Real `goose session export` files (see its README), kept with the tests so that a clone
# alone runs every test.
REALDATA = ROOT / "tests" / "fixtures" / "realdata" / "goose"


@pytest.fixture(autouse=True)
def _toasts_stay(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """In a test that runs the app (marked `app`, wherever its file is), every toast stays
    until the app ends: a toast vanishes after its timeout of wall time (5 or 10 s), so
    whether a snapshot, or a test reading ``app._notifications``, still sees it would depend
    on the machine's speed."""
    if request.node.get_closest_marker("app") is None:
        return
    from textual.app import App

    real_notify = App.notify

    def notify(self: App, message: str, **options: object) -> None:
        options["timeout"] = 3600.0
        real_notify(self, message, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(App, "notify", notify)


@pytest.fixture(scope="session")
def _homes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of the tests' home folders. Each of pytest's numbered folders is numbered by
    listing all of them, so one of those per test made every later one (and every tmp_path)
    slower to make."""
    return tmp_path_factory.mktemp("homes")


@pytest.fixture(autouse=True)
def _isolated_goose_config(_homes: Path, monkeypatch) -> None:
    """No test reads the developer's own ~/.config/goose overrides or Goose data dir."""
    home = Path(tempfile.mkdtemp(dir=_homes))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))
    monkeypatch.delenv("GOOSE_PATH_ROOT", raising=False)
    monkeypatch.delenv("GOOSE_AUTO_COMPACT_THRESHOLD", raising=False)
    monkeypatch.setenv("HOME", str(home))
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@pytest.fixture(autouse=True)
def _litellm_import_ends_with_its_test() -> Iterator[None]:
    """A background import of litellm that a test started (prepare_litellm) ends within
    that test. Left running it would go on through the worker's next tests, holding the GIL
    with the collector paused, and a memory test would measure its allocations."""
    yield
    backend = sys.modules.get("goose_tui.llm.litellm_backend")
    thread = getattr(backend, "_prepare_thread", None)
    if thread is not None and thread.is_alive():
        thread.join(timeout=120)


@contextlib.contextmanager
def own_litellm_worker() -> Iterator[None]:
    """A litellm worker of the caller's own (goose_tui/llm/litellm_worker.py). One worker
    serves all of a process's calls and reads the environment (the API keys) when it starts,
    as the app and the CLI, whose environment does not change, expect; a test that sets keys
    or starts another kind of worker needs one of its own (tests/secret_keys.py,
    ``keyed_worker``, for the fake keys). The worker of other tests is set
    aside, not killed (it has paid litellm's import), and comes back."""
    from goose_tui.llm import litellm_worker

    with litellm_worker._pool_lock:
        kept, litellm_worker._worker = litellm_worker._worker, None
    try:
        yield
    finally:
        litellm_worker._close_all()
        with litellm_worker._pool_lock:
            litellm_worker._worker = kept


@contextlib.contextmanager
def litellm_refused_here() -> Iterator[list[str]]:
    """While open, importing litellm in this process fails and is recorded in the list
    yielded, whether or not an earlier test imported it here (goose_tui imports it where it
    calls it, so every use in this process is an import). Finding its files without
    importing it still works. Its modules come back after."""
    loaded = {n: m for n, m in sys.modules.items() if n == "litellm" or n.startswith("litellm.")}
    attempts: list[str] = []

    class Refuse(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        def find_spec(
            self, name: str, path: Sequence[str] | None = None, target: object = None
        ) -> importlib.machinery.ModuleSpec | None:
            if name != "litellm" and not name.startswith("litellm."):
                return None
            spec = importlib.machinery.PathFinder.find_spec(name, path)
            if spec is not None:
                spec.loader = self
            return spec

        def exec_module(self, module: types.ModuleType) -> None:
            attempts.append(module.__name__)
            raise ImportError(f"{module.__name__} imported in the test process")

    finder = Refuse()
    for name in loaded:
        del sys.modules[name]
    sys.meta_path.insert(0, finder)
    try:
        yield attempts
    finally:
        sys.meta_path.remove(finder)
        for name in [n for n in sys.modules if n == "litellm" or n.startswith("litellm.")]:
            del sys.modules[name]
        sys.modules.update(loaded)


@dataclass(frozen=True)
class CliResult:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def cli(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Callable[..., CliResult]:
    """``cli(*argv, env={...}, stdin=...)``: goose-tui's entry point run in this process
    with these environment overrides and this text on standard input, as the ``goose-tui``
    script runs it; its exit code and what it wrote. For runs whose process boundary is not
    the point: no interpreter starts."""
    from goose_tui.cli import main

    def run(*argv: str, env: dict[str, str] | None = None, stdin: str = "") -> CliResult:
        capsys.readouterr()
        with monkeypatch.context() as patch:
            for name, value in (env or {}).items():
                patch.setenv(name, value)
            patch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode("utf-8"))))
            try:
                code = main(list(argv))
            except SystemExit as exc:  # argparse's own refusals, --help, --version
                code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
        out, err = capsys.readouterr()
        return CliResult(code, out, err)

    return run


def write_two_message_session(path: Path) -> Path:
    """A Goose .jsonl of two messages: the user asks to fix the build, the assistant says it
    did."""
    messages = [
        {"role": "user", "created": 1, "content": [{"type": "text", "text": "fix the build"}]},
        {"role": "assistant", "created": 2, "content": [{"type": "text", "text": "fixed"}]},
    ]
    path.write_text("\n".join(json.dumps(m) for m in messages) + "\n", encoding="utf-8")
    return path
