"""`knapcheck check`: the differential check over the registry and every instance family.

Each family contributes a fixed, seeded sample of instances; the oracle answers each instance once
and every solver is judged on it. Each distinct failure (solver and verdict kind) is then shrunk to
a minimal reproduction. The result is data; ``reports`` renders it.
"""

from __future__ import annotations

import time
from collections import Counter
from functools import partial
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from fuzz.differential import Check, check, size_allows
from fuzz.shrink import complexity, hypothesis_minimal, shrink
from fuzz.strategies import FAMILIES, family
from oracles.optimum import optimum
from oracles.verdict import Verdict
from solvers.contract import Instance
from solvers.registry import SolverEntry


def sample(strategy: st.SearchStrategy[Instance], count: int, seed_value: int = 0) -> list[Instance]:
    """``count`` instances drawn by Hypothesis from a fixed seed: the same list on every run of the
    same program. Not across programs: Hypothesis (6.170 here) sometimes draws literals found
    in the project's imported non-test modules, so which modules a program has loaded, and their
    constants, change the list (`python -m reports.bound_coverage` and `knapcheck check` differ)."""
    drawn: list[Instance] = []

    @seed(seed_value)
    @settings(
        max_examples=count,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(instance: Instance) -> None:
        drawn.append(instance)

    collect()
    return drawn


@dataclass
class CheckResult:
    solvers: list[SolverEntry]
    counts: dict[str, Counter] = field(default_factory=dict)
    findings: list[Check] = field(default_factory=list)
    """One minimal failing check per distinct signature."""
    instances: int = 0
    skipped: int = 0
    """Sampled instances left unchecked because the time budget ran out."""

    def our_failures(self) -> list[Check]:
        return [f for f in self.findings if f.solver.ours]


SMALLEST_FAMILY = "tiny"
SMALL_ENOUGH = 2
"""Hypothesis is asked only while the smallest reproduction has more items than this."""


def minimal_reproduction(failure: Check, give_up: Callable[[], bool] = lambda: False, seed_value: int = 0) -> Check:
    """Shrink a failing check to the smallest instance that fails with the same verdict.

    The greedy shrinker runs first; while its result has more than SMALL_ENOUGH items, Hypothesis
    searches the smallest family (many defects need no more than a few small items) and then the
    failing one (see fuzz.shrink); the smallest result wins. Once
    ``give_up()`` is true (the time is over) the smallest instance so far is kept. A TIMEOUT is not
    shrunk: every attempt would cost a full time limit. If the smallest instance does not fail
    again when rechecked (a flaky target), the original failure is kept: it is never lost.
    """
    if failure.verdict is Verdict.TIMEOUT:
        return failure

    def still_fails(instance: Instance) -> bool:
        if give_up() or not size_allows(failure.solver, instance):
            return False
        return check(failure.solver, instance, failure.family).verdict is failure.verdict

    candidates = [shrink(failure.instance, still_fails)]
    for name in dict.fromkeys([SMALLEST_FAMILY, failure.family]):
        if name in FAMILIES and min(c.n for c in candidates) > SMALL_ENOUGH:
            found = hypothesis_minimal(family(name), still_fails, seed_value)
            if found is not None:
                candidates.append(found)
    smallest = check(failure.solver, min(candidates, key=complexity), failure.family)
    return smallest if smallest.signature == failure.signature else failure


def _never() -> bool:
    return False


def _after(deadline: float) -> bool:
    return time.monotonic() > deadline


CHECK_SHARE = 0.6
"""Under a time budget, the share spent checking; the rest goes to shrinking the failures found."""


def run_check(
    entries: Iterable[SolverEntry],
    families: Iterable[str] = tuple(FAMILIES),
    per_family: int = 50,
    seed_value: int = 0,
    progress: Callable[[str], None] = lambda message: None,
    time_budget: float | None = None,
    stored: dict[str, Sequence[Instance]] | None = None,
) -> CheckResult:
    """Judge every entry on each family's sample (and on ``stored`` instances, by source name, such
    as the regression corpus), then shrink each distinct failure.

    With ``time_budget`` (seconds), source k stops at k/len(sources) of the checking share (time
    one source leaves unused carries over), the instances it did not reach are counted in
    ``skipped``, and the rest of the budget is split evenly among the failures to shrink.
    """
    entries = list(entries)
    sources: list[tuple[str, Callable[[], Sequence[Instance]]]] = [
        (name, partial(sample, family(name), per_family, seed_value)) for name in families
    ]
    sources += [(name, partial(list, instances)) for name, instances in (stored or {}).items()]
    start = time.monotonic()
    result = CheckResult(entries, {e.name: Counter() for e in entries})
    first_failure: dict[tuple[str, str], Check] = {}
    for index, (name, draw) in enumerate(sources):
        instances = draw()
        progress(f"{name}: {len(instances)} instances")
        stop = None if time_budget is None else start + CHECK_SHARE * time_budget * (index + 1) / len(sources)
        for position, instance in enumerate(instances):
            if stop is not None and time.monotonic() > stop:
                result.skipped += len(instances) - position
                progress(f"{name}: time is up after {position} instances")
                break
            result.instances += 1
            oracle = optimum(instance)
            for entry in entries:
                if not size_allows(entry, instance):
                    continue
                done = check(entry, instance, name, oracle)
                result.counts[entry.name][done.verdict.value] += 1
                if done.failed:
                    known = first_failure.get(done.signature)
                    if known is None or instance.n < known.instance.n:
                        first_failure[done.signature] = done
    failures = sorted(first_failure.items())
    for index, (signature, failure) in enumerate(failures):
        progress(f"shrinking {signature[0]} {signature[1]}")
        give_up = _never
        if time_budget is not None:
            now = time.monotonic()
            deadline = now + max(0.0, start + time_budget - now) / (len(failures) - index)
            give_up = partial(_after, deadline)
        result.findings.append(minimal_reproduction(failure, give_up, seed_value))
    return result
