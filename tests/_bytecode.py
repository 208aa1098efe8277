"""Let pytest keep the modules it rewrites (loaded first: ``-p tests._bytecode``, addopts).

pytest rewrites the asserts of every test module and of every module of its plugins'
packages (hypothesis, anyio, syrupy, xdist...: 224 modules, 2.7 MB of source) and keeps the
result as a ``.pyc`` beside the source, unless bytecode writing is off. This machine sets
``PYTHONDONTWRITEBYTECODE``, so each pytest process (the controller and each worker) rewrote
all of them again: 3.5-4.5 s of CPU out of a 5.6-7 s collection. Turned back on here, before
the plugins are imported (a ``-p`` in addopts is imported ahead of the entry-point plugins),
the controller's own import of the plugins leaves their rewritten code for the workers, and
the controller rewrites the test modules once before the workers start (below). The CLI and
app processes the tests start keep the environment's setting; ``tests/conftest.py`` compiles
the package for them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.dont_write_bytecode = False

TESTS = Path(__file__).resolve().parent


def pytest_configure(config: pytest.Config) -> None:
    """With workers (``-n``), the controller rewrites each test module not yet kept, so that
    the workers, which all import every module to collect it, read it instead of each
    rewriting it. Best effort: pytest's own rewriting helpers are private, so any change in
    them, or a tree that cannot be written to, leaves the workers to rewrite as before."""
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return
    try:
        from _pytest.assertion import rewrite
    except ImportError:
        return
    state = config.stash.get(rewrite.assertstate_key, None)
    if state is None:  # --assert=plain
        return
    with_asserts = sorted(TESTS.rglob("test_*.py")) + sorted(TESTS.rglob("conftest.py"))
    for path in with_asserts:
        try:
            cache_dir = rewrite.get_cache_dir(path)
            pyc = cache_dir / (path.name[:-3] + rewrite.PYC_TAIL)
            if rewrite._read_pyc(path, pyc) is not None:
                continue
            if not rewrite.try_makedirs(cache_dir):
                return
            source_stat, code = rewrite._rewrite_test(path, config)
            rewrite._write_pyc(state, code, source_stat, pyc)
        except Exception:  # pytest's internals moved: the workers rewrite, as before
            return
