"""A planted broken target: a divide-and-conquer (Hirschberg) knapsack with an off-by-one in the
budget split. It is a file as a pull request would bring it: it imports nothing of knapcheck."""

import math

SCALE = 10_000


def _profile(items, weights, runtimes, capacity):
    best = [0.0] * (capacity + 1)
    for i in items:
        w, r = weights[i], runtimes[i]
        if r <= 0 or w > capacity:
            continue
        for c in range(capacity, w - 1, -1):
            best[c] = max(best[c], best[c - w] + r)
    return best


def solve(memory, runtimes, max_memory):
    weights = [round(m * SCALE) for m in memory]
    capacity = round(max_memory * SCALE)
    saved = []

    def split(items, budget):
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
        split(left, k)
        split(right, budget - k + 1)  # the planted bug: the right half gets one unit too many

    split(list(range(len(memory))), capacity)
    saved.sort()
    chosen = set(saved)
    return math.fsum(runtimes[i] for i in saved), saved, [i for i in range(len(memory)) if i not in chosen]
