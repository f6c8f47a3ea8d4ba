"""`knapcheck report`: a regression report and gate for a candidate solver against a baseline.

Writes report.md (a pull-request comment), report.json (for machines), report.html (with plots) and
solvers.log (what the solvers printed) to --out, and appends the report's first screen to the
GitHub Actions job summary where GITHUB_STEP_SUMMARY names one. Everything that can be wrong with the command line
(an output directory that cannot be written, a corpus or instance file that cannot be read, a target
that cannot be loaded) is found before the first instance is checked.
"""

from __future__ import annotations

import argparse
import math
import shlex
import sys
import textwrap
from pathlib import Path

from ..measure.paired import DEFAULT_MAX_ROUNDS, DEFAULT_TIME_LIMIT
from . import exit_status
from .durations import SYNTAX, duration
from .inputs import add_instance_arguments, checked_families, family_list, stored_instances
from .output_checks import REPORT_HTML, REPORT_JSON, REPORT_MARKDOWN, writable_directory, write_output
from .solver_log import solver_log
from .step_summary import append_summary
from .stop_signals import stop_requests
from .targets import SPEC_FORMS, load_targets, prepare_workers, promise_help, targets_and_baselines
from .usage import UsageError, non_negative_int, positive_int

EXAMPLES = """\
examples:
  knapcheck report --candidate pr/knapsack.py:dp_knapsack --baseline torch:dp_knapsack --out report
  knapcheck report --candidate pr/knapsack.py:dp_knapsack --baseline base/knapsack.py:dp_knapsack \\
      --time 5m --bench-repeats 0 --out report          a quick gate, no benchmark
  knapcheck report --candidate torch --baseline full_table --strict --out report
  knapcheck report --candidate full_table --instances harvested/mlp.json --out report
  knapcheck report --candidate pr/knapsack.py:dp_knapsack --baseline torch:dp_knapsack \\
      --max-slowdown 2 --max-memory 2 --out report    also fail on performance
  knapcheck report --candidate pr/knapsack.py:greedy_knapsack --baseline torch:greedy_knapsack \\
      --max-quality-loss 0.01 --out report             also fail where greedy saves 1 % less"""

GATE = """\
gate:
  each candidate solver is compared with one baseline: the one of the same function name
  (pr/knapsack.py:dp_knapsack with torch:dp_knapsack), else the only baseline. Both are judged on
  every instance, and a failure is named by (candidate, verdict, the baseline's verdict on that
  instance). By default (the differential rule) the report fails on a regression: a candidate
  failure whose cause is new, shown where the baseline does not fail that way, outside the reach
  of every known defect of the baseline (the known-failure corpus names them: float32 arithmetic,
  unquantized memory, HiGHS' MIP gap, ...); its reproduction is such an instance and runs the
  baseline first when the baseline passed there. A failure a known defect of the baseline
  explains is listed as a known defect made visible (information); what the candidate fixes is
  an outcome of its own. Without a baseline every candidate failure counts (those a
  known-failure case explains are listed as known). --strict: any candidate failure fails
  the report. A heuristic candidate that saves less runtime than its baseline is information,
  a failure past --max-quality-loss. The known-failure corpus is always checked; --families
  narrows the rest (by default every family, the fixed lists included). report.md's first lines say which rule applied, its outcome and what the
  candidate fixes.

performance:
  each candidate solver is timed against the baseline solver it is compared with, the two called
  in turn in one process on the same instances (n = 200, C = 1e3, 1e4, 1e5), round after round
  until every time ratio's 99% interval spans at most 10%, --bench-repeats rounds have run, or
  --bench-time-limit runs out. report.md shows each ratio (candidate / baseline) with its interval
  and the load average. Without --max-slowdown/--max-memory performance is information; with them
  the report fails where a ratio's whole interval is past the limit, or where the candidate could
  not be benchmarked."""


