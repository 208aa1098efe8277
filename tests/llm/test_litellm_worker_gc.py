"""The litellm worker imports litellm with the collector paused and keeps it out of later
collections."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.litellm  # a fresh interpreter imports litellm


def test_the_litellm_worker_imports_litellm_without_collections_and_keeps_it_out_of_them() -> None:
    # In a fresh interpreter, as the worker process imports it (the CLI's --model runs and
    # the app's litellm calls go through it): no collection runs while litellm's module
    # executes (882 did, each walking everything built so far: 0.45-0.55 s of 2.5 s), and
    # what the import built is then out of the collector's walks (the first call's 66
    # collections walked it all: 0.45 s of 0.65 s). The collector is back afterwards.
    script = (
        "import gc, sys\n"
        "runs = []\n"
        "def importing():  # litellm's module is in sys.modules, still being executed\n"
        "    spec = getattr(sys.modules.get('litellm'), '__spec__', None)\n"
        "    return getattr(spec, '_initializing', False)\n"
        "gc.callbacks.append(lambda phase, info: phase == 'start' and runs.append(importing()))\n"
        "from goose_tui.llm.litellm_worker import load_client\n"
        "load_client()\n"
        "gc.collect()  # one the probe must see\n"
        "litellm = sys.modules['litellm']\n"
        "walked = any(o is vars(litellm) for o in gc.get_objects())\n"
        "print(sum(runs), len(runs) > 0, gc.isenabled(), walked)\n"
    )
    assert printed_by(script) == ["0", "True", "True", "False"]


def printed_by(script: str) -> list[str]:
    """The words ``script`` prints, run in a fresh interpreter."""
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    return out.stdout.split()
