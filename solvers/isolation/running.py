"""Running a registered solver on an instance, in this process or isolated, as its entry asks."""

from __future__ import annotations

from typing import Callable, Sequence

from ..contract import Instance
from ..contract.outcome import Outcome, call_in_process
from ..entry import SolverEntry
from . import hash_seeds
from .worker import current_pool


def run(entry: SolverEntry, instance: Instance, *, other_process: bool = False) -> Outcome:
    """Entries with ``isolate=True`` run in their worker process, in the current pool
    (``knapcheck.solvers.isolation.worker.current_pool``), others here.

    ``other_process``: an isolated entry runs in a second worker of its own, whose str hashes
    differ from its first's (``knapcheck.solvers.isolation.hash_seeds.SECOND``).
    """
    if entry.isolate:
        return current_pool().call(entry, instance, hash_seed=hash_seeds.SECOND if other_process else hash_seeds.FIRST)
    return call_in_process(entry.load(), instance)


def run_many(
    entry: SolverEntry, instances: Sequence[Instance], stopped: Callable[[], bool] = lambda: False
) -> list[Outcome]:
    """``run`` on each instance in turn, in one worker's pipeline when the entry is isolated
    (``knapcheck.solvers.isolation.worker.Worker.call_many``). Once ``stopped()`` says so, no further
    call starts: the Outcomes end with the call under way."""
    if entry.isolate:
        return current_pool().call_many(entry, instances, stopped=stopped)
    solver = entry.load()
    outcomes = []
    for instance in instances:
        if stopped():
            break
        outcomes.append(call_in_process(solver, instance))
    return outcomes
