"""`knapcheck harvest`: record the knapsack instances torch.compile solves for built-in models, or read
them from the TORCH_TRACE logs of a training run and judge the answers torch logged."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import exit_status
from .output_checks import HARVESTED, writable_directory, write_output
from .usage import UsageError

DEFAULT_BUDGETS = "0.02,0.05,0.1,0.2,0.3,0.4,0.5,0.6"

EXAMPLES = """\
examples:
  knapcheck harvest --model mlp --budgets 0.1,0.3 --out harvested
  knapcheck harvest --model mlp transformer conv --out fuzz/corpus/harvested
  knapcheck solve full_table harvested/mlp.json      solve what was harvested
  knapcheck check --instances harvested/mlp.json     check it with every solver

  AOT_PARTITIONER_DEBUG=1 TORCH_TRACE=/tmp/trace python train.py
  knapcheck harvest --trace /tmp/trace --out knapsacks
                                                     judge torch's answers for your own model"""


DESCRIPTION = (
    "Compile built-in models (knapcheck.fuzz.harvest.models.MODELS) afresh under each activation"
    " memory budget and record every knapsack torch's partitioner solves, with its provenance, in"
    " DIR/MODEL.json (schema_version 1), a file solve, check --instances and report --instances read."
    " With --trace, read the knapsacks from the structured trace logs of a run made with"
    " TORCH_TRACE=DIR and AOT_PARTITIONER_DEBUG=1 instead (files, directories of them, gzip-compressed"
    " logs), write them to DIR/LOG.json, judge the answer torch logged for each against the exact"
    " optimum and print, per log, a summary beside expanding_core's and budget_safe's answers."
)


def epilog() -> str:
    return "\n\n".join([EXAMPLES, exit_status.help_text(
        "with --trace: torch's logged answer fails on some knapsack (not OPTIMAL, nor UNVERIFIED)"
    )])


def add_arguments(parser: argparse.ArgumentParser) -> None:
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--model", nargs="+", metavar="NAME",
                        help="built-in models to compile (an unknown name is answered with the list)")
    source.add_argument("--trace", nargs="+", type=Path, metavar="PATH",
                        help="TORCH_TRACE logs (.log or .log.gz) or directories of them, written with"
                        " AOT_PARTITIONER_DEBUG=1 set")
    parser.add_argument(
        "--budgets",
        help=f"with --model: comma-separated activation memory budgets in [0, 1] (default: {DEFAULT_BUDGETS})",
    )
    parser.add_argument("--out", type=Path, required=True, metavar="DIR",
                        help="directory to write MODEL.json (or, with --trace, one LOG.json per log) into")
    parser.set_defaults(run=run)


def parse_budgets(text: str) -> list[float]:
    budgets = []
    for i, part in enumerate(text.split(",")):
        try:
            budgets.append(float(part))
        except ValueError:
            raise ValueError(f"item {i} ({part!r}) is not a number") from None
    return budgets


def write_files(files: dict[str, str], out: Path) -> None:
    """Write each harvested file into ``out``, checked first (``knapcheck.commands.output_checks``): knapcheck
    replaces its own files, never anyone else's, and writes through no link."""
    writable_directory(out, "--out", dict.fromkeys(files, HARVESTED))
    for name, text in files.items():
        write_output(out / name, text, HARVESTED)
        print(out / name)


def run(args: argparse.Namespace) -> int:
    if args.trace is not None:
        return run_trace(args)
    from ..fuzz.corpus.harvest_records import file_name, harvested_files
    from ..fuzz.harvest.compile_runs import check_budgets, harvest
    from ..fuzz.harvest.models import MODELS

    unknown = [name for name in args.model if name not in MODELS]
    if unknown:
        raise UsageError(f"--model: unknown {', '.join(map(repr, unknown))}; built-in models: {', '.join(MODELS)}")
    try:
        budgets = check_budgets(parse_budgets(args.budgets or DEFAULT_BUDGETS))
    except ValueError as exc:
        raise UsageError(f"--budgets: {exc}") from None
    writable_directory(args.out, "--out", {file_name(model): HARVESTED for model in args.model})
    records = [
        record
        for model in args.model
        for record in harvest(model, budgets, progress=lambda m: print(m, file=sys.stderr, flush=True))
    ]
    write_files(harvested_files(records), args.out)
    print(f"{len(records)} instance(s) from {len(args.model)} model(s)")
    return exit_status.OK


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run_trace(args: argparse.Namespace) -> int:
    """Read every log first: any bad one, or a file of the outputs that may not be replaced, is a line
    on stderr and exit 2, before anything is written."""
    from ..fuzz.corpus.harvest_records import harvested_files
    from ..fuzz.harvest.log_records import TraceError, trace_files
    from ..fuzz.harvest.logged_answers import judge_trace
    from ..fuzz.harvest.logged_knapsacks import harvest_trace, unique_models
    from ..reports.trace_summary import render_text

    if args.budgets is not None:
        raise UsageError("--budgets: only with --model (a trace's budgets are those its run used)")
    writable_directory(args.out, "--out")
    harvests, problems = [], []
    for given in args.trace:
        try:
            files = trace_files(given)
        except TraceError as exc:
            problems.append(str(exc))
            continue
        for path in files:
            try:
                harvests.append(harvest_trace(path))
            except TraceError as exc:
                problems.append(str(exc))
    if problems:
        for problem in problems:
            print("knapcheck harvest: --trace " + " ".join(problem.split()), file=sys.stderr)
        return exit_status.USAGE
    harvests = unique_models(harvests)
    try:
        harvested = harvested_files([record for harvest in harvests for record in harvest.records])
    except ValueError as exc:
        raise UsageError(f"--trace: {exc}") from None
    write_files(harvested, args.out)
    failed = False
    for harvest in harvests:
        _progress(f"judging the {len(harvest.records)} knapsack(s) of {harvest.path}")
        verdicts = judge_trace(harvest)
        print(render_text(verdicts))
        failed = failed or bool(verdicts.failed)
    return exit_status.FAILED if failed else exit_status.OK
