"""Running a registered solver on an instance, in this process or isolated, as its entry asks."""

from __future__ import annotations

from knapcheck.solvers.contract import Instance
from knapcheck.solvers.entry import SolverEntry
from knapcheck.solvers.isolation import hash_seeds
from knapcheck.solvers.isolation.outcome import Outcome, call_in_process
from knapcheck.solvers.isolation.worker import call_isolated


def run(entry: SolverEntry, instance: Instance, *, other_process: bool = False) -> Outcome:
    """Entries with ``isolate=True`` run in their worker process (knapcheck.solvers.isolation.worker), others here.

    ``other_process``: an isolated entry runs in a second worker of its own, whose str hashes
    differ from its first's (``knapcheck.solvers.isolation.hash_seeds.SECOND``).
    """
    if entry.isolate:
        return call_isolated(entry, instance, hash_seed=hash_seeds.SECOND if other_process else hash_seeds.FIRST)
    return call_in_process(entry.load(), instance)
