"""Where a call of expanding_core spends its time, phase by phase, in thread CPU time.

    python studies/call_phases.py [--repeats 200]

For an uncorrelated Pisinger instance (R = 1000) of 20, 1 000 and 10 000 items, and the harvested
corpus's largest problem, times each phase of the general path (the contract's validate, quantize
and exact_runtimes on Python lists, the lists made int64 arrays, the compiled select, the answer's
arrays made lists, math.fsum of the saved runtimes) and of the one-call path expanding_core takes
for lists of plain floats with integer runtimes (contract.plain_arrays, then expanding_core's
compiled_solve, then the answer's arrays made lists), and the whole call. Each figure is the median
of ``--repeats`` calls; the whole call's is measured on its own.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time

import numpy as np

from knapcheck.fuzz.corpus.harvest_records import load_harvested
from knapcheck.fuzz.instances.pisinger import generate
from knapcheck.solvers.contract import SCALE, Instance, exact_runtimes, plain_arrays, quantize, validate
from knapcheck.solvers.core.search import compiled_select
from knapcheck.solvers.expanding_core import compiled_solve, expanding_core


def median_us(call, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.thread_time_ns()
        call()
        times.append(time.thread_time_ns() - start)
    return statistics.median(times) / 1000


def phases(instance: Instance, repeats: int) -> dict[str, float]:
    memory, runtimes, budget = list(instance.memory), list(instance.runtimes), instance.max_memory
    expanding_core(memory, runtimes, budget)
    checked, floats, limit = validate(memory, runtimes, budget)
    weights, capacity = quantize(checked, limit, SCALE)
    values, _ = exact_runtimes(floats)
    w, v = np.array(weights, dtype=np.int64), np.array(values, dtype=np.int64)
    saved, recomputable = compiled_select(w, v, capacity)
    plain = plain_arrays(memory, runtimes, budget)
    _, saved_plain, recomputable_plain, _ = compiled_solve(*plain, SCALE)  # type: ignore[call-arg]  # numba's Dispatcher.__call__ is typed without arguments
    chosen = saved.tolist()
    return {
        "validate": median_us(lambda: validate(memory, runtimes, budget), repeats),
        "quantize": median_us(lambda: quantize(checked, limit, SCALE), repeats),
        "exact_runtimes": median_us(lambda: exact_runtimes(floats), repeats),
        "lists to int64 arrays": median_us(lambda: (np.array(weights, dtype=np.int64), np.array(values, dtype=np.int64)), repeats),
        "compiled select": median_us(lambda: compiled_select(w, v, capacity), repeats),
        "answer to lists": median_us(lambda: (saved.tolist(), recomputable.tolist()), repeats),
        "fsum of the saved": median_us(lambda: math.fsum([floats[i] for i in chosen]), repeats),
        "plain_arrays": median_us(lambda: plain_arrays(memory, runtimes, budget), repeats),
        "compiled_solve": median_us(lambda: compiled_solve(*plain, SCALE), repeats),  # type: ignore[call-arg]  # numba's Dispatcher.__call__ is typed without arguments
        "its answer to lists": median_us(lambda: (saved_plain.tolist(), recomputable_plain.tolist()), repeats),
        "whole call": median_us(lambda: expanding_core(memory, runtimes, budget), repeats),
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=200)
    args = parser.parse_args(argv)
    instances = {}
    for n in (20, 1000, 10_000):
        weights, profits, capacity = generate("pisinger_uncorrelated", n, 1000, 0, integral=True)
        instances[f"uncorrelated n={n}"] = Instance(tuple(w / SCALE for w in weights), tuple(map(float, profits)), capacity / SCALE)
    largest = max(load_harvested(), key=lambda record: record.instance.n)
    instances[f"harvested {largest.name} (n={largest.instance.n})"] = largest.instance
    measured = {name: phases(instance, args.repeats) for name, instance in instances.items()}
    names = list(next(iter(measured.values())))
    print("| phase (us) | " + " | ".join(measured) + " |")
    print("|---" * (len(measured) + 1) + "|")
    for phase in names:
        print(f"| {phase} | " + " | ".join(f"{figures[phase]:.3g}" for figures in measured.values()) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
