"""expanding_core: an exact solver that grows a core of items around the LP solution's break item.

The contract's validation and quantization first; then runtimes <= 0 are never taken, zero-weight
items with a positive runtime always are, items heavier than the budget never are, and when the
rest fit together they are all taken. What is left goes to ``knapcheck.solvers.core_search`` (the algorithm
and why it is exact are described there) with the runtimes as exact integers in their common unit:
compiled by numba when every weight and runtime sum fits an int64, in plain Python on Python
integers otherwise. The answer is deterministic: no threads, and ties are broken by item order.

Memory: the search's states and its checkpoints, O(n) besides; nothing grows with the budget.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from knapcheck.solvers.contract import SCALE, Solution, exact_runtimes, quantize, validate
from knapcheck.solvers.core_search import compiled_search, search

COMPILED_LIMIT = 2**60
"""The compiled search needs the weight sum plus n times the largest weight, and the profit sum,
below this: int64 with room for the surrogate problems' capacities and the merge's sentinel."""


def expanding_core(
    memory: Sequence[float], runtimes: Sequence[float], max_memory: float, *, scale: int = SCALE
) -> Solution:
    memory, runtimes, max_memory = validate(memory, runtimes, max_memory)
    weights, capacity = quantize(memory, max_memory, scale)
    values, _ = exact_runtimes(runtimes)
    saved = []
    candidates = []
    for i, value in enumerate(values):
        if value > 0:
            if weights[i] == 0:
                saved.append(i)
            elif weights[i] <= capacity:
                candidates.append(i)
    candidate_weights = [weights[i] for i in candidates]
    if sum(candidate_weights) <= capacity:
        saved += candidates
    else:
        saved += [i for i, take in zip(candidates, _search(candidate_weights, [values[i] for i in candidates], capacity)) if take]
        saved.sort()
    chosen = bytearray(len(values))
    for i in saved:
        chosen[i] = 1
    recomputable = [i for i, taken in enumerate(chosen) if not taken]
    return Solution(math.fsum([runtimes[i] for i in saved]), saved, recomputable)


def _search(weights: list[int], profits: list[int], capacity: int) -> list[int]:
    if sum(weights) + len(weights) * max(weights) < COMPILED_LIMIT and sum(profits) < COMPILED_LIMIT:
        return compiled_search(np.array(weights, dtype=np.int64), np.array(profits, dtype=np.int64), capacity).tolist()
    return search(weights, profits, capacity)
