"""`knapcheck bench`: our solvers against upstream's, side by side, each run in a fresh process."""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path

from ..measure import bench
from . import exit_status
from .durations import SYNTAX, duration
from .output_checks import BENCH_JSON, writable_file, write_output
from .usage import UsageError, positive_int

EXAMPLES = """\
examples:
  knapcheck bench                                   our CPU solvers against both upstream solvers
  knapcheck bench --rows "n=1000 C=1e6" small --repeats 5 --json bench.json
  knapcheck bench --solvers pr/knapsack.py:dp_knapsack --baselines torch:dp_knapsack --time-limit 2m
  knapcheck bench --device cuda                     adds the GPU-only rows and the kernel tables"""


def _wrapped(names: list[str]) -> str:
    """The names, quoted where they hold a space, wrapped between names only."""
    quoted = [f'"{name}"'.replace(" ", "\xa0") if " " in name else name for name in names]
    return textwrap.fill(", ".join(quoted), width=96, initial_indent="    ", subsequent_indent="    ").replace("\xa0", " ")


def _summary(text: str) -> str:
    return textwrap.fill(text, width=96, initial_indent="    ", subsequent_indent="    ")


def row_list() -> str:
    groups = "\n".join(
        f"  {name}:\n"
        + (_summary(bench.GROUP_SUMMARIES[name]) if name in bench.GROUP_SUMMARIES else _wrapped([row.name for row in rows]))
        for name, rows in bench.ROW_GROUPS.items()
    )
    return (
        "rows (--rows NAME ...: rows or groups of rows; default: every row of partitioner, large and real-size):\n"
        f"{groups}\n  with --device cuda also:\n{_wrapped([row.name for row in bench.CUDA_ROWS])}"
    )


DESCRIPTION = textwrap.dedent("""\
    Time and peak memory of solvers over a fixed matrix of instance rows, each measurement
    in its own fresh process, side by side with upstream's solvers in the same run. Prints
    a table with a row per instance row and a column per solver (median time, peak memory),
    then the ratios against the first baseline (its figure / the solver's: above 1 is better).""")


def epilog() -> str:
    return "\n\n".join([EXAMPLES, row_list(), exit_status.help_text(None)])


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"], help="device of our solvers to measure (default: cpu)")
    parser.add_argument(
        "--solvers",
        nargs="+",
        metavar="SPEC",
        help="solvers to measure besides the baselines (default: our solvers on --device, and the"
        " one of them without its bound test, knapcheck.solvers.variants.DP_ONLY)",
    )
    parser.add_argument(
        "--baselines",
        nargs="*",
        metavar="SPEC",
        default=list(bench.BASELINES),
        help="upstream solvers every row is compared with; ratios are against the first"
        f" (default: {' '.join(bench.BASELINES)})",
    )
    parser.add_argument("--rows", nargs="+", metavar="NAME", help="rows or groups of rows to run (listed below)")
    parser.add_argument("--repeats", type=positive_int, default=3, metavar="N",
                        help="fresh processes per solver and row (default: 3)")
    parser.add_argument("--time-limit", type=duration, default=bench.DEFAULT_TIME_LIMIT, metavar="DURATION",
                        help=f"how long one run may take before it counts as a timeout: {SYNTAX}"
                        f" (default: {bench.DEFAULT_TIME_LIMIT:g}s)")
    parser.add_argument("--clock", default="wall", choices=list(bench.CLOCKS),
                        help="what a time is: wall-clock time, or the CPU time of the measuring process, which"
                        " other processes on a busy machine do not inflate (default: wall)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write every measurement and median as JSON")
    parser.set_defaults(run=run)


def chosen_rows(names: list[str] | None, gpu: bool) -> list:
    """The named rows and groups, each row once, in the order named (default: ``ROWS``, and the GPU
    rows on cuda); UsageError naming an unknown one."""
    matrix = [*bench.ROWS, *bench.CUDA_ROWS] if gpu else bench.ROWS
    if not names:
        return matrix
    known = {row.name: [row] for row in matrix + [row for group in bench.ROW_GROUPS.values() for row in group]}
    known.update(bench.ROW_GROUPS)
    unknown = [name for name in names if name not in known]
    if unknown:
        raise UsageError(f"--rows: unknown {', '.join(map(repr, unknown))}; see knapcheck bench --help for the rows and groups")
    chosen = []
    for name in names:
        chosen += [row for row in known[name] if row not in chosen]
    return chosen


def run(args: argparse.Namespace) -> int:
    import json

    from ..reports.bench_table import bench_json, bench_tables, tables_markdown
    from ..reports.environment import environment
    from ..solvers.registry import ours, resolve_one
    from ..solvers.variants import DP_ONLY
    from .targets import entries_for

    gpu = args.device == "cuda"
    rows = chosen_rows(args.rows, gpu)
    if args.json:
        writable_file(args.json, "--json", BENCH_JSON)
    if args.solvers:
        measured = entries_for(args.solvers, "--solvers")
    else:
        measured = [e for e in ours() if e.device == args.device]
        measured += entries_for([DP_ONLY[args.device]], "--device") if args.device in DP_ONLY else []
    baselines = entries_for(args.baselines, "--baselines") if args.baselines else []
    if gpu and not _cuda_available():
        print("knapcheck bench: no CUDA device here, so no GPU rows (the cuda solver's correctness is tested on CPU)")
        return exit_status.OK
    if gpu and (missing := resolve_one("cuda").unavailable()):
        raise UsageError(f"--device cuda: the cuda solver {missing}")
    entries = [e for e in measured if e.name not in {b.name for b in baselines}] + baselines
    if gpu:
        from ..measure import gpu_bench

        bandwidth = gpu_bench.copy_bandwidth()
    result = bench.run_bench(
        entries, rows, args.repeats, time_limit=args.time_limit, clock=args.clock,
        progress=lambda m: print(m, file=sys.stderr, flush=True),
    )
    baseline_names = [b.name for b in baselines]
    print(tables_markdown(bench_tables(result, baseline_names)))
    if gpu:
        print()
        print(gpu_bench.rate_table(result, bandwidth, [e.name for e in measured]))
        print()
        print(gpu_bench.kernel_table())
        print()
        print(gpu_bench.span_table())
        print()
        print(gpu_bench.variant_table([r for r in rows if r.capacity >= 10**7]))
    if args.json:
        document = {**bench_json(result, baseline_names), "environment": environment()}
        write_output(args.json, json.dumps(document, indent=2) + "\n", BENCH_JSON)
    return exit_status.OK


def _cuda_available() -> bool:
    import torch

    return torch.cuda.is_available()
