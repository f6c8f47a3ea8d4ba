"""`knapcheck check`: the differential check over the registry; exit 1 if any of ours failed or an
oracle was shown wrong (then the check itself cannot be trusted)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from fuzz.check import run_check
from fuzz import families
from knapcheck.targets import add_targets_argument, entries_for
from reports.check_report import render_json, render_text


def add_parser(commands) -> None:
    parser = commands.add_parser("check", help="cross-check solvers against the exact oracles")
    add_targets_argument(parser)
    parser.add_argument("--per-family", type=int, default=40, help="generated instances per family (default: 40)")
    parser.add_argument("--families", nargs="+", choices=families.names(), default=families.names())
    parser.add_argument("--seed", type=int, default=0, help="seed of the generated instances (default: 0)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the result as JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.per_family < 1:
        raise SystemExit("knapcheck check: --per-family must be at least 1")
    entries = entries_for(args.targets)
    result = run_check(
        entries, args.families, args.per_family, args.seed, progress=lambda m: print(m, file=sys.stderr, flush=True)
    )
    print(render_text(result))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(render_json(result), indent=2))
    return 1 if result.our_failures() or result.oracle_findings else 0
