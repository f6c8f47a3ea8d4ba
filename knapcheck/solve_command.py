"""`knapcheck solve NAME FILE.json`: one solver on one instance file, its answer and verdict."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from fuzz.differential import check
from knapcheck.targets import entries_for
from solvers.contract import Instance


def add_parser(commands) -> None:
    parser = commands.add_parser("solve", help="run one solver on one instance file and judge it")
    parser.add_argument("solver", help="a solver spec naming one solver, e.g. full_table or torch:dp_knapsack")
    parser.add_argument("file", type=Path, help='JSON: {"memory": [...], "runtimes": [...], "max_memory": ...}')
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        instance = Instance.from_dict(json.loads(args.file.read_text()))
    except (OSError, json.JSONDecodeError, ValueError) as exc:
        raise SystemExit(f"knapcheck solve: cannot read instance {args.file}: {exc}") from None
    (entry,) = entries_for([args.solver])[:1]
    done = check(entry, instance)
    answer = done.outcome.answer if done.outcome.returned else done.outcome.error
    print(f"answer:  {answer!r}")
    print(f"optimum: {float(done.oracle.value)!r} ({done.oracle.name}{'' if done.oracle.proven else ', unproven'})")
    print(f"verdict: {done.verdict.value}{': ' + done.judgement.detail if done.judgement.detail else ''}")
    return 1 if done.failed else 0
