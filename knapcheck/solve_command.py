"""`knapcheck solve SPEC FILE.json`: every solver a spec names on one instance file, each answer and verdict."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from fuzz.differential import check
from knapcheck.targets import entries_for
from oracles.optimum import optimum
from solvers.contract import Instance
from solvers.isolation import start_workers


def add_parser(commands) -> None:
    parser = commands.add_parser("solve", help="run solvers on one instance file and judge each")
    parser.add_argument("solver", help="a solver spec, e.g. full_table, torch:dp_knapsack or torch (every torch solver)")
    parser.add_argument("file", type=Path, help='JSON: {"memory": [...], "runtimes": [...], "max_memory": ...}')
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        instance = Instance.from_dict(json.loads(args.file.read_text()))
    except (OSError, json.JSONDecodeError, ValueError) as exc:
        raise SystemExit(f"knapcheck solve: cannot read instance {args.file}: {exc}") from None
    entries = entries_for([args.solver])
    start_workers(entries)
    oracle = optimum(instance)
    failed = False
    for entry in entries:
        done = check(entry, instance, oracle=oracle)
        answer = done.outcome.answer if done.outcome.returned else done.outcome.error
        print(f"solver:  {entry.name}")
        print(f"answer:  {answer!r}")
        print(f"optimum: {float(done.oracle.value)!r} ({done.oracle.name}{'' if done.oracle.proven else ', unproven'})")
        print(f"verdict: {done.verdict.value}{': ' + done.judgement.detail if done.judgement.detail else ''}")
        failed = failed or done.failed or bool(done.oracle_disagreement)
    return 1 if failed else 0
