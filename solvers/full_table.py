"""The full-table reference solver: the textbook DP over all items and all capacities.

It is the reference every other solver is compared with, so it is kept plain: one pass over the
items, a row of best values per capacity, and one byte per (item, capacity) recording whether the
item was taken there, for the backtrack. Values are exact integers (int64 of the runtimes scaled by
their common power of two) on exact instances and float64 otherwise.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from .contract import SCALE, ProblemTooLarge, Solution, exact_units, quantize, validate

DEFAULT_MAX_TABLE_BYTES = 2 * 2**30


def table_bytes(n: int, capacity: int) -> int:
    """Bytes the reference allocates: the decision table plus two rows of values."""
    return n * (capacity + 1) + 2 * 8 * (capacity + 1)


def full_table(
    memory: Sequence[float],
    runtimes: Sequence[float],
    max_memory: float,
    *,
    scale: int = SCALE,
    max_table_bytes: int = DEFAULT_MAX_TABLE_BYTES,
) -> Solution:
    memory, runtimes, max_memory = validate(memory, runtimes, max_memory)
    weights, capacity = quantize(memory, max_memory, scale)
    n = len(weights)
    needed = table_bytes(n, capacity)
    if needed > max_table_bytes:
        raise ProblemTooLarge(
            f"full_table needs {needed} bytes for n={n}, capacity={capacity}, over max_table_bytes="
            f"{max_table_bytes}; raise max_table_bytes or use sliding_hirschberg"
        )
    exact = exact_units(runtimes)
    if exact is not None:
        values = np.array(exact[0], dtype=np.int64)
    else:
        values = np.array(runtimes, dtype=np.float64)

    best = np.zeros(capacity + 1, dtype=values.dtype)
    taken = np.zeros((n, capacity + 1), dtype=np.bool_)
    for i, (w, v) in enumerate(zip(weights, values)):
        if v <= 0 or w > capacity:
            continue
        with_item = best[: capacity + 1 - w] + v
        better = with_item > best[w:]
        taken[i, w:] = better
        best[w:] = np.where(better, with_item, best[w:])

    saved = []
    room = capacity
    for i in range(n - 1, -1, -1):
        if taken[i, room]:
            saved.append(i)
            room -= weights[i]
    saved.reverse()
    chosen = set(saved)
    recomputable = [i for i in range(n) if i not in chosen]
    return Solution(math.fsum(runtimes[i] for i in saved), saved, recomputable)
