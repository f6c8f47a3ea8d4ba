"""Known versus new: whether a failure is one the known-failure corpus already holds.

Without a baseline, a failure is "known" when a corpus case has the same solver (by name, or the
same torch function: a copy of ``knapsack.py:dp_knapsack`` matches ``torch:dp_knapsack``'s cases),
the same verdict and the same cause. The cause is read from the instance, as the traits its
minimal reproduction needs (``knapcheck.fuzz.judging.known.traits.matched_traits``): an empty problem,
a zero-weight item, a negative runtime, memory off the quantization grid, runtimes float32 cannot
add exactly, a capacity past 4 096 units. Minimal reproductions of one defect share their traits;
the corpus's cases of different causes of one (solver, verdict) differ in theirs. Two defects of one solver with one
verdict and the same traits are told apart only against a baseline (``knapcheck.fuzz.judging.verdicts.gate``).
"""

from __future__ import annotations

from collections.abc import Iterable

from ....solvers import specs
from ....solvers.contract import Instance
from ....solvers.registry import resolve_one
from ...corpus.known_failures import KnownFailure
from ..verdicts.differential import Check, check
from .traits import matched_traits


def same_solver(target: str, case_solver: str) -> bool:
    """A case's solver is the target, or a torch solver whose function the target names (torch's own
    code: a case of ``torch:NAME<SOURCE.py`` is SOURCE.py's, not torch's)."""
    if target == case_solver:
        return True
    try:
        mine, theirs = specs.parse(target), specs.parse(case_solver)
    except ValueError:
        return False
    return (theirs.kind == "torch" and not theirs.source and mine.kind in ("torch", "file", "module")
            and mine.name == theirs.name)


def matching_case(solver: str, verdict: str, instance: Instance, cases: Iterable[KnownFailure]) -> KnownFailure | None:
    """The first corpus case with this solver, verdict and cause; None when the failure is new."""
    traits = matched_traits(instance)
    for case in cases:
        if case.verdict == verdict and same_solver(solver, case.solver) and matched_traits(case.instance) == traits:
            return case
    return None


def known_case(failure: Check, cases: Iterable[KnownFailure]) -> KnownFailure | None:
    """``matching_case`` for a check's solver, verdict and instance."""
    return matching_case(failure.solver.name, failure.verdict.value, failure.instance, cases)


def replay(case: KnownFailure) -> Check:
    """The case's solver checked on the case's instance. ValueError if the solver cannot be found."""
    return check(resolve_one(case.solver), case.instance, case.family)
