"""`knapcheck bench`: our solvers against upstream's, side by side, each run in a fresh process."""

from __future__ import annotations

import argparse
import sys

from knapcheck.targets import entries_for
from reports.bench import BASELINES, DEFAULT_TIME_LIMIT, ROWS, render_table, run_bench
from solvers.registry import ours


def add_parser(commands) -> None:
    parser = commands.add_parser(
        "bench",
        help="time and peak memory of solvers over a fixed matrix of instances, with ratios against upstream",
    )
    parser.add_argument("--device", default="cpu", help="device of our solvers to measure (default: cpu)")
    parser.add_argument(
        "--solvers",
        nargs="+",
        metavar="SPEC",
        help="solvers to measure besides the baselines (default: our solvers on --device)",
    )
    parser.add_argument(
        "--baselines",
        nargs="*",
        metavar="SPEC",
        default=list(BASELINES),
        help=f"upstream solvers every row is compared with (default: {' '.join(BASELINES)})",
    )
    parser.add_argument(
        "--rows", nargs="+", metavar="NAME", choices=[r.name for r in ROWS], help="rows to run (default: all)"
    )
    parser.add_argument("--repeats", type=int, default=3, help="fresh processes per solver and row (default: 3)")
    parser.add_argument(
        "--time-limit",
        type=float,
        default=DEFAULT_TIME_LIMIT,
        help=f"seconds one run may take before it counts as a timeout (default: {DEFAULT_TIME_LIMIT:g})",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.repeats < 1:
        raise SystemExit("knapcheck bench: --repeats must be at least 1")
    if args.time_limit <= 0:
        raise SystemExit("knapcheck bench: --time-limit must be positive")
    if args.solvers:
        measured = entries_for(args.solvers)
    else:
        measured = [e for e in ours() if e.device == args.device]
        if not measured:
            raise SystemExit(f"knapcheck bench: no registered solver of ours runs on device {args.device!r}")
    baselines = entries_for(args.baselines) if args.baselines else []
    entries = [e for e in measured if e.name not in {b.name for b in baselines}] + baselines
    rows = [r for r in ROWS if r.name in args.rows] if args.rows else ROWS
    result = run_bench(
        entries, rows, args.repeats, time_limit=args.time_limit, progress=lambda m: print(m, file=sys.stderr, flush=True)
    )
    print(render_table(result, [b.name for b in baselines]))
    return 0
