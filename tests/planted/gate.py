"""Planted solvers for the report's gate: both are SUBOPTIMAL, on different instances.

``fails_on_many`` is wrong only where ``fails_on_few`` is right, and the other way round: the same
kind of failure, so only comparing instance by instance tells that the first regresses from the
second. Below the threshold each answers optimally by brute force (instances are tiny).
"""

import math
from itertools import combinations

SCALE = 10_000
THRESHOLD = 3


def _optimal(memory, runtimes, max_memory):
    weights, capacity = [round(m * SCALE) for m in memory], round(max_memory * SCALE)
    useful = [i for i in range(len(memory)) if runtimes[i] > 0]
    best = max(
        (chosen for k in range(len(useful) + 1) for chosen in combinations(useful, k)
         if sum(weights[i] for i in chosen) <= capacity),
        key=lambda chosen: math.fsum(runtimes[i] for i in chosen),
    )
    saved = sorted(best)
    return math.fsum(runtimes[i] for i in saved), saved, [i for i in range(len(memory)) if i not in saved]


def _nothing(memory):
    return 0.0, [], list(range(len(memory)))


def fails_on_many(memory, runtimes, max_memory):
    """Saves nothing when there are THRESHOLD items or more; optimal below."""
    return _nothing(memory) if len(memory) >= THRESHOLD else _optimal(memory, runtimes, max_memory)


def fails_on_few(memory, runtimes, max_memory):
    """Saves nothing below THRESHOLD items; optimal from there on."""
    return _nothing(memory) if len(memory) < THRESHOLD else _optimal(memory, runtimes, max_memory)
