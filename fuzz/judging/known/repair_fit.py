"""Whether a repair fits a candidate: the repaired candidate keeps every pass of the candidate.

A repair of a known defect is evidence about a candidate's failure only where it fits the
candidate's code. Structure alone (``knapcheck.fuzz.judging.known.source_repair``) cannot tell that the
code around a match means what torch's does: a fix that names the profile's width differently
leaves torch's split line in place, now right, and the split repair would then hand out one unit too
few. So a repaired candidate is checked on a stated sample of small instances (``FIT_FAMILIES``,
``FIT_PER_FAMILY`` each, seed 0: the same in every driver) against the candidate itself: wherever
the candidate's answer is valid, the repaired one's must be valid too. A repair, or a set of
repairs, that breaks one of those passes does not fit, and is never used as evidence.

Its limit: a repair that breaks only instances outside the sample fits here; such a repair can
still only explain failures its cause can produce (``knapcheck.fuzz.judging.known.by_cause``).
"""

from __future__ import annotations

from functools import cached_property

from ....oracles.optimum import optimum
from ....oracles.result import OracleResult
from ....solvers.contract import Instance
from ....solvers.entry import SolverEntry
from ...instances import families
from ..verdicts.differential import Check, check
from ..verdicts.gate import valid

FIT_FAMILIES = ("tiny", "tight_budget", "zero_items", "heavy_items", "duplicates_ties")
"""Small instances of every shape the catalogued defects hinge on: tight budgets (a unit more or
less decides), zero weights and runtimes, items past the budget, ties."""
FIT_PER_FAMILY = 6


class RepairFit:
    """The stated sample, each instance's oracle, and each candidate's passes on it (computed once)."""

    def __init__(self, sample: list[tuple[str, Instance]] | None = None) -> None:
        self._given = sample
        self._passes: dict[str, list[int]] = {}
        self._verdicts: dict[tuple[str, str], str] = {}

    @cached_property
    def sample(self) -> list[tuple[str, Instance]]:
        if self._given is not None:
            return self._given
        return [(name, instance) for name in FIT_FAMILIES for instance in families.get(name).draw(FIT_PER_FAMILY, 0)]

    @cached_property
    def oracles(self) -> list[OracleResult]:
        return [optimum(instance) for _, instance in self.sample]

    def _check(self, entry: SolverEntry, k: int) -> Check:
        family, instance = self.sample[k]
        return check(entry, instance, family, self.oracles[k])

    def passes(self, candidate: SolverEntry) -> list[int]:
        """The positions of the sample where the candidate's answer is valid."""
        if candidate.name not in self._passes:
            self._passes[candidate.name] = [k for k in range(len(self.sample)) if valid(self._check(candidate, k))]
        return self._passes[candidate.name]

    def broken(self, candidate: SolverEntry, repaired: SolverEntry) -> str:
        """'' where ``repaired`` is valid wherever ``candidate`` is on the sample; else the first
        instance where it is not, in words (the verdict, the family, the instance)."""
        key = (candidate.name, repaired.spec)
        if key not in self._verdicts:
            self._verdicts[key] = ""
            for k in self.passes(candidate):
                again = self._check(repaired, k)
                if not valid(again):
                    family, instance = self.sample[k]
                    self._verdicts[key] = (f"it does not fit this code: the repaired candidate is {again.verdict.value}"
                                           f" where the candidate is right ({family}: {_shown(instance)})")
                    break
        return self._verdicts[key]


def _shown(instance: Instance) -> str:
    return f"memory={list(instance.memory)}, runtimes={list(instance.runtimes)}, max_memory={instance.max_memory}"
