"""Shrinking a failing instance to a minimal one that still fails the same way.

Two shrinkers, and the caller keeps the smaller result. Hypothesis shrinks what it generates:
``hypothesis_minimal`` asks ``hypothesis.find`` for a failing instance of the family that found
the failure and lets Hypothesis shrink it (it is good at small integers and few items). Campaigns,
harvested corpora and the known-failure corpus hand us instances Hypothesis never generated, and its
search may miss a rare failure, so ``shrink`` works from the failing instance itself: drop items
(alone or with their share of the budget), lower the budget, make runtimes and memories rounder,
and keep every change after which the failure still reproduces. To stop either early, make
``still_fails`` answer False.
"""

from __future__ import annotations

from itertools import islice
from random import Random
from typing import Callable, Iterator

from hypothesis import Phase, find
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample, Unsatisfiable

from ....oracles.verdict import Verdict
from ....solvers.contract import SCALE, Instance
from ...instances import families
from ...instances.seeded_draws import seeded_settings
from .differential import Check, check_against, size_allows

MAX_ATTEMPTS = 3000
HYPOTHESIS_EXAMPLES = 100
STALL_CHECKS = 200


def complexity(instance: Instance) -> tuple:
    """What 'smaller' means: fewer items first, then a shorter text, then smaller numbers."""
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


def _removing_chunks(instance: Instance) -> Iterator[Instance]:
    n = instance.n
    size = n // 2
    while size >= 1:
        for start in range(0, n, size):
            yield _without(instance, start, min(n, start + size))
        size //= 2


def _removing_items_with_their_budget(instance: Instance) -> Iterator[Instance]:
    """Dropping a saved item together with its share of the budget keeps a tight budget tight."""
    for i in range(instance.n):
        budget = instance.max_memory - instance.memory[i]
        if budget >= 0:
            yield _replace(_without(instance, i, i + 1), max_memory=budget)


def _simpler_budgets(instance: Instance) -> Iterator[Instance]:
    for budget in _simpler_numbers(instance.max_memory, unit=1 / SCALE):
        yield _replace(instance, max_memory=budget)


def _simpler_runtimes(instance: Instance) -> Iterator[Instance]:
    for i, r in enumerate(instance.runtimes):
        for simpler in _simpler_numbers(abs(r), unit=1.0):
            runtimes = list(instance.runtimes)
            runtimes[i] = simpler if r >= 0 else -simpler
            yield _replace(instance, runtimes=tuple(runtimes))


def _simpler_memories(instance: Instance) -> Iterator[Instance]:
    for i, m in enumerate(instance.memory):
        for simpler in _simpler_numbers(m, unit=1 / SCALE):
            memory = list(instance.memory)
            memory[i] = simpler
            yield _replace(instance, memory=tuple(memory))


PASSES = (_removing_chunks, _removing_items_with_their_budget, _simpler_budgets, _simpler_runtimes, _simpler_memories)
"""The simplifying steps, in order: fewer items first, then rounder numbers."""


def shrink(instance: Instance, still_fails: Callable[[Instance], bool], max_attempts: int = MAX_ATTEMPTS) -> Instance:
    """The smallest instance reachable by simplifying steps on which ``still_fails`` holds.

    Each pass of PASSES goes through its candidates once, keeping each one that still fails and
    going on from the same place in the new instance's candidates: restarting from the first after
    every success re-checked every item's removal after each rounder number, and spent a gate's
    time share re-checking. The passes repeat until none keeps a candidate.
    """
    best = instance
    attempts = 0
    improved = True
    while improved and attempts < max_attempts:
        improved = False
        for simplifying in PASSES:
            position = 0
            while attempts < max_attempts:
                kept = None
                for index, candidate in enumerate(islice(simplifying(best), position, None), start=position):
                    if complexity(candidate) >= complexity(best):
                        continue
                    attempts += 1
                    if still_fails(candidate):
                        kept = index
                        break
                    if attempts >= max_attempts:
                        break
                if kept is None:
                    break
                best, position, improved = candidate, kept, True
    return best


