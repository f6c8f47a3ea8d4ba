"""Judging a target's failures by cause: a known defect of its baseline made visible, or a new one.

On one instance (``Causes.explained``): a target's failure its baseline does not share carries the
baseline's known defects whose reach holds it (``knapcheck.fuzz.judging.known.defects``); a baseline's
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

The strongest test of a cause is an intervention, and it comes first wherever it can be made and
fits. The baseline's known defects that cause the failure's verdict, whose reach holds it (a defect
that reaches every instance always may), and whose repair applies to the candidate's own source
(``knapcheck.fuzz.judging.known.repaired``) and fits it (``knapcheck.fuzz.judging.known.repair_fit``: the
repaired candidate keeps the candidate's passes), are repaired together and the repaired candidate
is checked on the failing instance. Still failing the same way means its cause is new: a
regression, whatever the instance's traits, and its reproduction is shrunk keeping that. Passing
there (or failing only as the baseline does, or within the reach of a defect left unrepaired) means
the failure is a known defect, moved: the smallest set of those repairs that does so, tried alone
and together, names it. A repaired candidate that fails otherwise decides nothing, and the reach
rules do, as they do where no repair applies or fits. A repair that does not fit is never used,
and the report says why.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from itertools import combinations

from ....solvers import specs
from ....solvers.contract import Instance
from ....solvers.entry import SolverEntry
from ...corpus.known_failures import KnownFailure
from ..verdicts.differential import Check, Repaired, check, check_against, size_allows, with_baseline
from ..verdicts.gate import is_regression, is_shared, valid
from ..verdicts.shrink import minimal_reproduction
from ..verdicts.signature import Signature
from .defects import CAUSES, Catalogue, catalogue, explaining, leaving, possible_causes, with_causes
from .frozen_source import change_note
from .repair_fit import RepairFit
from .repaired import Intervention, intervention, variant
from .source_repair import Applied


class Causes:
    """The known defects of a run's baselines, and how a target's failure is judged by them."""

    def __init__(self, baselines: Iterable[SolverEntry], cases: Iterable[KnownFailure], fit: RepairFit | None = None,
                 read: Mapping[str, str] | None = None, stopped: Callable[[], bool] = lambda: False) -> None:
        """``read``: each file target's source digest when the run started
        (``knapcheck.fuzz.judging.known.frozen_source``); a source that no longer has it is not repaired.
        ``stopped``: once it says the run was asked to stop, no repaired candidate is called (the
        reach rules judge), so that a stop comes within one call's time."""
        cases = list(cases)
        self.defects: Mapping[str, Catalogue] = {b.name: catalogue(b.name, cases) for b in baselines}
        self.fit = fit or RepairFit()
        self.read = dict(read or {})
        self.stopped = stopped
        self.sources_changed: dict[str, str] = {}
        """Target name -> how its file changed between the run's start and its intervention."""
        self.interventions: dict[str, Intervention] = {}
        """Candidate name -> its baseline's known defects repaired in its source, once it was needed."""
        self._variants: dict[tuple[str, tuple[str, ...]], SolverEntry | str] = {}
        self._repaired_checks: dict[tuple[str, Instance], Check] = {}

    def of(self, solver: str) -> Catalogue:
        return self.defects.get(solver, {})

    def intervention(self, candidate: SolverEntry, baseline: SolverEntry, fitted: Iterable[str] = ()) -> Intervention:
        """The repairs of the baseline's known defects in the candidate's source, each alone (made
        once), with each of ``fitted`` that applies asked whether it fits, and marked not applied
        where it does not. A repair's fit is asked only where it is needed, as evidence or to tell a
        fix by chance: it costs a check of the stated sample."""
        if candidate.name not in self.interventions:
            defects = [cause for causes in self.of(baseline.name).values() for cause in causes]
            made = intervention(candidate, baseline, defects)
            loaded = self.read.get(candidate.name)
            if loaded and made.digest and made.digest != loaded:
                why = change_note(loaded, made.digest)
                self.sources_changed[candidate.name] = why
                made = Intervention(candidate.name, tuple(replace(r, hunks=(), why_not=why) for r in made.results))
            self.interventions[candidate.name] = made
        made = self.interventions[candidate.name]
        asked = set(fitted)
        results = tuple(self._fitted(candidate, baseline, made, r) if r.cause in asked else r for r in made.results)
        if results != made.results:
            self.interventions[candidate.name] = made = replace(made, results=results)
        return made

    def _fitted(self, candidate: SolverEntry, baseline: SolverEntry, made: Intervention, result: Applied) -> Applied:
        """The repair, marked not applied where it does not fit the candidate (why, in its ``why_not``)."""
        if not result.applied or self.stopped():
            return result
        why = self._variant(candidate, baseline, made, (result.cause,))
        return replace(result, why_not=why) if isinstance(why, str) else result

    def _variant(self, candidate: SolverEntry, baseline: SolverEntry, made: Intervention,
                 causes: tuple[str, ...]) -> SolverEntry | str:
        """The candidate with ``causes`` repaired together, where they apply together and fit; else why not."""
        key = (candidate.name, causes)
        if key not in self._variants:
            function = specs.parse(baseline.spec).name
            repairs = [(name, CAUSES[name].repairs[function]) for name in causes]
            entry = variant(candidate, made, repairs)
            if causes and not isinstance(entry, str):
                as_read = self._variant(candidate, baseline, made, ())
                entry = (self.fit.broken(as_read, entry) if not isinstance(as_read, str) else as_read) or entry
            self._variants[key] = entry
        return self._variants[key]

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
        return self._by_repair(done, done.counterpart, defects) or with_causes(done, explaining(done, defects))

    def _by_repair(self, done: Check, counterpart: SolverEntry, defects: Catalogue) -> Check | None:
        """The failure judged by the repaired candidate; None where no repair of a defect that may
        cause it applies and fits."""
        if self.stopped():
            return None
        may_cause = [c.name for c in defects.get(done.verdict.value, ()) if c.may_cause(done)]
        made = self.intervention(done.solver, counterpart, fitted=may_cause)
        relevant = tuple(name for name in may_cause if name in made.applied)
        if not relevant:
            return None
        every = self._variant(done.solver, counterpart, made, relevant)
        if isinstance(every, str):
            return None
        again = self._repaired_check(every, done, counterpart)
        if not self._passes(again, defects, relevant):
            decided = again.verdict is done.verdict
            causes = () if decided else explaining(done, defects)
            return replace(done, causes=causes, repaired=_repaired(relevant, again, decided))
        for size in range(1, len(relevant)):
            for subset in combinations(relevant, size):
                entry = self._variant(done.solver, counterpart, made, subset)
                if isinstance(entry, str):
                    continue
                smaller = self._repaired_check(entry, done, counterpart)
                if self._passes(smaller, defects, subset):
                    return replace(done, causes=subset, repaired=_repaired(subset, smaller, True))
        return replace(done, causes=relevant, repaired=_repaired(relevant, again, True))

    @staticmethod
    def _passes(again: Check, defects: Catalogue, repaired: tuple[str, ...]) -> bool:
        """The repaired candidate passes, fails only as the baseline does, or only within the reach
        of a defect left unrepaired."""
        residual = {verdict: tuple(c for c in causes if c.name not in repaired) for verdict, causes in defects.items()}
        return valid(again) or is_shared(again) or bool(explaining(again, residual))

    def _repaired_check(self, entry: SolverEntry, done: Check, counterpart: SolverEntry) -> Check:
        """The repaired candidate on the instance of ``done``, beside the baseline's check there."""
        key = (entry.name, done.instance)
        if key not in self._repaired_checks:
            own = check(entry, done.instance, done.family, done.oracle)
            self._repaired_checks[key] = with_baseline(own, counterpart, done.baseline)
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

    def shrunk_keeping_causes(self, failure: Check, give_up: Callable[[], bool]) -> Check:
        """The failure shrunk keeping its signature, the known defects that explain it included (a
        regression stays one, a known defect stays that defect), and explained: a campaign's
        SHRINK unit, which has no clean instance to start from."""
        wanted = Signature.of(failure)
        return self.explained(minimal_reproduction(
            failure, give_up, keeps=lambda done: Signature.of(self.explained(done)) == wanted))

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
