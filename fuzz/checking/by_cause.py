"""Judging a target's failures by cause: a known defect of its baseline made visible, or a new one.

On one instance (``Causes.explained``): a target's failure its baseline does not share carries the
baseline's known defects whose reach holds it (``knapcheck.fuzz.checking.defects``); a baseline's
own failure carries its defects that may have caused it.

For a finding (``Causes.reproduce``), a failure is called a known defect only once no reproduction
outside those defects' reach is found. The search starts from the smallest instance of the
finding's signature that was already outside every reach, if the check met one (then it is a
regression at once); else from the failing instance and then from its shrunk reproduction, each
taken out of the reach of every defect of the baseline that causes its verdict
(``defects.leaving``: runtimes rounded onto a float32-exact grid, memory snapped to the
quantization grid, zero-memory items dropped). A failure that survives there, where the baseline
does not fail that way, is a regression, shrunk on that side of every reach: its reproduction lies
outside them all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from knapcheck.fuzz.checking.defects import Catalogue, catalogue, explaining, leaving, possible_causes, with_causes
from knapcheck.fuzz.checking.differential import Check, check_against, size_allows
from knapcheck.fuzz.checking.gate import is_regression, is_shared
from knapcheck.fuzz.checking.shrink import minimal_reproduction
from knapcheck.fuzz.corpus.regression import RegressionCase
from knapcheck.solvers.contract import Instance
from knapcheck.solvers.entry import SolverEntry


class Causes:
    """The known defects of a run's baselines, and how a target's failure is judged by them."""

    def __init__(self, baselines: Iterable[SolverEntry], cases: Iterable[RegressionCase]) -> None:
        cases = list(cases)
        self.defects: Mapping[str, Catalogue] = {b.name: catalogue(b.name, cases) for b in baselines}

    def of(self, solver: str) -> Catalogue:
        return self.defects.get(solver, {})

    def explained(self, done: Check) -> Check:
        """The check with the known defects that explain its failure: a target's failure its
        baseline does not share, by the baseline's defects; a baseline's own failure, by its own."""
        if not done.failed:
            return done
        if done.counterpart is None:
            return with_causes(done, possible_causes(done, self.of(done.solver.name)))
        if is_shared(done):
            return done
        return with_causes(done, explaining(done, self.of(done.counterpart.name)))

    def reproduce(
        self, failure: Check, clean: Check | None, give_up: Callable[[], bool], seed_value: int = 0
    ) -> Check:
        """The finding of a target's failure: a regression reproduced outside every known defect's
        reach when one is found (``clean``: the smallest instance of its signature the check found
        there), else its shrunk reproduction with the defects that explain it. The failing instance
        is taken out of their reach before any shrinking, and the shrunk one after it, whatever
        time is left: one check each, so that running out of time never hides a regression."""
        if clean is not None:
            return self._shrunk_regression(clean, give_up, seed_value)
        outside = self._outside(failure, failure.instance)
        if outside is not None:
            return self._shrunk_regression(outside, give_up, seed_value)
        shrunk = self.explained(minimal_reproduction(failure, give_up, seed_value))
        if is_regression(shrunk):
            return shrunk
        outside = self._outside(failure, shrunk.instance)
        return shrunk if outside is None else self._shrunk_regression(outside, give_up, seed_value)

    def _outside(self, failure: Check, instance: Instance) -> Check | None:
        """The failure found again on ``instance`` taken out of the reach of every defect of the
        baseline that causes its verdict, where it is a regression; None when it is not."""
        if failure.counterpart is None:
            return None
        start = leaving(instance, self.of(failure.counterpart.name).get(failure.verdict.value, ()))
        if start is None or start == instance or not size_allows(failure.solver, start):
            return None
        again = self.explained(check_against(failure.solver, failure.counterpart, start, failure.family))
        return again if again.verdict is failure.verdict and is_regression(again) else None

    def _shrunk_regression(self, found: Check, give_up: Callable[[], bool], seed_value: int) -> Check:
        wanted = found.differential_signature

        def keeps(done: Check) -> bool:
            return done.differential_signature == wanted and is_regression(self.explained(done))

        return self.explained(minimal_reproduction(found, give_up, seed_value, keeps))
