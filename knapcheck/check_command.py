"""`knapcheck check`: the differential check over the registry, the families and the regression corpus."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from knapcheck import exit_status
from knapcheck.inputs import add_instance_arguments, checked_families, family_list, stored_instances
from knapcheck.solver_log import default_path, solver_log
from knapcheck.targets import add_targets_argument, entries_for, load_targets
from knapcheck.output_checks import writable_file
from knapcheck.usage import non_negative_int, positive_int

EXAMPLES = """\
examples:
  knapcheck check                                    our solvers and the installed torch's
  knapcheck check --targets torch:dp_knapsack        gate one upstream solver (exit 1 if it fails)
  knapcheck check --targets pr/knapsack.py:dp_knapsack --families tiny flop_scale --per-family 10
  knapcheck check --targets full_table --instances mlp.json --json check.json"""


DESCRIPTION = (
    "Judge every target on each family's fixed, seeded sample and on every instance of"
    " the regression corpus, against exact oracles (CP-SAT, brute force); each distinct failure"
    " (solver, verdict) is shrunk to a minimal reproduction. Solvers' own output goes to a log."
)


def epilog() -> str:
    return "\n\n".join([EXAMPLES, family_list(), exit_status.help_text(
        "a failure of a named exact target (--targets), or, without --targets, of one of our solvers;"
        " or an oracle shown wrong (then no verdict can be trusted)"
    )])


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_targets_argument(parser)
    parser.add_argument("--per-family", type=positive_int, default=40, metavar="N",
                        help="generated instances per family (default: 40)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="seed of the generated instances (default: 0)")
    add_instance_arguments(parser)
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the result as JSON")
    parser.add_argument("--solver-log", type=Path, metavar="PATH",
                        help="where the solvers' own output goes (default: a file in the temporary directory,"
                        " named at the end when anything was written)")
    parser.set_defaults(run=run)


def gated(entries: list, named: bool) -> list[str]:
    """The solvers whose failures fail the check: the named exact targets, or ours when none was named."""
    return [e.name for e in entries if (e.exact if named else e.ours)]


def gate_line(names: list[str], failing: list, named: bool, oracle_findings: int) -> str:
    rule = (
        "a failure of a named exact target fails the check"
        if named
        else "a failure of one of our solvers fails the check (upstream's are shown, not counted: name them"
        " with --targets to count them)"
    )
    problems = [f"{f.solver.name} {f.verdict.value}" for f in failing]
    if oracle_findings:
        problems.append(f"an oracle shown wrong {oracle_findings} times, so no verdict can be trusted")
    if not problems:
        return f"gate: {rule}: passed ({len(names)} gated solvers)"
    return f"gate: {rule}: FAILED ({', '.join(problems)})"


def run(args: argparse.Namespace) -> int:
    import json

    from knapcheck.fuzz.check import run_check
    from knapcheck.reports.check_report import render_json, render_text

    family_names = checked_families(args.families)
    if args.json:
        writable_file(args.json, "--json")
    log = writable_file(args.solver_log, "--solver-log") if args.solver_log else default_path("check")
    stored = stored_instances(args.regressions, args.instances)
    entries = entries_for(args.targets)
    with solver_log(log, "check"):
        load_targets(entries)
        result = run_check(
            entries, family_names, args.per_family, args.seed,
            progress=lambda m: print(m, file=sys.stderr, flush=True), stored=stored.instances,
        )
    named = bool(args.targets)
    names = gated(entries, named)
    failing = [f for f in result.findings if f.solver.name in names]
    gate = gate_line(names, failing, named, len(result.oracle_findings))
    print(render_text(result, stored.description(len(family_names), args.per_family)))
    print()
    print(gate)
    if args.json:
        document = render_json(result)
        document["sources"] = stored.counts
        document["gate"] = {"solvers": names, "failed": [list(f.signature) for f in failing], "summary": gate}
        args.json.write_text(json.dumps(document, indent=2) + "\n")
    return exit_status.FAILED if failing or result.oracle_findings else exit_status.OK
