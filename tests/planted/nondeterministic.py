"""Planted exact solvers that always answer optimally, but break ties in different ways.

- ``alternating_tie_break`` keeps state between calls, as a cache or a race between threads
  would: it saves the first optimal set on one call and the last on the next, so two calls on an
  instance with several optimal sets always disagree.
- ``first_optimal`` and ``last_optimal`` are deterministic: the first and the last optimal set in
  the order of enumeration. They differ only in the tie-break, which is no contract failure.

Brute force over every subset: for the small instances the tests give them.
"""

import itertools
import math
from itertools import combinations

_CALLS = itertools.count()

SCALE = 10_000


def _optimal_sets(memory, runtimes, max_memory):
    weights, capacity = [round(m * SCALE) for m in memory], round(max_memory * SCALE)
    n = len(memory)
    feasible = [
        chosen for k in range(n + 1) for chosen in combinations(range(n), k)
        if sum(weights[i] for i in chosen) <= capacity
    ]
    best = max(math.fsum(runtimes[i] for i in chosen) for chosen in feasible)
    return [chosen for chosen in feasible if math.fsum(runtimes[i] for i in chosen) == best]


def _answer(chosen, runtimes, n):
    saved = sorted(chosen)
    return math.fsum(runtimes[i] for i in saved), saved, [i for i in range(n) if i not in saved]


def alternating_tie_break(memory, runtimes, max_memory):
    optimal = _optimal_sets(memory, runtimes, max_memory)
    return _answer(optimal[0] if next(_CALLS) % 2 else optimal[-1], runtimes, len(memory))


def first_optimal(memory, runtimes, max_memory):
    return _answer(_optimal_sets(memory, runtimes, max_memory)[0], runtimes, len(memory))


def last_optimal(memory, runtimes, max_memory):
    return _answer(_optimal_sets(memory, runtimes, max_memory)[-1], runtimes, len(memory))
