"""Running a registered solver on an instance, in this process or isolated, as its entry asks."""

from __future__ import annotations

from functools import lru_cache

from solvers.contract import Instance, Solver
from solvers.outcome import Outcome, call_in_process
from solvers.registry import SolverEntry


@lru_cache(maxsize=None)
def _loaded(entry: SolverEntry) -> Solver:
    return entry.load()


def run(entry: SolverEntry, instance: Instance) -> Outcome:
    return call_in_process(_loaded(entry), instance)
