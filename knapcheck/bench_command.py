"""`knapcheck bench`: our solvers against upstream's, side by side, each run in a fresh process."""

from __future__ import annotations

import argparse
import sys

from knapcheck.targets import entries_for
from reports.bench import BASELINES, CUDA_ROWS, DEFAULT_TIME_LIMIT, ROW_GROUPS, ROWS, render_table, run_bench
from solvers.registry import ours
from solvers.variants import DP_ONLY


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
        help="solvers to measure besides the baselines (default: our solvers on --device, and the"
        " one of them without its bound test, solvers.variants.DP_ONLY)",
    )
    parser.add_argument(
        "--baselines",
        nargs="*",
        metavar="SPEC",
        default=list(BASELINES),
        help=f"upstream solvers every row is compared with (default: {' '.join(BASELINES)})",
    )
    parser.add_argument(
        "--rows",
        nargs="+",
        metavar="NAME",
        choices=[*ROW_GROUPS, *(r.name for r in ROWS + CUDA_ROWS + _extra_rows())],
        help=f"rows or groups of rows to run ({', '.join(ROW_GROUPS)}; default: partitioner, large and real-size;"
        " --device cuda adds the GPU-only rows)",
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
        measured += entries_for([DP_ONLY[args.device]]) if args.device in DP_ONLY else []
    gpu = args.device == "cuda"
    if gpu and not _cuda_available():
        print("knapcheck bench: no CUDA device here, so no GPU rows (the cuda solver's correctness is tested on CPU)")
        return 0
    baselines = entries_for(args.baselines) if args.baselines else []
    entries = [e for e in measured if e.name not in {b.name for b in baselines}] + baselines
    matrix = ROWS + CUDA_ROWS if gpu else ROWS
    rows = _chosen_rows(args.rows, matrix) if args.rows else matrix
    if gpu:
        from reports import gpu_bench

        bandwidth = gpu_bench.copy_bandwidth()
    result = run_bench(
        entries, rows, args.repeats, time_limit=args.time_limit, progress=lambda m: print(m, file=sys.stderr, flush=True)
    )
    print(render_table(result, [b.name for b in baselines]))
    if gpu:
        print()
        print(gpu_bench.rate_table(result, bandwidth, [e.name for e in measured]))
        print()
        print(gpu_bench.kernel_table())
        print()
        print(gpu_bench.span_table())
        print()
        print(gpu_bench.variant_table([r for r in rows if r.capacity >= 10**7]))
    return 0


def _extra_rows() -> list:
    return [row for group in ROW_GROUPS.values() for row in group if row not in ROWS]


def _chosen_rows(names: list[str], matrix: list) -> list:
    """The named rows and groups, each row once, in the order named."""
    chosen = []
    for name in names:
        for row in ROW_GROUPS.get(name) or [r for r in matrix + _extra_rows() if r.name == name]:
            if row not in chosen:
                chosen.append(row)
    return chosen


def _cuda_available() -> bool:
    import torch

    return torch.cuda.is_available()