DESCRIPTION = textwrap.dedent("""\
    Check a candidate solver (say, a pull request's knapsack.py) and a baseline on every
    instance family and on the known-failure corpus packaged with knapcheck, shrink each
    distinct failure, benchmark both, and write report.md (a PR comment), report.json,
    report.html and solvers.log to --out. Every solver runs in its own worker process.""")


def epilog() -> str:
    return "\n\n".join([EXAMPLES, GATE, promise_help(), family_list(), exit_status.help_text(
        "the gate failed: a regression (with --strict, any candidate failure), an oracle shown wrong,\n"
        "       performance past --max-slowdown/--max-memory, or quality past --max-quality-loss"
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
    parser.add_argument("--bench-repeats", type=non_negative_int, default=DEFAULT_MAX_ROUNDS, metavar="N",
                        help="most benchmark rounds per candidate-baseline pair (each times both solvers twice"
                             f" on every row); 0 skips the benchmark (default: {DEFAULT_MAX_ROUNDS})")
    parser.add_argument("--bench-time-limit", type=duration, default=DEFAULT_TIME_LIMIT, metavar="DURATION",
                        help="time limit of the benchmark of one candidate-baseline pair once both are loaded,"
                             f" warm-up included: {SYNTAX} (default: {DEFAULT_TIME_LIMIT:g}s)")
    parser.add_argument("--max-slowdown", type=positive_ratio, metavar="X",
                        help="fail where the candidate is more than X times slower than its baseline, the whole"
                             " interval past X (default: performance is information)")
    parser.add_argument("--max-memory", type=positive_ratio, metavar="X",
                        help="fail where the candidate needs more than X times its baseline's peak memory, the"
                             " whole interval past X (default: performance is information)")
    parser.add_argument("--max-quality-loss", type=loss_fraction, metavar="X",
                        help="fail where a candidate saves less runtime than its baseline, on an instance where both"
                             " answers are valid, by more than X of the baseline's (a fraction: 0.01 is 1 %%;"
                             " default: quality is information)")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR", help="directory for the reports")
    parser.set_defaults(run=run)


def positive_ratio(text: str) -> float:
    """An argparse type: a finite number above 0 (a ratio such as 2 or 1.5)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number such as 2 or 1.5, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a number above 0, got {text!r}")
    return value


def loss_fraction(text: str) -> float:
    """An argparse type: a share of the baseline's saved runtime, a number from 0 up to (not including) 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a fraction such as 0.01 (1 %), got {text!r}") from None
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"must be a fraction of at least 0 and below 1 (0.01 is 1 %), got {text!r}")
    return value


def checked_limits(args: argparse.Namespace) -> None:
    """A performance limit needs the benchmark and a baseline to measure against, a quality limit a
    baseline (UsageError otherwise)."""
    given = [option for option, value in (("--max-slowdown", args.max_slowdown), ("--max-memory", args.max_memory))
             if value is not None]
    if given and not args.bench_repeats:
        raise UsageError(f"{given[0]} needs the benchmark, which --bench-repeats 0 skips")
    if args.max_quality_loss is not None:
        given.append("--max-quality-loss")
    if given and not args.baseline:
        raise UsageError(f"{given[0]} compares the candidate with a baseline: give --baseline")


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
    if args.corpus:
        words += ["--corpus", str(args.corpus)]
    if args.instances:
        words += ["--instances", *map(str, args.instances)]
    words += ["--bench-repeats", str(args.bench_repeats)]
    if args.bench_repeats:
        words += ["--bench-time-limit", f"{args.bench_time_limit:g}"]
    for option, value in (("--max-slowdown", args.max_slowdown), ("--max-memory", args.max_memory),
                          ("--max-quality-loss", args.max_quality_loss)):
        if value is not None:
            words += [option, f"{value:g}"]
    return shlex.join([*words, "--out", str(args.out)])


def benchmark(args: argparse.Namespace, regression, log: Path, progress, stop_requested=lambda: ""):
    """Each candidate solver against the baseline solver it is compared with, and the performance rule."""
    from ..fuzz.runs.candidate_run import CANDIDATE
    from ..measure.paired import measure_pair
    from ..measure.perf_gate import PerformanceLimits, performance_failures
    from ..reports.performance_report import Performance

    limits = PerformanceLimits(args.max_slowdown, args.max_memory)
    if not args.bench_repeats:
        return Performance(limits=limits, note="Not measured (--bench-repeats 0).")
    if stop_requested():
        return Performance(limits=limits, note=f"Not measured: the run was {stop_requested()} first.")
    entries = {e.name: e for e in regression.result.solvers}
    counterparts = regression.result.counterparts
    pairs = [(entries[c.name], entries[counterparts[c.name]]) for c in regression.entries(CANDIDATE)
             if c.name in counterparts]
    if not pairs:
        return Performance(limits=limits, note="Not measured: performance is measured against a baseline (--baseline).")
    results = []
    for candidate, baseline in pairs:
        progress(f"benchmark: {candidate.name} against {baseline.name}")
        result = measure_pair(candidate, baseline, time_limit=args.bench_time_limit, max_rounds=args.bench_repeats,
                              output=log, stop_requested=stop_requested)
        ended = result.failure.describe() if result.failure else f"stopped: {result.stopped}"
        progress(f"benchmark: {result.rounds} rounds in {result.seconds:.0f} s, {ended}")
        results.append(result)
    return Performance(results, limits, performance_failures(results, limits))


def run(args: argparse.Namespace) -> int:
    from ..solvers.registry import with_isolation

    checked_limits(args)
    family_names = checked_families(args.families)
    out = writable_directory(args.out, "--out", {"report.md": REPORT_MARKDOWN, "report.json": REPORT_JSON,
                                                  "report.html": REPORT_HTML, "solvers.log": None})
    stored = stored_instances(args.corpus, args.instances)
    candidate, baseline = targets_and_baselines(args.candidate, args.baseline, "--candidate")
    candidate, baseline = [with_isolation(e) for e in candidate], [with_isolation(e) for e in baseline]
    prepare_workers(args.candidate, args.baseline, all_isolated=True)
    import json

    from ..fuzz.runs.candidate_run import run_candidate
    from ..reports.environment import environment
    from ..reports.regression_report import Report, render_html, render_json, render_markdown, render_summary

    progress = lambda message: print(message, file=sys.stderr, flush=True)  # noqa: E731
    with stop_requests() as stop, solver_log(out / "solvers.log", "report") as log:
        load_targets(candidate + baseline, determinism=True)
        regression = run_candidate(
            candidate, baseline, family_names, args.per_family, args.seed, args.time, progress, stored.instances,
            stored.cases, stop.requested,
        )
        performance = benchmark(args, regression, log, progress, stop.requested)
    changed = "; ".join(f"{name}: {why}" for name, why in regression.result.sources_changed.items())
    report = Report(command_line(args), regression, environment(), performance, strict=args.strict,
                    max_quality_loss=args.max_quality_loss,
                    stopped_by=stop.reason or (changed and "left incomplete (a candidate's file changed during the run)"))
    markdown = render_markdown(report)
    print(markdown)
    write_output(out / "report.md", markdown, REPORT_MARKDOWN)
    write_output(out / "report.json", json.dumps(render_json(report), indent=2) + "\n", REPORT_JSON)
    write_output(out / "report.html", render_html(report), REPORT_HTML)
    append_summary(render_summary(report))
    if stop.reason:
        print(f"knapcheck report: {stop.reason}: the report in {out} is partial", file=sys.stderr)
        return stop.exit_status
    if changed:
        print(f"knapcheck report: {changed}: the report in {out} judged more than one version and is partial", file=sys.stderr)
        return exit_status.INCOMPLETE
    return exit_status.FAILED if report.gate_failed else exit_status.OK
