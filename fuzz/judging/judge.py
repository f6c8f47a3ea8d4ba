"""The judge: the decision on one instance, the one ``check``, ``report``, ``fuzz``, the pytest
plugin and ``export-tests`` all call.

On an instance the judge takes the entries that promise to solve its size (``Judge.runnable``),
judges each one's outcome against the oracle (``knapcheck.fuzz.judging.verdicts.differential.judged``),
puts each target beside its counterpart baseline's check of the same instance, and explains each
failure by the baseline's known defects (``knapcheck.fuzz.judging.known.by_cause``). The gate
(``knapcheck.fuzz.judging.verdicts.gate``) reads the status of each check the judge decides; drivers only
call the solvers, hand the outcomes to the judge, and tally what it decides.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ...oracles.result import OracleResult
from ...solvers.contract import Instance
from ...solvers.entry import SolverEntry
from .known.by_cause import Causes
from .verdicts.differential import Called, Check, call, determinism_calls, judged, size_allows, with_baseline


class Judge:
    """The decision on one instance, for one run's targets, their counterparts and the baselines' known defects."""

    def __init__(self, counterparts: Mapping[str, SolverEntry] | None = None, causes: Causes | None = None) -> None:
        """``counterparts``: target name -> its baseline (``knapcheck.fuzz.judging.verdicts.gate.pair``).
        ``causes``: the baselines' known defects; without them (``export-tests``) a failure is
        judged on the oracle alone."""
        self.counterparts: Mapping[str, SolverEntry] = counterparts or {}
        self.causes = causes

    @staticmethod
    def runnable(entries: Iterable[SolverEntry], instance: Instance) -> list[SolverEntry]:
        """The entries run on an instance: those that promise to solve its size (``size_allows``).
        Past its size an entry is not run, so neither judged: a target whose baseline was not run
        there is not run either, when both take one limit."""
        return [entry for entry in entries if size_allows(entry, instance)]

    def outcomes(self, instance: Instance, family: str, oracle: OracleResult | None,
                 called: Iterable[tuple[SolverEntry, Called]]) -> dict[str, Check]:
        """Each entry's outcomes on the instance (``call``: one, or two when it was called twice), judged
        against ``oracle`` (None: the oracle asked for each entry's rounding, once per instance) and
        decided (``decided``), by entry name."""
        return self.decided({entry.name: judged(entry, instance, family, oracle, *outcomes) for entry, outcomes in called})

    def decided(self, checks: Mapping[str, Check]) -> dict[str, Check]:
        """One instance's checks (of the ``runnable`` entries, by name) explained by cause, each
        target's beside its counterpart baseline's check (``NOT_RUN`` where that was not run)."""
        done = {name: self._explained(checked) for name, checked in checks.items()}
        for name, checked in done.items():
            baseline = self.counterparts.get(name)
            if baseline is not None:
                done[name] = self._explained(with_baseline(checked, baseline, done.get(baseline.name)))
        return done

    def called(self, entry: SolverEntry, instance: Instance, family: str = "", calls: int = 1) -> Check:
        """``entry`` and its counterpart (where it promises the instance's size) called on the
        instance, each ``calls`` times if it promises the optimum, and decided: ``entry``'s check."""
        counterpart = self.counterparts.get(entry.name)
        entries = [entry, *self.runnable([] if counterpart is None else [counterpart], instance)]
        called = [(each, call(each, instance, min(calls, determinism_calls(each)))) for each in entries]
        return self.outcomes(instance, family, None, called)[entry.name]

    def _explained(self, done: Check) -> Check:
        return done if self.causes is None else self.causes.explained(done)
