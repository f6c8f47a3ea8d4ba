"""Shrinking a failing instance to a minimal one that still fails the same way.

Hypothesis shrinks what it generates; campaigns, harvested corpora and stored regressions hand us
instances it never generated, so this greedy shrinker works from any instance: drop items (alone
or with their share of the budget), lower the budget, make runtimes and memories rounder, and
keep every change after which the failure still reproduces.
"""

from __future__ import annotations

from typing import Callable, Iterator

from solvers.contract import SCALE, Instance

MAX_ATTEMPTS = 3000


def _complexity(instance: Instance) -> tuple:
    return (
        instance.n,
        len(repr(instance.as_dict())),
        sum(abs(r) for r in instance.runtimes),
        sum(instance.memory),
        instance.max_memory,
    )


def _without(instance: Instance, start: int, stop: int) -> Instance:
    return Instance(
        instance.memory[:start] + instance.memory[stop:],
        instance.runtimes[:start] + instance.runtimes[stop:],
        instance.max_memory,
    )


def _replace(instance: Instance, *, memory=None, runtimes=None, max_memory=None) -> Instance:
    return Instance(
        instance.memory if memory is None else memory,
        instance.runtimes if runtimes is None else runtimes,
        instance.max_memory if max_memory is None else max_memory,
    )


def _simpler_numbers(x: float, *, unit: float) -> list[float]:
    """Rounder candidates for a value: zero, whole units, halves, fewer significant digits."""
    candidates = [0.0, unit, round(x / unit) * unit, (round(x / unit) // 2) * unit]
    for digits in range(1, 4):
        candidates.append(float(f"{x:.{digits}g}"))
    return [c for c in candidates if c >= 0 and c != x]


def _candidates(instance: Instance) -> Iterator[Instance]:
    n = instance.n
    size = n // 2
    while size >= 1:
        for start in range(0, n, size):
            yield _without(instance, start, min(n, start + size))
        size //= 2
    for i in range(n):
        # Dropping a saved item together with its share of the budget keeps a tight budget tight.
        budget = instance.max_memory - instance.memory[i]
        if budget >= 0:
            yield _replace(_without(instance, i, i + 1), max_memory=budget)
    for budget in _simpler_numbers(instance.max_memory, unit=1 / SCALE):
        yield _replace(instance, max_memory=budget)
    for i, r in enumerate(instance.runtimes):
        for simpler in _simpler_numbers(abs(r), unit=1.0):
            runtimes = list(instance.runtimes)
            runtimes[i] = simpler if r >= 0 else -simpler
            yield _replace(instance, runtimes=tuple(runtimes))
    for i, m in enumerate(instance.memory):
        for simpler in _simpler_numbers(m, unit=1 / SCALE):
            memory = list(instance.memory)
            memory[i] = simpler
            yield _replace(instance, memory=tuple(memory))


def shrink(instance: Instance, still_fails: Callable[[Instance], bool], max_attempts: int = MAX_ATTEMPTS) -> Instance:
    """The smallest instance reachable by simplifying steps on which ``still_fails`` holds."""
    best = instance
    attempts = 0
    improved = True
    while improved and attempts < max_attempts:
        improved = False
        for candidate in _candidates(best):
            if _complexity(candidate) >= _complexity(best):
                continue
            attempts += 1
            if still_fails(candidate):
                best = candidate
                improved = True
                break
            if attempts >= max_attempts:
                break
    return best
