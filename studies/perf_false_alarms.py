"""How often does the performance gate fail a copy that changes nothing? ``python studies/perf_false_alarms.py [RUNS]``

It copies the installed torch's knapsack.py unchanged into a temporary directory, as a pull request
would, and runs the benchmark of ``knapcheck report`` (``knapcheck.measure.paired.measure_pair`` on
the default rows, judged by ``knapcheck.measure.perf_gate.performance_failures``) on each of torch's
four functions against the installed torch's, in turn, RUNS times in all (default 12: three per
function), with ``--max-slowdown 1.5 --max-memory 2``. Each run prints its verdict, its worst time
and memory intervals, its rounds and the load average, then each row's time ratio and the two
solvers' median times; the end says how many runs failed, with a
95 % Clopper-Pearson interval on the false-alarm rate. (The correctness part of a report is left
out: it decides nothing about performance, and the gate's benchmark is the same call.)
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import torch._functorch._activation_checkpointing.knapsack as upstream
from scipy.stats import binomtest

from knapcheck.measure.paired import measure_pair
from knapcheck.measure.perf_gate import PerformanceLimits, performance_failures, worst
from knapcheck.solvers.registry import resolve

FUNCTIONS = ("greedy_knapsack", "ilp_knapsack", "dp_knapsack", "dp_knapsack_sliding_hirschberg")
LIMITS = PerformanceLimits(max_slowdown=1.5, max_memory=2.0)


def run(copy: Path, function: str) -> tuple[bool, str]:
    """One gate's benchmark of the unchanged copy's ``function``: whether it failed, and its line."""
    (candidate,), (baseline,) = resolve(f"{copy}:{function}"), resolve(f"torch:{function}")
    result = measure_pair(candidate, baseline)
    failures = performance_failures([result], LIMITS)
    worst_time, worst_memory = worst(result, "time"), worst(result, "memory")
    shown = [f"{label} {row.row}: {getattr(row, measure).describe()}" for label, measure, row
             in (("time", "time", worst_time), ("memory", "memory", worst_memory)) if row is not None]
    verdict = "FAILED" if failures else "passed"
    line = (f"{function}: {verdict}; worst {'; '.join(shown)}; {result.rounds} rounds in {result.seconds:.0f} s,"
            f" stopped: {result.stopped}; load {result.load_before:.2f} -> {result.load_after:.2f}")
    if result.failure is not None:
        line += f"; {result.failure.describe()}"
    for row in result.rows:
        if row.time is not None:
            medians = ", ".join(f"{role} {seconds * 1000:.3g} ms" for role, seconds in sorted(row.seconds.items()))
            line += f"\n    {row.row}: time {row.time.describe()}; {medians}"
    return bool(failures), line + "".join(f"\n    FAILED: {failure}" for failure in failures)


def main(runs: int) -> None:
    with tempfile.TemporaryDirectory(prefix="knapcheck-false-alarms-") as name:
        copy = Path(name) / "unchanged.py"
        shutil.copy(upstream.__file__, copy)
        failed = 0
        for index in range(runs):
            alarm, line = run(copy, FUNCTIONS[index % len(FUNCTIONS)])
            failed += alarm
            print(f"run {index + 1}: {line}", flush=True)
    interval = binomtest(failed, runs).proportion_ci(0.95)
    print(f"false alarms: {failed} of {runs} runs ({failed / runs:.0%}); 95 % interval on the rate"
          f" {interval.low:.0%} to {interval.high:.0%}; load average now {os.getloadavg()[0]:.2f}"
          f" on {os.cpu_count()} cores")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 12)
