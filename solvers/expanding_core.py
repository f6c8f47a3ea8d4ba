"""expanding_core: an exact solver that grows a core of items around the LP solution's break item.

The contract's validation and quantization first (for lists of plain floats with integer runtimes,
the usual case, checked and quantized inside the one compiled call, ``core.search.compiled_solve``:
item-by-item Python work and the call's fixed cost are most of a small problem's time); then
runtimes <= 0 are never taken, zero-weight
items with a positive runtime always are, items heavier than the budget never are, and when the
rest fit together they are all taken (``core.search.select``). What is left goes to the search of
``knapcheck.solvers.core.search`` (the algorithm and why it is exact are described there) with the
runtimes as exact integers in their common unit: compiled by numba when every weight and runtime
sum fits an int64, in plain Python on Python integers otherwise. The answer is deterministic: no
threads and no randomness (among equal optima, the one the search meets first).

Memory: the search's states and its checkpoints, O(n) besides; nothing grows with the budget.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from knapcheck.solvers.contract import SCALE, Solution, exact_runtimes, plain_arrays, quantize, validate
from knapcheck.solvers.core.search import compiled_select, compiled_solve, select

COMPILED_LIMIT = 2**59
"""The compiled search runs when n times the capacity and n times the largest runtime (in its
common unit) are below this, and every weight and runtime fits too: its sums then stay below
2**60, int64 with room for the surrogate problems' capacities and the merge's sentinel."""


def expanding_core(
    memory: Sequence[float], runtimes: Sequence[float], max_memory: float, *, scale: int = SCALE
) -> Solution:
    plain = plain_arrays(memory, runtimes, max_memory)
    if plain is not None:
        solved, saved, recomputable, total = compiled_solve(*plain, scale)
        if solved:
            return Solution(float(total), saved.tolist(), recomputable.tolist())
    memory, runtimes, max_memory = validate(memory, runtimes, max_memory)
    weights, capacity = quantize(memory, max_memory, scale)
    values, _ = exact_runtimes(runtimes)
    if _fits_int64(weights, values, capacity):
        saved, recomputable = compiled_select(np.array(weights, dtype=np.int64), np.array(values, dtype=np.int64), capacity)
        saved, recomputable = saved.tolist(), recomputable.tolist()
    else:
        saved, recomputable = select(weights, values, capacity)
    return Solution(math.fsum([runtimes[i] for i in saved]), saved, recomputable)


def _fits_int64(weights: list[int], values: list[int], capacity: int) -> bool:
    """Whether the compiled search can hold every sum it forms (see ``COMPILED_LIMIT``)."""
    n = len(values)
    return (
        n > 0
        and n * capacity < COMPILED_LIMIT
        and n * max(values) < COMPILED_LIMIT
        and min(values) > -COMPILED_LIMIT
        and max(weights) < COMPILED_LIMIT
    )
