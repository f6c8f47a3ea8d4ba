"""Running a registered solver on an instance, in this process or isolated, as its entry asks."""

from __future__ import annotations

from knapcheck.solvers.contract import Instance
from knapcheck.solvers.entry import SolverEntry
from knapcheck.solvers.isolation.outcome import Outcome, call_in_process
from knapcheck.solvers.isolation.worker import call_isolated


def run(entry: SolverEntry, instance: Instance) -> Outcome:
    """Entries with ``isolate=True`` run in their worker process (knapcheck.solvers.isolation.worker), others here."""
    if entry.isolate:
        return call_isolated(entry, instance)
    return call_in_process(entry.load(), instance)
