"""The differential check: run a solver on an instance and judge it against the oracle."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from knapcheck.fuzz.overshoot import Overshoots
from knapcheck.oracles.optimum import optimum
from knapcheck.oracles.result import OracleResult
from knapcheck.oracles.verdict import Judgement, Verdict, judge
from knapcheck.solvers.contract import Instance
from knapcheck.solvers.outcome import Outcome
from knapcheck.solvers.entry import SolverEntry
from knapcheck.solvers.running import run


@dataclass(frozen=True)
class Check:
    """One solver on one instance: what it did, what the oracle says, the verdict."""

    solver: SolverEntry
    family: str
    instance: Instance
    outcome: Outcome = field(repr=False)
    oracle: OracleResult = field(repr=False)
    judgement: Judgement

    @property
    def verdict(self) -> Verdict:
        return self.judgement.verdict

    @property
    def failed(self) -> bool:
        return self.judgement.failed(self.solver.exact)

    @property
    def oracle_disagreement(self) -> str:
        """Why the oracle, not the solver, is wrong on this instance (an oracle finding); empty if it is not."""
        return self.judgement.oracle_disagreement

    @property
    def signature(self) -> tuple[str, str]:
        """Failures with the same signature are one defect: the solver and the kind of verdict."""
        return self.solver.name, self.verdict.value


def check(entry: SolverEntry, instance: Instance, family: str = "", oracle: OracleResult | None = None) -> Check:
    """``oracle`` is reused when it solved the rounding the solver promises (``SolverEntry.rounding``)."""
    if oracle is None or oracle.rounding != entry.rounding:
        oracle = optimum(instance, rounding=entry.rounding)
    outcome = run(entry, instance)
    judgement = judge(instance, outcome, oracle, accepted=size_allows(entry, instance))
    return Check(entry, family, instance, outcome, oracle, judgement)


def size_allows(entry: SolverEntry, instance: Instance) -> bool:
    weights, capacity = instance.quantized(entry.rounding)
    return entry.accepts(len(weights), capacity)


@dataclass
class CheckResult:
    solvers: list[SolverEntry]
    counts: dict[str, Counter] = field(default_factory=dict)
    """Verdict counts per solver name."""
    findings: list[Check] = field(default_factory=list)
    """One minimal failing check per distinct signature."""
    oracle_findings: list[Check] = field(default_factory=list)
    """Every check whose oracle was shown wrong (``Check.oracle_disagreement``), with its instance."""
    failures_by_instance: list[dict[str, str | None]] = field(default_factory=list)
    """For each checked instance, in order: each solver that checked it, with its failing verdict,
    or None where it passed (what tells a regression from a failure the baseline shares)."""
    instances: int = 0
    skipped: int = 0
    """Sampled instances left unchecked because the time budget ran out."""
    overshoots: Overshoots = field(default_factory=Overshoots)
    """How far each answer's real memory exceeded max_memory, by solver and family (run_check fills it)."""

    def our_failures(self) -> list[Check]:
        return [f for f in self.findings if f.solver.ours]

    def __post_init__(self) -> None:
        for entry in self.solvers:
            self.counts.setdefault(entry.name, Counter())
