"""What happened when a solver was called: it returned, raised, died, ran out of time or memory.

Running a solver in this process or in an isolated child both end in an Outcome, so judging an
answer never depends on how the solver was run.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from typing import Any

from solvers.contract import Instance, Solver

RETURNED = "returned"
RAISED = "raised"
CRASHED = "crashed"
TIMED_OUT = "timed_out"
OUT_OF_MEMORY = "out_of_memory"


@dataclass(frozen=True)
class Outcome:
    kind: str
    answer: Any = None
    error: str = ""

    @property
    def returned(self) -> bool:
        return self.kind == RETURNED


def _short(filename: str) -> str:
    """An installed package's file from its package on (site-packages/torch/x.py -> torch/x.py)."""
    _, found, rest = filename.rpartition("site-packages/")
    return rest if found else filename


def call_in_process(solver: Solver, instance: Instance) -> Outcome:
    """Call a solver here, turning an exception into an Outcome instead of propagating it."""
    try:
        answer = solver(list(instance.memory), list(instance.runtimes), instance.max_memory)
    except MemoryError as exc:
        return Outcome(OUT_OF_MEMORY, error=f"{type(exc).__name__}: {exc}")
    except Exception as exc:
        frames = traceback.extract_tb(exc.__traceback__)
        where = f" at {_short(frames[-1].filename)}:{frames[-1].lineno}" if frames else ""
        return Outcome(RAISED, error=f"{type(exc).__name__}: {exc}{where}")
    return Outcome(RETURNED, answer=answer)
