"""`knapcheck report`: a regression report and gate for a candidate solver against a baseline.

Writes report.md (a pull-request comment), report.json (for machines), report.html (with plots) and
solvers.log (what the solvers printed) to --out. Everything that can be wrong with the command line
(an output directory that cannot be written, a corpus or instance file that cannot be read, a target
that cannot be loaded) is found before the first instance is checked.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import textwrap
from pathlib import Path

from knapcheck import exit_status
from knapcheck.durations import SYNTAX, duration
from knapcheck.inputs import add_instance_arguments, checked_families, family_list, stored_instances
from knapcheck.solver_log import solver_log
from knapcheck.targets import SPEC_FORMS, entries_for, load_targets, promise_help
from knapcheck.output_checks import writable_directory
from knapcheck.usage import UsageError, non_negative_int, positive_int

EXAMPLES = """\
examples:
  knapcheck report --candidate pr/knapsack.py:dp_knapsack --baseline torch:dp_knapsack --out report
  knapcheck report --candidate pr/knapsack.py:dp_knapsack --baseline base/knapsack.py:dp_knapsack \\
      --time 5m --bench-repeats 0 --out report          a quick gate, no benchmark
  knapcheck report --candidate torch --baseline full_table --strict --out report
  knapcheck report --candidate full_table --instances harvested/mlp.json --out report"""

GATE = """\
gate:
  each candidate solver is compared with one baseline: the one of the same function name
  (pr/knapsack.py:dp_knapsack with torch:dp_knapsack), else the only baseline. Both are judged on
  every instance, and a failure is named by (candidate, verdict, the baseline's verdict on that
  instance). By default (the differential rule) the report fails on a regression: a candidate
  failure where the baseline, on the same instance, does not fail the same way; its reproduction
  runs the baseline first when the baseline passed there. Without a baseline every candidate
  failure counts (those a regression-corpus case explains are listed as known). --strict: any
  candidate failure fails the report. The enumerated families (exhaustive_small, large_capacity)
  are always checked. report.md's first lines say which rule applied and its outcome."""


DESCRIPTION = textwrap.dedent("""\
    Check a candidate solver (say, a pull request's knapsack.py) and a baseline on every
    instance family and on the regression corpus packaged with knapcheck, shrink each
    distinct failure, benchmark both, and write report.md (a PR comment), report.json,
    report.html and solvers.log to --out. Every solver runs in its own worker process.""")


def epilog() -> str:
    return "\n\n".join([EXAMPLES, GATE, promise_help(), family_list(), exit_status.help_text(
        "the gate failed: a regression (with --strict, any candidate failure), or an oracle shown wrong"
    )])


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--candidate", nargs="+", required=True, metavar="SPEC", help=f"solvers under review: {SPEC_FORMS}")
    parser.add_argument("--baseline", nargs="+", default=[], metavar="SPEC", help="solvers to compare against")
    parser.add_argument("--strict", action="store_true", help="fail on any candidate failure, not only on regressions")
    parser.add_argument("--time", type=duration, default=600.0, metavar="DURATION",
                        help=f"time budget for checking and shrinking: {SYNTAX} (default: 10m)")
    parser.add_argument("--per-family", type=positive_int, default=40, metavar="N",
                        help="generated instances per sampled family (default: 40)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="seed of the generated instances (default: 0)")
    add_instance_arguments(parser)
    parser.add_argument("--bench-repeats", type=non_negative_int, default=3, metavar="N",
                        help="fresh processes per benchmark cell; 0 skips the benchmark (default: 3)")
    parser.add_argument("--bench-time-limit", type=duration, default=60.0, metavar="DURATION",
                        help=f"time limit of one benchmark run: {SYNTAX} (default: 60s)")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR", help="directory for the reports")
    parser.set_defaults(run=run)


def command_line(args: argparse.Namespace) -> str:
    """The command as a reader would retype it (every option that shapes the report)."""
    words = ["knapcheck", "report", "--candidate", *args.candidate]
    if args.baseline:
        words += ["--baseline", *args.baseline]
    if args.strict:
        words.append("--strict")
    words += ["--time", f"{args.time:g}", "--per-family", str(args.per_family), "--seed", str(args.seed)]
    if args.families:
        words += ["--families", *args.families]
    if args.regressions:
        words += ["--regressions", str(args.regressions)]
    if args.instances:
        words += ["--instances", *map(str, args.instances)]
    words += ["--bench-repeats", str(args.bench_repeats)]
    if args.bench_repeats:
        words += ["--bench-time-limit", f"{args.bench_time_limit:g}"]
    return shlex.join([*words, "--out", str(args.out)])


def run(args: argparse.Namespace) -> int:
    import json

    from knapcheck.fuzz.candidate_run import run_candidate
    from knapcheck.fuzz.families import with_enumerated
    from knapcheck.fuzz.gate import pair
    from knapcheck.measure.bench import run_bench
    from knapcheck.reports.environment import environment
    from knapcheck.reports.regression_report import (
        BENCH_ROWS,
        Performance,
        Report,
        performance_from,
        render_html,
        render_json,
        render_markdown,
    )
    from knapcheck.solvers.registry import with_isolation

    family_names = with_enumerated(checked_families(args.families))
    out = writable_directory(args.out, "--out")
    stored = stored_instances(args.regressions, args.instances)
    candidate = [with_isolation(e) for e in entries_for(args.candidate)]
    baseline = [with_isolation(e) for e in entries_for(args.baseline)] if args.baseline else []
    try:
        pair(candidate, baseline)
    except ValueError as exc:
        raise UsageError(f"--baseline: {exc}") from None
    progress = lambda message: print(message, file=sys.stderr, flush=True)  # noqa: E731
    with solver_log(out / "solvers.log", "report"):
        load_targets(candidate + baseline)
        regression = run_candidate(
            candidate, baseline, family_names, args.per_family, args.seed, args.time, progress, stored.instances,
            stored.cases,
        )
    if args.bench_repeats:
        entries = list({e.name: e for e in candidate + baseline}.values())
        bench = run_bench(entries, BENCH_ROWS, args.bench_repeats, time_limit=args.bench_time_limit, progress=progress)
        performance = performance_from(bench, [e.name for e in baseline])
    else:
        performance = Performance(note="Not measured (--bench-repeats 0).")
    report = Report(command_line(args), regression, environment(), performance, strict=args.strict)
    markdown = render_markdown(report)
    (out / "report.md").write_text(markdown)
    (out / "report.json").write_text(json.dumps(render_json(report), indent=2) + "\n")
    (out / "report.html").write_text(render_html(report))
    print(markdown)
    return exit_status.FAILED if report.gate_failed else exit_status.OK
