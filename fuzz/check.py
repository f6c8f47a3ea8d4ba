"""`knapcheck check`: the differential check over the registry and every instance family.

Each family contributes a fixed, seeded sample of instances; the oracle answers each instance once
and every solver is judged on it. Each distinct failure (solver and verdict kind) is then shrunk to
a minimal reproduction. The result is data; ``reports`` renders it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Iterable

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from fuzz.differential import Check, check, size_allows
from fuzz.shrink import shrink
from fuzz.strategies import FAMILIES, family
from oracles.optimum import optimum
from solvers.contract import Instance
from solvers.registry import SolverEntry


def sample(strategy: st.SearchStrategy[Instance], count: int, seed_value: int = 0) -> list[Instance]:
    """``count`` instances drawn by Hypothesis from a fixed seed: the same list on every run."""
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

    def our_failures(self) -> list[Check]:
        return [f for f in self.findings if f.solver.ours]


def minimal_reproduction(failure: Check, give_up: Callable[[], bool] = lambda: False) -> Check:
    """Shrink a failing check to the smallest instance that fails with the same verdict.

    Once ``give_up()`` is true (a campaign's time is over) the smallest instance so far is kept.
    """

    def still_fails(instance: Instance) -> bool:
        if give_up() or not size_allows(failure.solver, instance):
            return False
        return check(failure.solver, instance, failure.family).verdict is failure.verdict

    smallest = shrink(failure.instance, still_fails)
    return check(failure.solver, smallest, failure.family)


def run_check(
    entries: Iterable[SolverEntry],
    families: Iterable[str] = tuple(FAMILIES),
    per_family: int = 50,
    seed_value: int = 0,
    progress: Callable[[str], None] = lambda message: None,
) -> CheckResult:
    entries = list(entries)
    result = CheckResult(entries, {e.name: Counter() for e in entries})
    first_failure: dict[tuple[str, str], Check] = {}
    for name in families:
        instances = sample(family(name), per_family, seed_value)
        progress(f"{name}: {len(instances)} instances")
        for instance in instances:
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
    for signature, failure in sorted(first_failure.items()):
        progress(f"shrinking {signature[0]} {signature[1]}")
        result.findings.append(minimal_reproduction(failure))
    return result
