"""The correctness half of `knapcheck report`: a candidate (and a baseline) through every family.

Every target runs isolated (knapcheck.solvers.isolation.worker), whatever its entry says: the report is about code
under review, and a crash, a hang or a runaway allocation must end in a verdict, not end the run.
Candidate and baseline are checked in one run_check, so the oracle answers each instance once and
each candidate solver carries its counterpart baseline's check of every instance
(``knapcheck.fuzz.judging.verdicts.gate`` pairs them and holds the rule; the known-failure corpus's causes
are the baselines' known defects). Workers are started before the clock of the
time budget starts: importing torch five times over must not eat the first family's share. A
target that cannot even be loaded, or a candidate without a single counterpart, stops the run
with a ValueError: a table of verdicts about code that never ran, or compared with the wrong
baseline, would mislead.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Sequence

from ...solvers.contract import Instance
from ...solvers.entry import SolverEntry
from ...solvers.isolation.worker import current_pool
from ...solvers.registry import with_isolation
from ..corpus.known_failures import KnownFailure
from ..instances.families import names
from ..judging.verdicts.differential import Check, CheckResult
from ..judging.verdicts.gate import BASELINE, CANDIDATE, Decision, decide, pair
from .check import run_check


@dataclass
class CandidateRun:
    roles: dict[str, str]
    """Solver name -> CANDIDATE or BASELINE."""
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

    def gate(self, strict: bool = False, max_quality_loss: float | None = None) -> Decision:
        return decide(
            self.result.findings,
            [e.name for e in self.entries(CANDIDATE)],
            len(self.result.oracle_findings),
            baseline=bool(self.entries(BASELINE)),
            strict=strict,
            comparisons=self.result.comparisons,
            max_quality_loss=max_quality_loss,
        )


def run_candidate(
    candidate: Iterable[SolverEntry],
    baseline: Iterable[SolverEntry] = (),
    family_names: Iterable[str] | None = None,
    per_family: int = 40,
    seed_value: int = 0,
    time_budget: float | None = None,
    progress: Callable[[str], None] = lambda message: None,
    stored: Mapping[str, Sequence[Instance]] | None = None,
    known_cases: Sequence[KnownFailure] = (),
    stop_requested: Callable[[], str] = lambda: "",
) -> CandidateRun:
    """``stored``: instances to check besides the families' samples, by source (the regression
    corpus); ``known_cases``: the corpus cases that tell known failures from new ones when there
    is no baseline, and whose causes are the baselines' known defects; ``stop_requested``: see
    ``run_check``."""
    candidate = [with_isolation(e) for e in candidate]
    baseline = [with_isolation(e) for e in baseline]
    if not candidate:
        raise ValueError("candidate must name at least one solver")
    pair(candidate, baseline)
    roles = {**{e.name: BASELINE for e in baseline}, **{e.name: CANDIDATE for e in candidate}}
    entries = candidate + baseline
    families = names() if family_names is None else list(family_names)
    progress(f"starting {len(entries)} worker processes")
    unloadable = current_pool().start(entries, second_for_exact=True)
    if unloadable:
        raise ValueError(
            "cannot load " + "; ".join(f"{name} ({outcome.error})" for name, outcome in unloadable.items())
        )
    start = time.monotonic()
    stored = stored or {}
    result = run_check(candidate, families, per_family, seed_value, progress, time_budget, stored, baseline, known_cases,
                       stop_requested)
    counts = {name: len(instances) for name, instances in stored.items()}
    return CandidateRun(roles, result, families, counts, time.monotonic() - start, time_budget)
