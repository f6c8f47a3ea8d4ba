"""Planted broken targets: a divide-and-conquer (Hirschberg) knapsack whose budget split hands the
right half one unit too many. It is a file as a pull request would bring it: it imports nothing of
knapcheck.

- ``solve`` has the bug at every split.
- ``off_by_one_hirschberg`` splits exactly at the top two levels and has the bug only from
  recursion depth 2 on, so small instances come out optimal and only deeper ones overshoot (when
  the extra unit buys something): the subtle defect a campaign must find.
"""

import math

SCALE = 10_000


def _profile(items, weights, runtimes, capacity):
    """Best value of a subset of ``items`` within each capacity 0..capacity."""
    best = [0.0] * (capacity + 1)
    for i in items:
        w, r = weights[i], runtimes[i]
        if r <= 0 or w > capacity:
            continue
        for c in range(capacity, w - 1, -1):
            best[c] = max(best[c], best[c - w] + r)
    return best


def _hirschberg(memory, runtimes, max_memory, defective_from_depth):
    weights = [round(m * SCALE) for m in memory]
    capacity = round(max_memory * SCALE)
    saved = []

    def split(items, budget, depth):
        if not items:
            return
        if len(items) == 1:
            (i,) = items
            if weights[i] <= budget and runtimes[i] > 0:
                saved.append(i)
            return
        left, right = items[: len(items) // 2], items[len(items) // 2 :]
        left_best = _profile(left, weights, runtimes, budget)
        right_best = _profile(right, weights, runtimes, budget)
        k = max(range(budget + 1), key=lambda k: left_best[k] + right_best[budget - k])
        extra = 1 if depth + 1 >= defective_from_depth else 0  # the planted bug
        split(left, k, depth + 1)
        split(right, budget - k + extra, depth + 1)

    split(list(range(len(memory))), capacity, 0)
    saved.sort()
    chosen = set(saved)
    return math.fsum(runtimes[i] for i in saved), saved, [i for i in range(len(memory)) if i not in chosen]


def solve(memory, runtimes, max_memory):
    return _hirschberg(memory, runtimes, max_memory, defective_from_depth=0)


def off_by_one_hirschberg(memory, runtimes, max_memory):
    return _hirschberg(memory, runtimes, max_memory, defective_from_depth=2)
