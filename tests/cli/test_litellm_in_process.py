"""CLI commands that call litellm, run by their main in this process: they share the process's
litellm worker with the other tests of LITELLM_GROUP, where a command run as a process of its
own imports litellm again. The commands' process-level behaviour (exit codes, streams) is
checked as processes in tests/cli/test_cli.py and tests/cli/test_output_files.py."""

from __future__ import annotations

import pytest

from goose_tui.cli import main
from tests.conftest import LITELLM_GROUP, SAMPLES
from tests.loopback import LoopbackServer, Reply

pytestmark = pytest.mark.xdist_group(LITELLM_GROUP)

SHORT = SAMPLES / "short.jsonl"


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "internal error" not in err and "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        # It was "the operation failed" (exit 1).
        (("compact", str(SHORT), "--model", "bogus"), "goose-tui: "),
        (
            ("compare", str(SHORT), "--a", "offline", "--b", "bogus"),
            "goose-tui: B: bogus: litellm knows no provider by that name: write the model as",
        ),
    ],
)
def test_a_model_litellm_knows_no_provider_for_is_unusable_input(
    args: tuple[str, ...], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(list(args)) == 2
    assert one_line(capsys.readouterr().err).startswith(expected)


def test_a_reply_with_no_content_over_http_fails_the_compaction(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with LoopbackServer([Reply.ok("")]) as server:
        code = main(
            [
                "compact",
                str(SHORT),
                "--model",
                "openai/test-model",
                "--api-base",
                f"{server.url}/v1",
            ]
        )
    assert len(server.requests) == 1
    assert code == 1
    assert "empty reply" in one_line(capsys.readouterr().err)
