"""The decision on one instance, the same in ``check``, ``report``, ``fuzz``, the pytest plugin and
``repair`` (through ``knapcheck.fuzz.checking.by_cause``): which entries run on it, and each check
judged by cause beside its baseline's.

The gate (``knapcheck.fuzz.checking.gate``) reads each decided check's status; drivers only feed
instances to it and tally what it decides.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ...solvers.contract import Instance
from ...solvers.entry import SolverEntry
from .by_cause import Causes
from .differential import Check, size_allows, with_baseline


def run_on(entries: Iterable[SolverEntry], instance: Instance) -> list[SolverEntry]:
    """The entries run on an instance: those that promise to solve its size (``size_allows``). Past
    its size an entry is not run, so neither judged: a target whose baseline was not run there is
    not run either, when both take one limit."""
    return [entry for entry in entries if size_allows(entry, instance)]


def decided(
    checks: Mapping[str, Check], counterparts: Mapping[str, SolverEntry], causes: Causes
) -> dict[str, Check]:
    """One instance's checks (of the entries ``run_on`` it, by name) judged by cause, each target's
    beside its counterpart baseline's check of the instance (``NOT_RUN`` where that was not run):
    the decision on an instance. The gate (``knapcheck.fuzz.checking.gate``) reads its status."""
    done = {name: causes.explained(checked) for name, checked in checks.items()}
    for name, checked in done.items():
        baseline = counterparts.get(name)
        if baseline is not None:
            done[name] = causes.explained(with_baseline(checked, baseline, done.get(baseline.name)))
    return done
