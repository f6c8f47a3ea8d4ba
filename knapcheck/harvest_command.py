"""`knapcheck harvest`: record the knapsack instances torch.compile solves for built-in models."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from knapcheck import exit_status
from knapcheck.output_checks import writable_directory
from knapcheck.usage import UsageError

DEFAULT_BUDGETS = "0.02,0.05,0.1,0.2,0.3,0.4,0.5,0.6"

EXAMPLES = """\
examples:
  knapcheck harvest --model mlp --budgets 0.1,0.3 --out harvested
  knapcheck harvest --model mlp transformer conv --out fuzz/corpus/harvested
  knapcheck solve full_table harvested/mlp.json      solve what was harvested
  knapcheck check --instances harvested/mlp.json     check it with every solver"""


DESCRIPTION = (
    "Compile built-in models (knapcheck.fuzz.harvest_models.MODELS) afresh under each activation"
    " memory budget and record every knapsack torch's partitioner solves, with its provenance, in"
    " DIR/MODEL.json (schema_version 1), a file solve, check --instances and report --instances read."
)


def epilog() -> str:
    return "\n\n".join([EXAMPLES, exit_status.help_text(None)])


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", nargs="+", required=True, metavar="NAME",
                        help="built-in models to compile (an unknown name is answered with the list)")
    parser.add_argument(
        "--budgets",
        default=DEFAULT_BUDGETS,
        help=f"comma-separated activation memory budgets in [0, 1] (default: {DEFAULT_BUDGETS})",
    )
    parser.add_argument("--out", type=Path, required=True, metavar="DIR", help="directory to write MODEL.json into")
    parser.set_defaults(run=run)


def parse_budgets(text: str) -> list[float]:
    budgets = []
    for i, part in enumerate(text.split(",")):
        try:
            budgets.append(float(part))
        except ValueError:
            raise ValueError(f"item {i} ({part!r}) is not a number") from None
    return budgets


def run(args: argparse.Namespace) -> int:
    from knapcheck.fuzz.harvest import check_budgets, harvest
    from knapcheck.fuzz.harvest_models import MODELS
    from knapcheck.fuzz.harvested_corpus import write_harvested

    unknown = [name for name in args.model if name not in MODELS]
    if unknown:
        raise UsageError(f"--model: unknown {', '.join(map(repr, unknown))}; built-in models: {', '.join(MODELS)}")
    try:
        budgets = check_budgets(parse_budgets(args.budgets))
    except ValueError as exc:
        raise UsageError(f"--budgets: {exc}") from None
    writable_directory(args.out, "--out")
    records = [
        record
        for model in args.model
        for record in harvest(model, budgets, progress=lambda m: print(m, file=sys.stderr, flush=True))
    ]
    for path in write_harvested(records, args.out):
        print(path)
    print(f"{len(records)} instance(s) from {len(args.model)} model(s)")
    return exit_status.OK
