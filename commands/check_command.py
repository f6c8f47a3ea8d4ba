"""`knapcheck check`: the differential check over the registry, the families and the known-failure corpus."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from . import exit_status
from .inputs import add_instance_arguments, checked_families, family_list, stored_instances
from .output_checks import CHECK_JSON, writable_file, write_output
from .solver_log import default_path, solver_log
from .stop_signals import stop_requests
from .targets import SPEC_FORMS, add_targets_argument, load_targets, prepare_workers, promise_help, targets_and_baselines
from .usage import non_negative_int, positive_int

EXAMPLES = """\
examples:
  knapcheck check                                    our solvers and the installed torch's
  knapcheck check --targets torch:dp_knapsack        gate one upstream solver (exit 1 if it fails)
  knapcheck check --targets pr/knapsack.py:dp_knapsack --baseline torch:dp_knapsack
                                                     fail only on what torch does not already get wrong
  knapcheck check --targets pr/knapsack.py:greedy_knapsack@exact --families tiny flop_scale --per-family 10
  knapcheck check --targets full_table --instances mlp.json --json check.json"""

GATE = """\
gate:
  the failures of the named targets (without --targets: of our own solvers) fail the check. With
  --baseline, each target is compared with the baseline of the same function name (else the only
  baseline) on every instance, and only its regressions count: failures whose cause is new,
  shown where the baseline does not fail that way, outside the reach of every known defect of
  the baseline (the known-failure corpus names them); a failure such a defect explains is listed
  as a known defect made visible, and the baseline failures a target passes as fixed. The
  known-failure corpus is always checked; without a baseline, failures a corpus case explains are
  listed apart as known."""


DESCRIPTION = (
    "Judge every target on each family's fixed, seeded sample (the same instances in every"
    " process), on every instance of the enumerated families and of the known-failure corpus, against"
    " exact oracles (CP-SAT, brute force); with --baseline, side by side with its baseline on each"
    " instance. Each distinct failure (solver, verdict, baseline verdict) is shrunk to a minimal"
    " reproduction. Solvers' own output goes to a log."
)


def epilog() -> str:
    return "\n\n".join([EXAMPLES, GATE, promise_help(), family_list(), exit_status.help_text(
        "a failure of a named target (--targets), or, without --targets, of one of our solvers; with"
        " --baseline, only a regression counts; or an oracle shown wrong (then no verdict can be trusted)"
    )])


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_targets_argument(parser)
    parser.add_argument("--baseline", nargs="+", default=[], metavar="SPEC",
                        help=f"compare each target with a baseline, instance by instance: {SPEC_FORMS}")
    parser.add_argument("--per-family", type=positive_int, default=40, metavar="N",
                        help="generated instances per sampled family (default: 40)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="seed of the generated instances (default: 0)")
    add_instance_arguments(parser)
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the result as JSON")
    parser.add_argument("--solver-log", type=Path, metavar="PATH",
                        help="where the solvers' own output goes (default: a file in the temporary directory,"
                        " named at the end when anything was written)")
    parser.set_defaults(run=run)


def gated(entries: list, named: bool) -> list[str]:
    """The solvers whose failures fail the check: the named targets, or ours when none was named."""
    return [e.name for e in entries if named or e.ours]


def gate_line(names: list[str], decision, named: bool, result=None) -> str:
    """The gate's outcome, and what each target fixes of its baseline's failures."""
    from ..reports.check_report import fixed_parts, fixes, still_there
    from ..solvers.specs import shown

    who = "the named targets" if named else "our solvers (upstream's are shown, not counted: name them with --targets)"
    problems = [" ".join([shown(f.solver.name), *f.differential_signature.parts()[1:]]) for f in decision.failing]
    if decision.oracle_findings:
        problems.append(f"an oracle shown wrong {decision.oracle_findings} times, so no verdict can be trusted")
    head = f"gate on {who}, under {decision.rule}"
    comparisons = {} if result is None else result.comparisons
    fixed = "".join(
        f"; {shown(t)} fixes {fixes(c, still_there(result, t))} of the baseline's failures:"
        f" {'; '.join(fixed_parts(c, still_there(result, t)))}" for t, c in comparisons.items() if c.fixed and t in names)
    if not problems:
        return f"{head}: passed ({len(names)} gated solvers){fixed}"
    return f"{head}: FAILED ({', '.join(problems)}){fixed}"


PLAIN_PROGRESS_SECONDS = 10.0
"""How often the progress is a line of its own when stderr is not a terminal."""


def _shown_every(display, seconds: float):
    """What ``run_check`` calls after each chunk: the live view on a terminal (redrawn at most ten
    times a second), else a plain line every ``seconds``."""
    from ..reports.check_progress import progress_line, progress_view

    every = 0.1 if display.live else seconds
    shown = [time.monotonic()]

    def advanced(result, total: int) -> None:
        now = time.monotonic()
        if now - shown[0] >= every:
            shown[0] = now
            display.update(progress_view(result, total), progress_line(result, total))

    return advanced


def run(args: argparse.Namespace) -> int:
    family_names = checked_families(args.families)
    if args.json:
        writable_file(args.json, "--json", CHECK_JSON)
    log = writable_file(args.solver_log, "--solver-log", None) if args.solver_log else default_path("check")
    stored = stored_instances(args.corpus, args.instances)
    entries, baselines = targets_and_baselines(args.targets, args.baseline, "--targets")
    prepare_workers(args.targets, args.baseline)
    import json

    from ..fuzz.judging.verdicts.gate import decide
    from ..fuzz.runs.check import run_check
    from ..reports.check_report import fixes_json, render_json, render_text
    from ..reports.progress_display import ProgressDisplay

    with stop_requests() as stop, solver_log(log, "check"), ProgressDisplay(sys.stderr) as display:
        load_targets(entries + baselines, determinism=True)
        result = run_check(
            entries, family_names, args.per_family, args.seed,
            progress=display.message, stored=stored.instances,
            baselines=baselines, known_cases=stored.cases, stop_requested=stop.requested,
            advanced=_shown_every(display, PLAIN_PROGRESS_SECONDS),
        )
    named = bool(args.targets)
    names = gated(entries, named)
    decision = decide(result.findings, names, len(result.oracle_findings), baseline=bool(baselines))
    gate = gate_line(names, decision, named, result)
    if result.stopped_by:
        print(f"PARTIAL ({result.stopped_by}): the run stopped after {result.instances} instances,"
              f" {result.skipped} not checked; what ran is below")
    print(render_text(result, stored.description(family_names, args.per_family), gate))
    if args.json:
        document = render_json(result)
        document["partial"] = bool(result.stopped_by or result.sources_changed)
        document["sources_changed"] = result.sources_changed
        document["stopped_by"] = result.stopped_by or None
        document["skipped"] = result.skipped
        document["gate"] = {
            "solvers": names,
            "rule": "differential" if baselines else "no baseline",
            "passed": decision.passed,
            "failing": [f.differential_signature.as_json() for f in decision.failing],
            "fixes": fixes_json(result),
            "summary": gate,
        }
        write_output(args.json, json.dumps(document, indent=2) + "\n", CHECK_JSON)
    if stop.reason:
        return stop.exit_status
    if result.sources_changed:
        for name, why in result.sources_changed.items():
            print(f"knapcheck check: {name}: {why}: what ran judged more than one version and is partial", file=sys.stderr)
        return exit_status.INCOMPLETE
    return exit_status.OK if decision.passed else exit_status.FAILED
