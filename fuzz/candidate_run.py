"""The correctness half of `knapcheck report`: a candidate (and a baseline) through every family.

Every target runs isolated (knapcheck.solvers.isolation), whatever its entry says: the report is about code
under review, and a crash, a hang or a runaway allocation must end in a verdict, not end the run.
Candidate and baseline are checked in one run_check, so the oracle answers each instance once.
Workers are started before the clock of the time budget starts: importing torch five times over
must not eat the first family's share. A target that cannot even be loaded stops the run with a
ValueError: a table of verdicts about code that never ran would mislead.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from knapcheck.fuzz.check import run_check
from knapcheck.fuzz.families import names
from knapcheck.fuzz.differential import Check, CheckResult
from knapcheck.solvers import specs
from knapcheck.solvers.contract import Instance
from knapcheck.solvers.entry import SolverEntry
from knapcheck.solvers.isolation import start_workers
from knapcheck.solvers.registry import with_isolation

CANDIDATE = "candidate"
BASELINE = "baseline"


@dataclass
class CandidateRun:
    roles: dict[str, str]
    """Solver name -> CANDIDATE or BASELINE (a solver named by both counts as the candidate)."""
    result: CheckResult
    families: list[str]
    stored: dict[str, int]
    """Stored instances checked besides the families' samples: how many, by source name."""
    seconds: float
    time_budget: float | None

    def entries(self, role: str) -> list[SolverEntry]:
        return [e for e in self.result.solvers if self.roles[e.name] == role]

    def findings(self, role: str) -> list[Check]:
        return [f for f in self.result.findings if self.roles[f.solver.name] == role]

    def counterparts(self, name: str) -> list[str]:
        """The baseline solvers a candidate solver is compared with: those whose function has its
        name (``pr/knapsack.py:dp_knapsack`` against ``torch:dp_knapsack``), else every baseline."""
        baselines = self.entries(BASELINE)
        mine = _function_name(next(e for e in self.result.solvers if e.name == name))
        same = [e.name for e in baselines if _function_name(e) == mine]
        return same or [e.name for e in baselines]

    def is_regression(self, failure: Check) -> bool:
        """A candidate failure its baseline does not share: a kind of failure (verdict) the baseline
        never shows, or one on an instance the baseline passes. Without a baseline, every one."""
        if self.roles[failure.solver.name] != CANDIDATE:
            return False
        baselines = self.counterparts(failure.solver.name)
        verdict = failure.verdict.value
        if verdict not in {f.verdict.value for f in self.findings(BASELINE) if f.solver.name in baselines}:
            return True
        for failing in self.result.failures_by_instance:
            checked = [failing[b] for b in baselines if b in failing]
            if failing.get(failure.solver.name) == verdict and checked and all(v is None for v in checked):
                return True
        return False

    def regressions(self) -> list[Check]:
        return [f for f in self.findings(CANDIDATE) if self.is_regression(f)]

    def gate_failures(self, strict: bool) -> list[Check]:
        """What fails the report: the candidate's regressions, or with ``strict`` any failure of it."""
        return self.findings(CANDIDATE) if strict else self.regressions()

    def fixed(self) -> list[Check]:
        """Baseline failures whose kind of verdict no candidate compared with that baseline shows."""
        fixed = []
        for failure in self.findings(BASELINE):
            compared = [e.name for e in self.entries(CANDIDATE) if failure.solver.name in self.counterparts(e.name)]
            if not any(f.verdict == failure.verdict for f in self.findings(CANDIDATE) if f.solver.name in compared):
                fixed.append(failure)
        return fixed


def _function_name(entry: SolverEntry) -> str:
    return specs.parse(entry.spec).name


def run_candidate(
    candidate: Iterable[SolverEntry],
    baseline: Iterable[SolverEntry] = (),
    family_names: Iterable[str] | None = None,
    per_family: int = 40,
    seed_value: int = 0,
    time_budget: float | None = None,
    progress: Callable[[str], None] = lambda message: None,
    stored: dict[str, Sequence[Instance]] | None = None,
) -> CandidateRun:
    """``stored``: instances to check besides the families' samples, by source (the regression corpus)."""
    roles: dict[str, str] = {}
    entries: list[SolverEntry] = []
    for role, group in ((CANDIDATE, candidate), (BASELINE, baseline)):
        for entry in group:
            if entry.name not in roles:
                roles[entry.name] = role
                entries.append(with_isolation(entry))
    if not any(role == CANDIDATE for role in roles.values()):
        raise ValueError("candidate must name at least one solver")
    families = names() if family_names is None else list(family_names)
    isolated = [e for e in entries if e.isolate]
    progress(f"starting {len(isolated)} worker processes")
    unloadable = start_workers(isolated)
    if unloadable:
        raise ValueError(
            "cannot load " + "; ".join(f"{name} ({outcome.error})" for name, outcome in unloadable.items())
        )
    start = time.monotonic()
    stored = stored or {}
    result = run_check(entries, families, per_family, seed_value, progress, time_budget, stored)
    counts = {name: len(instances) for name, instances in stored.items()}
    return CandidateRun(roles, result, families, counts, time.monotonic() - start, time_budget)
