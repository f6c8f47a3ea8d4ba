"""`knapcheck solve SPEC FILE`: solvers on the instances of a file, each answer in the same shape, judged."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from . import exit_status
from .output_checks import writable_file
from .solver_log import default_path, solver_log
from .targets import SPEC_FORMS, entries_for, load_targets, promise_help
from .usage import UsageError

EXAMPLES = """\
examples:
  knapcheck solve full_table instance.json
  knapcheck solve torch instance.json                every solver of the installed torch
  knapcheck solve torch:dp_knapsack fuzz/corpus/harvested/mlp.json --json
  knapcheck solve pr/knapsack.py:dp_knapsack instance.json
  knapcheck solve pr/knapsack.py:greedy_knapsack@exact instance.json   judged as exact

An instance file is {"memory": [...], "runtimes": [...], "max_memory": ...}; a file knapcheck
harvest wrote holds several instances, and each is solved."""


DESCRIPTION = (
    "Run the solvers a spec names on every instance of a file; print each answer in the"
    " same shape (value, saved, recomputable, or the error), the proven optimum and the verdict."
)


def epilog() -> str:
    return "\n\n".join([EXAMPLES, promise_help(), exit_status.help_text(
        "a solver's answer failed its promise, or the oracle was shown wrong"
    )])


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("solver", metavar="SPEC", help=f"the solvers: {SPEC_FORMS}")
    parser.add_argument("file", type=Path, metavar="FILE", help="an instance file, or a file knapcheck harvest wrote")
    parser.add_argument("--json", action="store_true", help="print JSON (schema_version 2) instead of text")
    parser.add_argument("--solver-log", type=Path, metavar="PATH",
                        help="where the solvers' own output goes (default: a file in the temporary directory)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..fuzz.corpus.instance_files import read_instances
    from ..fuzz.judging.verdicts.differential import check
    from ..oracles.optimum import optimum
    from ..reports.solve_report import render_json, render_text

    try:
        instances = read_instances(args.file)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    log = writable_file(args.solver_log, "--solver-log", None) if args.solver_log else default_path("solve")
    entries = entries_for([args.solver], "SPEC")
    results = []
    with solver_log(log, "solve"):
        load_targets(entries)
        for found in instances:
            oracle = optimum(found.instance)
            results += [(found.label, check(entry, found.instance, oracle=oracle)) for entry in entries]
    print(json.dumps(render_json(results), indent=2) if args.json else render_text(results))
    failed = any(done.failed or done.oracle_disagreement for _, done in results)
    return exit_status.FAILED if failed else exit_status.OK