def hypothesis_minimal(
    strategy: st.SearchStrategy[Instance],
    still_fails: Callable[[Instance], bool],
    seed_value: int = 0,
    max_examples: int = HYPOTHESIS_EXAMPLES,
) -> Instance | None:
    """The instance Hypothesis shrinks to from the first failing one it draws; None if none fails.

    Seeded, without the example database, drawing nothing from the imported modules' source
    (``knapcheck.fuzz.instances.seeded_draws``): the same answer on every run. Answers are remembered per
    instance, so Hypothesis's replays agree with its first call even when ``still_fails`` has
    given up in between (or the target is flaky).
    """
    answers: dict[Instance, bool] = {}

    def condition(instance: Instance) -> bool:
        if instance not in answers:
            answers[instance] = still_fails(instance)
        return answers[instance]

    try:
        return find(
            strategy,
            condition,
            settings=seeded_settings(max_examples, (Phase.generate, Phase.shrink)),
            random=Random(seed_value),
        )
    except (NoSuchExample, Unsatisfiable):
        return None


SMALLEST_FAMILY = "tiny"
SMALL_ENOUGH = 2
"""Hypothesis is asked only while the smallest reproduction has more items than this."""


def minimal_reproduction(
    failure: Check,
    give_up: Callable[[], bool] = lambda: False,
    seed_value: int = 0,
    keeps: Callable[[Check], bool] | None = None,
) -> Check:
    """Shrink a failing check to the smallest instance with the same differential signature (or,
    given ``keeps``, on which the check of the target beside its baseline still satisfies it).

    The target must fail there with the same verdict and, when the check carries a baseline, the
    baseline must give the verdict it gave (so a regression against a baseline that passed is
    reproduced on an instance that baseline passes, never on a failure the two share; a baseline
    not run on the instance must still not be run). A NONDETERMINISTIC failure is retried with
    two calls. The greedy shrinker runs first; while its result has more than SMALL_ENOUGH items,
    Hypothesis searches the smallest family (many defects need no more than a few small items)
    and then the failing one; the smallest result wins. Once ``give_up()`` is true (the time is
    over) the smallest instance so far is kept. A TIMEOUT is not shrunk: every attempt would cost
    a full time limit. The result is the check made on the smallest instance while searching (no
    recheck, so a flaky target cannot turn it into a pass); the original failure when nothing
    smaller reproduces it.
    """
    if failure.verdict is Verdict.TIMEOUT:
        return failure
    wanted = failure.differential_signature
    if keeps is None:
        keeps = lambda done: done.differential_signature == wanted  # noqa: E731
    calls = 2 if failure.verdict is Verdict.NONDETERMINISTIC else 1
    seen: dict[Instance, Check] = {}

    def still_fails(instance: Instance) -> bool:
        if instance not in seen:
            if give_up() or not size_allows(failure.solver, instance):
                return False
            seen[instance] = check_against(failure.solver, failure.counterpart, instance, failure.family, calls=calls)
        return keeps(seen[instance])

    candidates = [shrink(failure.instance, still_fails)]
    for name in dict.fromkeys([SMALLEST_FAMILY, failure.family]):
        if name in families.names() and min(c.n for c in candidates) > SMALL_ENOUGH and not give_up():
            beating = _while_beating(min(candidates, key=complexity), still_fails, lambda: len(seen))
            found = hypothesis_minimal(families.strategy(name), beating, seed_value)
            if found is not None:
                candidates.append(found)
    smallest = min(candidates, key=complexity)
    return seen[smallest] if smallest in seen and complexity(smallest) < complexity(failure.instance) else failure


def _while_beating(
    best: Instance, still_fails: Callable[[Instance], bool], checks_made: Callable[[], int]
) -> Callable[[Instance], bool]:
    """``still_fails`` for a search that is worth going on only while it beats ``best``: it
    answers False (no more checks) once STALL_CHECKS checks have passed since the search last
    found a failing instance smaller than every one before (``best`` to start with). A search of a
    family of large instances that shrinks slowly, and never below what the greedy shrinker
    found, used to run until the shrinking time was over."""
    smallest = complexity(best)
    last_progress = checks_made()

    def fails(instance: Instance) -> bool:
        nonlocal smallest, last_progress
        if checks_made() - last_progress >= STALL_CHECKS:
            return False
        failed = still_fails(instance)
        if failed and (size := complexity(instance)) < smallest:
            smallest, last_progress = size, checks_made()
        return failed

    return fails
