"""The `knapcheck` command line: parses arguments and hands them to one command module each."""

from __future__ import annotations

import argparse
import sys

from knapcheck import (
    bench_command,
    check_command,
    fuzz_command,
    harvest_command,
    promote_command,
    report_command,
    solve_command,
    solvers_command,
)
from knapcheck.exit_status import USAGE
from knapcheck.usage import UsageError

COMMANDS = [
    check_command,
    solvers_command,
    solve_command,
    harvest_command,
    fuzz_command,
    promote_command,
    bench_command,
    report_command,
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="knapcheck", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add_parser(commands)
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except UsageError as exc:
        print(f"knapcheck {args.command}: {exc}", file=sys.stderr)
        return USAGE


if __name__ == "__main__":
    sys.exit(main())
