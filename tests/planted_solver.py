"""A subtly wrong solver for the campaign tests: Hirschberg-style divide and conquer over the items
whose budget split is off by one unit, but only in recursion depth 2 and deeper.

At the top two levels it splits the capacity exactly (the best ``c`` for the left half and
``C - c`` for the right), so small instances come out optimal; deeper down the right half gets one
unit more than its share, which overshoots the budget only when that unit buys something.
"""

from __future__ import annotations

import math

from solvers.contract import Solution, exact_runtimes, quantize, validate

DEFECTIVE_FROM_DEPTH = 2


def _profile(items: list[int], weights: list[int], values: list[int], capacity: int) -> list[int]:
    """Best value of a subset of ``items`` within each capacity 0..capacity."""
    best = [0] * (capacity + 1)
    for i in items:
        w, v = weights[i], values[i]
        if v <= 0 or w > capacity:
            continue
        for c in range(capacity, w - 1, -1):
            best[c] = max(best[c], best[c - w] + v)
    return best


def _solve(items: list[int], capacity: int, depth: int, weights: list[int], values: list[int]) -> list[int]:
    if len(items) == 1:
        (i,) = items
        return [i] if values[i] > 0 and weights[i] <= capacity else []
    left, right = items[: len(items) // 2], items[len(items) // 2 :]
    best_left = _profile(left, weights, values, capacity)
    best_right = _profile(right, weights, values, capacity)
    split = max(range(capacity + 1), key=lambda c: best_left[c] + best_right[capacity - c])
    right_budget = capacity - split + (1 if depth + 1 >= DEFECTIVE_FROM_DEPTH else 0)
    return _solve(left, split, depth + 1, weights, values) + _solve(right, right_budget, depth + 1, weights, values)


def off_by_one_hirschberg(memory, runtimes, max_memory) -> Solution:
    memory, runtimes, max_memory = validate(memory, runtimes, max_memory)
    weights, capacity = quantize(memory, max_memory)
    values, _ = exact_runtimes(runtimes)
    saved = sorted(_solve(list(range(len(weights))), capacity, 0, weights, values)) if weights else []
    chosen = set(saved)
    return Solution(math.fsum(runtimes[i] for i in saved), saved, [i for i in range(len(weights)) if i not in chosen])
