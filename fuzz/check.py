"""The check run: every solver judged on each family's fixed sample, each distinct failure shrunk.

Each family contributes a fixed, seeded sample of instances; the oracle answers each instance once
and every solver is judged on it. Each distinct failure (solver and verdict kind) is then shrunk to
a minimal reproduction. The result is data (``knapcheck.fuzz.differential.CheckResult``); ``reports`` renders it.
"""

from __future__ import annotations

import time
from functools import partial
from typing import Callable, Iterable, Sequence

from knapcheck.fuzz import families
from knapcheck.fuzz.differential import Check, CheckResult, check, size_allows
from knapcheck.fuzz.shrink import minimal_reproduction
from knapcheck.fuzz.strategies import sample
from knapcheck.oracles.optimum import optimum
from knapcheck.solvers.contract import Instance
from knapcheck.solvers.entry import SolverEntry


def _never() -> bool:
    return False


def _after(deadline: float) -> bool:
    return time.monotonic() > deadline


CHECK_SHARE = 0.6
"""Under a time budget, the share spent checking; the rest goes to shrinking the failures found."""


def run_check(
    entries: Iterable[SolverEntry],
    family_names: Iterable[str] | None = None,
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
        (name, partial(sample, families.strategy(name), per_family, seed_value))
        for name in (families.names() if family_names is None else family_names)
    ]
    sources += [(name, partial(list, instances)) for name, instances in (stored or {}).items()]
    start = time.monotonic()
    result = CheckResult(entries)
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
            failing: dict[str, str | None] = {}
            result.failures_by_instance.append(failing)
            for entry in entries:
                if not size_allows(entry, instance):
                    continue
                done = check(entry, instance, name, oracle)
                result.counts[entry.name][done.verdict.value] += 1
                if done.oracle_disagreement:
                    result.oracle_findings.append(done)
                result.overshoots.add(entry.name, name, instance, done.judgement.memory_slack)
                failing[entry.name] = done.verdict.value if done.failed else None
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
