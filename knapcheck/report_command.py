"""`knapcheck report`: a regression report for a candidate solver against a baseline.

Writes report.md (a pull-request comment), report.json (for machines) and report.html (with plots)
to --out. Exit status 1 when the candidate has any failure, 0 when it passed every check.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

from fuzz.candidate_run import run_candidate
from fuzz.regression_corpus import REGRESSION_CORPUS, load_regression_corpus
from fuzz import families
from knapcheck.durations import duration_parser
from knapcheck.targets import entries_for
from reports.environment import environment
from reports.bench import run_bench
from reports.regression_report import (
    BENCH_ROWS,
    Performance,
    Report,
    performance_from,
    render_html,
    render_json,
    render_markdown,
)
duration = duration_parser("--time", bare_seconds=True)


def add_parser(commands) -> None:
    parser = commands.add_parser("report", help="regression report for a candidate solver against a baseline")
    parser.add_argument("--candidate", nargs="+", required=True, metavar="SPEC",
                        help="solvers under review: torch, torch:NAME, FILE.py:NAME, module:NAME or a registered name")
    parser.add_argument("--baseline", nargs="+", default=[], metavar="SPEC", help="solvers to compare against")
    parser.add_argument("--time", type=duration, default=600.0, metavar="BUDGET",
                        help="time budget for checking and shrinking, e.g. 300, 10m (default: 10m)")
    parser.add_argument("--per-family", type=int, default=40, help="generated instances per family (default: 40)")
    parser.add_argument("--families", nargs="+", choices=families.names(), default=families.names(), metavar="FAMILY",
                        help="instance families to sample (default: all of them)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the generated instances (default: 0)")
    parser.add_argument("--regressions", type=Path, default=REGRESSION_CORPUS, metavar="PATH",
                        help=f"regression corpus whose instances are checked too (default: {REGRESSION_CORPUS})")
    parser.add_argument("--bench-repeats", type=int, default=3, metavar="N",
                        help="fresh processes per benchmark cell; 0 skips the benchmark (default: 3)")
    parser.add_argument("--bench-time-limit", type=duration_parser("--bench-time-limit", bare_seconds=True), default=60.0, metavar="SECONDS",
                        help="time limit of one benchmark run (default: 60)")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR", help="directory for the three reports")
    parser.set_defaults(run=run)


def command_line(args: argparse.Namespace) -> str:
    """The command as a reader would retype it (every option that shapes the report)."""
    words = ["knapcheck", "report", "--candidate", *args.candidate]
    if args.baseline:
        words += ["--baseline", *args.baseline]
    words += ["--time", f"{args.time:g}", "--per-family", str(args.per_family), "--seed", str(args.seed)]
    if list(args.families) != families.names():
        words += ["--families", *args.families]
    if args.regressions != REGRESSION_CORPUS:
        words += ["--regressions", str(args.regressions)]
    words += ["--bench-repeats", str(args.bench_repeats)]
    if args.bench_repeats:
        words += ["--bench-time-limit", f"{args.bench_time_limit:g}"]
    return shlex.join([*words, "--out", str(args.out)])


def run(args: argparse.Namespace) -> int:
    if args.per_family < 1:
        raise SystemExit("knapcheck report: --per-family must be at least 1")
    if args.bench_repeats < 0:
        raise SystemExit("knapcheck report: --bench-repeats must be 0 or more")
    candidate, baseline = entries_for(args.candidate), entries_for(args.baseline) if args.baseline else []
    progress = lambda message: print(message, file=sys.stderr, flush=True)  # noqa: E731
    try:
        cases = load_regression_corpus(args.regressions)
        stored = {"regression corpus": [case.instance for case in cases]} if cases else {}
        regression = run_candidate(
            candidate, baseline, args.families, args.per_family, args.seed, args.time, progress, stored
        )
    except ValueError as exc:
        raise SystemExit(f"knapcheck report: {exc}") from None
    if args.bench_repeats:
        entries = list({e.name: e for e in candidate + baseline}.values())
        bench = run_bench(entries, BENCH_ROWS, args.bench_repeats, time_limit=args.bench_time_limit, progress=progress)
        performance = performance_from(bench, [e.name for e in baseline])
    else:
        performance = Performance(note="Not measured (--bench-repeats 0).")
    report = Report(command_line(args), regression, environment(), performance)
    args.out.mkdir(parents=True, exist_ok=True)
    markdown = render_markdown(report)
    (args.out / "report.md").write_text(markdown)
    (args.out / "report.json").write_text(json.dumps(render_json(report), indent=2) + "\n")
    (args.out / "report.html").write_text(render_html(report))
    print(markdown)
    return 1 if regression.findings("candidate") else 0
