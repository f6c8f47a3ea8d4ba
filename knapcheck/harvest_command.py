"""`knapcheck harvest`: record the knapsack instances torch.compile solves for built-in models."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fuzz.harvested_corpus import write_harvested
from fuzz.harvest import harvest
from fuzz.harvest_models import MODELS

DEFAULT_BUDGETS = "0.02,0.05,0.1,0.2,0.3,0.4,0.5,0.6"


def add_parser(commands) -> None:
    parser = commands.add_parser(
        "harvest", help="compile built-in models under memory budgets and record the knapsacks torch solves"
    )
    parser.add_argument("--model", nargs="+", choices=list(MODELS), required=True, help="built-in model(s)")
    parser.add_argument(
        "--budgets",
        default=DEFAULT_BUDGETS,
        help=f"comma-separated activation memory budgets in [0, 1] (default: {DEFAULT_BUDGETS})",
    )
    parser.add_argument("--out", type=Path, required=True, help="directory to write MODEL.json into")
    parser.set_defaults(run=run)


def parse_budgets(text: str) -> list[float]:
    budgets = []
    for i, part in enumerate(text.split(",")):
        try:
            budgets.append(float(part))
        except ValueError:
            raise ValueError(f"--budgets: item {i} ({part!r}) is not a number") from None
    return budgets


def run(args: argparse.Namespace) -> int:
    try:
        budgets = parse_budgets(args.budgets)
        records = [
            record
            for model in args.model
            for record in harvest(model, budgets, progress=lambda m: print(m, file=sys.stderr, flush=True))
        ]
    except ValueError as exc:
        raise SystemExit(f"knapcheck harvest: {exc}") from None
    for path in write_harvested(records, args.out):
        print(path)
    print(f"{len(records)} instance(s) from {len(args.model)} model(s)")
    return 0
