"""Numbers the CLI cannot use are refused with one clear line and exit 2; a threshold in
Goose's variable is read as Goose reads it. Run by the entry point in this process."""

from __future__ import annotations

import json

import pytest

from tests.cli.test_output_files import one_line
from tests.conftest import SAMPLES

SHORT = SAMPLES / "short.jsonl"
THRESHOLD = "GOOSE_AUTO_COMPACT_THRESHOLD"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("usage", str(SHORT), "--context-limit", "0"), "--context-limit 0"),
        (("usage", str(SHORT), "--context-limit", "-5"), "--context-limit -5"),
        (("timeline", str(SHORT), "--context-limit", "0"), "--context-limit 0"),
        (("usage", str(SHORT), "--threshold", "-0.5"), "--threshold -0.5"),
        (("usage", str(SHORT), "--threshold", "1.5"), "--threshold 1.5"),
        (("usage", str(SHORT), "--threshold", "nan"), "--threshold nan"),
        (("timeline", str(SHORT), "--threshold", "2"), "--threshold 2"),
        # Just above 1: the message said "--threshold 1: must be in (0, 1]".
        (("usage", str(SHORT), "--threshold", "1.0000001"), "--threshold 1.0000001:"),
        (("compact", str(SHORT), "--offline-context-limit", "0"), "--offline-context-limit 0"),
        # The app itself: refused before it starts.
        ((str(SHORT), "--threshold", "2"), "--threshold 2"),
        ((str(SHORT), "--context-limit", "0"), "--context-limit 0"),
    ],
)
def test_unusable_limits_and_thresholds_exit_2_with_one_line(
    cli, args: tuple[str, ...], words: str
) -> None:
    out = cli(*args)
    assert out.returncode == 2
    assert words in one_line(out.stderr)
    assert out.stdout == ""


@pytest.mark.parametrize("value", ["0", "0.0", "1.5", "-1", "1"])
def test_a_threshold_goose_reads_as_off_is_off(cli, value: str) -> None:
    # The variable is Goose's: 0 is how its documentation turns auto compaction off, and its
    # check_if_compaction_needed reads any threshold <= 0 or >= 1 as off (crates/goose/src/
    # context_mgmt/mod.rs). `usage` and `timeline` refused to run with it set so.
    for command in ("usage", "timeline"):
        out = cli(command, str(SHORT), env={THRESHOLD: value})
        assert out.returncode == 0, out.stderr
        assert out.stderr == ""
    out = cli("usage", str(SHORT), "--json", env={THRESHOLD: value})
    data = json.loads(out.stdout)
    assert data["threshold"] == float(value) and data["auto_compact_enabled"] is False


@pytest.mark.parametrize("value", ["eighty", "", "0.8.1", "nan", "inf"])
def test_a_threshold_goose_cannot_read_is_its_default_with_a_warning(cli, value: str) -> None:
    # Goose ignores a value it cannot parse and uses 0.8; goose-tui does the same and says so.
    out = cli("usage", str(SHORT), "--json", env={THRESHOLD: value})
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["threshold"] == 0.8
    assert one_line(out.stderr) == (
        f"goose-tui: $GOOSE_AUTO_COMPACT_THRESHOLD={value!r} is not a number: Goose uses "
        "0.8 then, and so does goose-tui"
    )


def test_a_usable_threshold_and_limit_still_work(cli) -> None:
    out = cli("usage", str(SHORT), "--context-limit", "1000", env={THRESHOLD: "1"})
    assert out.returncode == 0, out.stderr
    assert "auto compaction is off" in out.stdout
    # --threshold decides: the environment is not read then.
    forced = cli("usage", str(SHORT), "--threshold", "0.5", env={THRESHOLD: "x"})
    assert forced.returncode == 0, forced.stderr
    assert "threshold   0.5" in forced.stdout
