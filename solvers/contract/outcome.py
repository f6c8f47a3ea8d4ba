"""What happened when a solver was called: it returned, raised, died, ran out of time or memory.

Running a solver in this process or in an isolated child both end in an Outcome, so judging an
answer never depends on how the solver was run. An Outcome is plain data: the answer as
``knapcheck.solvers.contract.answer`` reads it, an exception as its text.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from typing import Sequence

from . import Instance, ProblemTooLarge, Solver
from . import answer as reading
from .answer import Answer, clipped, exception_text, plain_answer

RETURNED = "returned"
RAISED = "raised"
REFUSED = "refused"
"""Raised ProblemTooLarge: the contract's refusal of a size, judged against the entry's declared sizes."""
CRASHED = "crashed"
TIMED_OUT = "timed_out"
OUT_OF_MEMORY = "out_of_memory"
KINDS = frozenset({RETURNED, RAISED, REFUSED, CRASHED, TIMED_OUT, OUT_OF_MEMORY})


Returned = Answer | tuple[float, list[int], list[int]] | str
"""What an Outcome holds of what a solver returned (``Outcome.answer``)."""


@dataclass(frozen=True)
class Outcome:
    kind: str
    answer: Returned | None = None
    """What the solver returned, read as plain data (RETURNED only): an Answer where it ran here; a
    check read back from a file may hold the contract's (value, saved, recomputable) or the repr of
    what was returned (``knapcheck.fuzz.judging.plain_check.answer_from_plain``), and a logged
    answer is the contract's triple (``knapcheck.fuzz.harvest.logged_answers``)."""
    error: str = ""
    changed_input: str = ""
    """What the solver changed in the lists it was given, if it returned; empty when nothing.
    torch's partitioner uses its lists again after the call, so a change is a defect."""

    @property
    def returned(self) -> bool:
        return self.kind == RETURNED


def _short(filename: str) -> str:
    """An installed package's file from its package on (site-packages/torch/x.py -> torch/x.py)."""
    _, found, rest = filename.rpartition("site-packages/")
    return rest if found else filename


def _first_change(name: str, given: Sequence[float], now: list) -> str:
    """The first difference between what a solver was given and what the list holds now."""
    if len(now) != len(given):
        return f"{name} went from {len(given)} to {len(now)} items"
    for i, (before, after) in enumerate(zip(given, now)):
        try:
            if bool(after == before):
                continue
            shown = f"{after!r:.60}"
        except reading.TARGETS_OWN:
            shown = f"a {type(after).__name__}"
        return f"{name}[{i}] went from {before!r} to {shown}"
    return ""


def input_changes(instance: Instance, memory: list, runtimes: list) -> str:
    """How the lists handed to a solver differ from the instance after the call; empty if they do not."""
    changes = [_first_change("memory", instance.memory, memory), _first_change("runtimes", instance.runtimes, runtimes)]
    changes = [c for c in changes if c]
    return "the solver changed the lists it was given: " + "; ".join(changes) if changes else ""


def call_in_process(solver: Solver, instance: Instance) -> Outcome:
    """Call a solver here, turning an exception into an Outcome instead of propagating it.

    The solver gets fresh lists, compared with the instance once it returns (``changed_input``).
    What it returns is read into plain data here (``plain_answer``), and what it raises into text.
    """
    memory, runtimes = list(instance.memory), list(instance.runtimes)
    try:
        returned = solver(memory, runtimes, instance.max_memory)
    except ProblemTooLarge as exc:
        return Outcome(REFUSED, error=exception_text(exc))
    except MemoryError as exc:
        return Outcome(OUT_OF_MEMORY, error=exception_text(exc))
    except reading.TARGETS_OWN as exc:
        return Outcome(RAISED, error=clipped(exception_text(exc) + _where(exc)))
    answer = plain_answer(returned, instance.n)
    return Outcome(RETURNED, answer=answer, changed_input=clipped(input_changes(instance, memory, runtimes)))


def _where(exc: BaseException) -> str:
    """`` at FILE:LINE`` of the innermost frame an exception went through; empty when unknown."""
    try:
        frames = traceback.extract_tb(exc.__traceback__)
        return f" at {_short(frames[-1].filename)}:{frames[-1].lineno}" if frames else ""
    except Exception:
        return ""
