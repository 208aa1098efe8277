"""``goose-tui schema [NAME]``: the JSON Schema of a sub-command's ``--json`` output (the
models of goose_tui/cli/reports.py), or of every one, keyed by command."""

from __future__ import annotations

import argparse
from typing import Any

from goose_tui.cli.common import add_command, print_json

# The commands with a --json output, in the order the help lists them (reports.OUTPUTS has
# the models; importing it here would load the whole analysis layer for any sub-command).
NAMES = (
    "parse",
    "usage",
    "sessions",
    "compact",
    "retention",
    "probe",
    "compare",
    "timeline",
    "audit",
    "batch",
)


def register(sub: Any) -> None:
    s = add_command(sub, "schema", cmd_schema)
    s.add_argument(
        "name",
        metavar="NAME",
        nargs="?",
        choices=NAMES,
        help=f"one command's output ({', '.join(NAMES)}); default: all, keyed by name",
    )


def output_schema(name: str) -> dict[str, Any]:
    from goose_tui.cli.reports import OUTPUTS

    return OUTPUTS[name].model_json_schema(mode="serialization")


def cmd_schema(args: argparse.Namespace) -> int:
    if args.name is not None:
        print_json(output_schema(args.name))
    else:
        print_json({name: output_schema(name) for name in NAMES})
    return 0
