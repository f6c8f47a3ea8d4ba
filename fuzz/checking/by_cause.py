"""Judging a target's failures by cause: a known defect of its baseline made visible, or a new one.

On one instance (``Causes.explained``): a target's failure its baseline does not share carries the
baseline's known defects whose reach holds it (``knapcheck.fuzz.checking.defects``); a baseline's
own failure carries its defects that may have caused it.

For a finding (``Causes.reproduce``), a failure is called a known defect only once no reproduction
outside those defects' reach is found. The search starts from the smallest instance of the
finding's signature that was already outside every reach, if the check met one (then it is a
regression at once); else from the failing instance and from its shrunk reproduction, each taken
out of the reach of every defect of the baseline that causes its verdict (``defects.leaving``:
runtimes rounded onto a float32-exact grid, memory snapped to the quantization grid, zero-memory
items dropped). A failure that survives there, where the baseline does not fail that way, is a
regression, shrunk on that side of every reach: its reproduction lies outside them all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from knapcheck.fuzz.checking.defects import Catalogue, catalogue, explaining, leaving, possible_causes, with_causes
from knapcheck.fuzz.checking.differential import Check, check_against, size_allows
from knapcheck.fuzz.checking.gate import is_regression, is_shared
from knapcheck.fuzz.checking.shrink import minimal_reproduction
from knapcheck.fuzz.corpus.regression import RegressionCase
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
        there), else its shrunk reproduction with the defects that explain it."""
        if clean is not None:
            return self._shrunk_regression(clean, give_up, seed_value)
        shrunk = self.explained(minimal_reproduction(failure, give_up, seed_value))
        if failure.counterpart is None or is_regression(shrunk):
            return shrunk
        relevant = self.of(failure.counterpart.name).get(failure.verdict.value, ())
        tried = {failure.instance, shrunk.instance}
        for start in (leaving(failure.instance, relevant), leaving(shrunk.instance, relevant)):
            if start is None or start in tried or give_up() or not size_allows(failure.solver, start):
                continue
            tried.add(start)
            again = self.explained(check_against(failure.solver, failure.counterpart, start, failure.family))
            if again.verdict is failure.verdict and is_regression(again):
                return self._shrunk_regression(again, give_up, seed_value)
        return shrunk

    def _shrunk_regression(self, found: Check, give_up: Callable[[], bool], seed_value: int) -> Check:
        wanted = found.differential_signature

        def keeps(done: Check) -> bool:
            return done.differential_signature == wanted and is_regression(self.explained(done))

        return self.explained(minimal_reproduction(found, give_up, seed_value, keeps))
