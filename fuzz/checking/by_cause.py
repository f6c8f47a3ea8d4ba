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

The strongest test of a cause is an intervention, and it comes first wherever it can be made:
where a defect of the baseline that causes the failure's verdict carries a repair that applies to
the candidate's own source (``knapcheck.fuzz.checking.repaired``), the repaired candidate is
checked on the failing instance. Passing there (or failing only as the baseline does, or within the
reach of a defect whose repair did not apply) means the failure is that known defect, moved:
information. Still failing the same way means its cause is new: a regression, whatever the
instance's traits, and its reproduction is shrunk keeping that. A repaired candidate that fails
otherwise (a repair the candidate's code does not bear) decides nothing, and the reach rules do, as
they do where no repair applies.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from dataclasses import replace

from knapcheck.fuzz.checking.defects import Catalogue, catalogue, explaining, leaving, possible_causes, with_causes
from knapcheck.fuzz.checking.differential import Check, Repaired, check, check_against, size_allows, with_baseline
from knapcheck.fuzz.checking.gate import is_regression, is_shared, valid
from knapcheck.fuzz.checking.repaired import Intervention, intervention
from knapcheck.fuzz.checking.shrink import minimal_reproduction
from knapcheck.fuzz.corpus.regression import RegressionCase
from knapcheck.solvers.contract import Instance
from knapcheck.solvers.entry import SolverEntry


class Causes:
    """The known defects of a run's baselines, and how a target's failure is judged by them."""

    def __init__(self, baselines: Iterable[SolverEntry], cases: Iterable[RegressionCase]) -> None:
        cases = list(cases)
        self.defects: Mapping[str, Catalogue] = {b.name: catalogue(b.name, cases) for b in baselines}
        self.interventions: dict[str, Intervention] = {}
        """Candidate name -> its baseline's known defects repaired in its source, once it was needed."""
        self._repaired_checks: dict[tuple[str, Instance], Check] = {}

    def of(self, solver: str) -> Catalogue:
        return self.defects.get(solver, {})

    def intervention(self, candidate: SolverEntry, baseline: SolverEntry) -> Intervention:
        """The repairs of the baseline's known defects in the candidate's source (made once)."""
        if candidate.name not in self.interventions:
            defects = [cause for causes in self.of(baseline.name).values() for cause in causes]
            self.interventions[candidate.name] = intervention(candidate, baseline, defects)
        return self.interventions[candidate.name]

    def explained(self, done: Check) -> Check:
        """The check with the known defects that explain its failure: a target's failure its
        baseline does not share, by the baseline's defects; a baseline's own failure, by its own."""
        if not done.failed:
            return done
        if done.counterpart is None:
            return with_causes(done, possible_causes(done, self.of(done.solver.name)))
        if is_shared(done):
            return done
        defects = self.of(done.counterpart.name)
        return self._by_repair(done, defects) or with_causes(done, explaining(done, defects))

    def _by_repair(self, done: Check, defects: Catalogue) -> Check | None:
        """The failure judged by the repaired candidate; None where no repair of a defect that
        causes its verdict applies."""
        repair = self.intervention(done.solver, done.counterpart)
        repaired = tuple(c.name for c in defects.get(done.verdict.value, ()) if c.name in repair.applied)
        if not repaired:
            return None
        again = self._repaired_check(repair.entry, done)
        residual = {verdict: tuple(c for c in causes if c.name not in repair.applied) for verdict, causes in defects.items()}
        if valid(again) or is_shared(again) or explaining(again, residual):
            named = explaining(done, {done.verdict.value: [c for c in defects[done.verdict.value] if c.name in repaired]})
            return replace(done, causes=named or repaired, repaired=_repaired(repair.applied, again, True))
        if again.verdict is done.verdict:
            return replace(done, causes=(), repaired=_repaired(repair.applied, again, True))
        return replace(done, causes=explaining(done, defects), repaired=_repaired(repair.applied, again, False))

    def _repaired_check(self, entry, done: Check) -> Check:
        """The repaired candidate on the instance of ``done``, beside the baseline's check there."""
        key = (entry.name, done.instance)
        if key not in self._repaired_checks:
            own = check(entry, done.instance, done.family, done.oracle)
            self._repaired_checks[key] = with_baseline(own, done.counterpart, done.baseline)
        return self._repaired_checks[key]

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


def _repaired(repairs: tuple[str, ...], again: Check, decided: bool) -> Repaired:
    return Repaired(repairs, again.verdict, again.judgement.detail, decided)
