"""The differential check: run a solver on an instance and judge it against the oracle (and, given
a baseline, beside its baseline's check on the same instance).

A check carries what the solver did, what the oracle proved and the verdict. A differential
check also carries its counterpart baseline's check of the same instance, and is named by its
``Signature``: (target, verdict, baseline verdict). A solver that promises the optimum may be
called twice on one instance (``determinism_calls``), an isolated one also in a second process
whose str hashes differ; two answers that differ are the verdict NONDETERMINISTIC, whatever each
answer was worth.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

from ....oracles.optimum import optimum
from ....oracles.result import OracleResult
from ....oracles.verdict import Judgement, Verdict, judge
from ....solvers.contract import Instance
from ....solvers.contract.outcome import Outcome
from ....solvers.entry import SolverEntry
from ....solvers.isolation import hash_seeds
from ....solvers.isolation.running import run
from .comparison import Comparison
from .overshoot import Overshoots
from .signature import Signature

NOT_RUN = "NOT_RUN"
"""The baseline verdict on an instance its counterpart was not run on (a size its entry does not accept)."""


def instance_id(instance: Instance) -> str:
    """A stable name for an instance: a hash of its content (memory, runtimes and budget, each
    float by its shortest repr), the same in every process and on every machine."""
    text = json.dumps(instance.as_dict(), separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Check:
    """One solver on one instance: what it did, what the oracle says, the verdict."""

    solver: SolverEntry
    family: str
    instance: Instance
    outcome: Outcome = field(repr=False)
    oracle: OracleResult = field(repr=False)
    judgement: Judgement
    second: Outcome | None = field(default=None, repr=False)
    """The second call's outcome, when the solver was called twice on the instance."""
    counterpart: SolverEntry | None = field(default=None, repr=False)
    """The baseline this check is compared with; None when it has none."""
    baseline: Check | None = field(default=None, repr=False)
    """The counterpart's check of the same instance; None without a counterpart or when it was not run."""
    causes: tuple[str, ...] = ()
    """Known defects that explain this failure (``knapcheck.fuzz.judging.known.defects``): for a target's
    failure its baseline does not share, the baseline's defects whose reach holds it, or whose
    repair in the target's source makes it pass; for a baseline's own failure, its defects that may
    have caused it."""
    repaired: Repaired | None = field(default=None, repr=False)
    """The target with its baseline's known defects repaired, checked on the same instance, where
    one was (``knapcheck.fuzz.judging.known.by_cause``); None where none was."""

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
    def baseline_verdict(self) -> str | None:
        if self.counterpart is None:
            return None
        return NOT_RUN if self.baseline is None else self.baseline.verdict.value

    @property
    def differential_signature(self) -> Signature:
        """What names the finding in a check (``knapcheck.fuzz.judging.verdicts.signature``): solver, verdict
        and the baseline's verdict on the same instance, without the known defects that explain it
        (the gate's status tells a regression from a known defect beside it)."""
        return Signature(self.solver.name, self.verdict.value, self.baseline_verdict or "")

    @property
    def instance_id(self) -> str:
        return instance_id(self.instance)


@dataclass(frozen=True)
class Repaired:
    """A target's failure checked again with its baseline's known defects repaired in its source."""

    repairs: tuple[str, ...]
    """The defects repaired."""
    verdict: Verdict
    """The repaired target's verdict on the failure's instance."""
    detail: str
    decided: bool
    """Whether that decided the failure's cause (the repaired target passes there, or still fails
    the same way); False when it fails otherwise, and the known defects' reach decided."""


def determinism_calls(entry: SolverEntry) -> int:
    """How many calls a determinism check makes: two for a solver that promises the optimum (its
    answer is fully determined by its input), one for a heuristic."""
    return 2 if entry.exact else 1


def check(
    entry: SolverEntry, instance: Instance, family: str = "", oracle: OracleResult | None = None, *, calls: int = 1
) -> Check:
    """``oracle`` is reused when it solved the rounding the solver promises (``SolverEntry.rounding``).
    With ``calls=2`` a solver that returned is called again, and two answers that differ make the
    verdict NONDETERMINISTIC."""
    return judged(entry, instance, family, oracle, *call(entry, instance, calls))


Called = tuple[Outcome, Outcome | None, str]
"""What calling a solver on an instance gives (``call``): its outcome, the second call's when it was
called twice, and where that second call ran when not beside the first."""


def call(
    entry: SolverEntry, instance: Instance, calls: int = 1, stopped: Callable[[], bool] = lambda: False
) -> Called:
    """The solver's outcome on the instance and, when ``calls`` > 1 and the first returned, the
    outcome of calling it again, with where that call ran when not beside the first.

    Called again in its own process first (state kept between calls shows there); an isolated
    solver that answers alike is then called in a second worker process whose str hashes differ
    (``knapcheck.solvers.isolation.hash_seeds``): a tie-break that follows ``hash()`` shows only there.
    Once ``stopped()`` says so (a stop request), no further call starts: the outcomes so far stand.
    """
    outcome = run(entry, instance)
    if calls < 2 or not outcome.returned or stopped():
        return outcome, None, ""
    again = run(entry, instance)
    if stopped() or not entry.isolate or answers_differ(outcome, again):
        return outcome, again, ""
    elsewhere = f"in two processes whose str hashes differ (PYTHONHASHSEED {hash_seeds.FIRST}, then {hash_seeds.SECOND})"
    return outcome, run(entry, instance, other_process=True), elsewhere


def judged(
    entry: SolverEntry,
    instance: Instance,
    family: str,
    oracle: OracleResult | None,
    outcome: Outcome,
    second: Outcome | None = None,
    elsewhere: str = "",
) -> Check:
    """The check of outcomes already obtained (``call``)."""
    if oracle is None or oracle.rounding != entry.rounding:
        oracle = optimum(instance, rounding=entry.rounding)
    judgement = judge(instance, outcome, oracle, accepted=size_allows(entry, instance))
    if second is not None:
        difference = answers_differ(outcome, second, elsewhere)
        if difference:
            judgement = Judgement(Verdict.NONDETERMINISTIC, difference, memory_slack=judgement.memory_slack)
    return Check(entry, family, instance, outcome, oracle, judgement, second)


def check_against(
    entry: SolverEntry,
    counterpart: SolverEntry | None,
    instance: Instance,
    family: str = "",
    oracle: OracleResult | None = None,
    *,
    calls: int = 1,
) -> Check:
    """A check of ``entry`` carrying its counterpart baseline's check of the same instance (each
    solver called ``calls`` times if it promises the optimum; the baseline is not run on a size
    its entry does not accept)."""
    done = check(entry, instance, family, oracle, calls=min(calls, determinism_calls(entry)))
    if counterpart is None:
        return done
    base = None
    if size_allows(counterpart, instance):
        base = check(counterpart, instance, family, done.oracle, calls=min(calls, determinism_calls(counterpart)))
    return with_baseline(done, counterpart, base)


def with_baseline(done: Check, counterpart: SolverEntry, baseline: Check | None) -> Check:
    return Check(done.solver, done.family, done.instance, done.outcome, done.oracle, done.judgement, done.second,
                 counterpart, baseline)


def _answer_key(outcome: Outcome) -> tuple:
    if not outcome.returned:
        return (outcome.kind,)
    answer: Any = outcome.answer  # of any shape a stored check holds: what fails to read is unreadable
    try:
        value, saved, recomputable = answer
        return (repr(float(value)), sorted(int(i) for i in saved), sorted(int(i) for i in recomputable))
    except Exception:
        return ("unreadable", repr(outcome.answer))


def answers_differ(first: Outcome, second: Outcome, elsewhere: str = "") -> str:
    """What differs between two calls' answers (value and sets, order aside); '' when nothing does.
    ``elsewhere``: where the two calls ran, when not in one process."""
    a, b = _answer_key(first), _answer_key(second)
    if a == b:
        return ""
    shown = [repr(o.answer)[:200] if o.returned else f"{o.kind}: {o.error[:150]}" for o in (first, second)]
    return f"two calls on one input{' ' + elsewhere if elsewhere else ''} disagree: first {shown[0]}, then {shown[1]}"


def size_allows(entry: SolverEntry, instance: Instance) -> bool:
    weights, capacity = instance.quantized(entry.rounding)
    return entry.accepts(len(weights), capacity)


@dataclass(frozen=True)
class Source:
    """Where checked instances came from: a family's sample or list, or stored instances."""

    name: str
    kind: str
    """``sampled`` (a family drawn from the seed), ``enumerated`` (a family listed in full) or ``stored``."""
    instances: int
    digest: str
    """A hash of the ordered instance ids: equal digests, equal lists."""


def digest(instances) -> str:
    ids = ",".join(instance_id(i) for i in instances)
    return hashlib.sha256(ids.encode()).hexdigest()[:16]


@dataclass
class CheckResult:
    solvers: list[SolverEntry]
    counts: dict[str, Counter] = field(default_factory=dict)
    """Verdict counts per solver name."""
    findings: list[Check] = field(default_factory=list)
    """One minimal failing check per distinct differential signature."""
    oracle_findings: list[Check] = field(default_factory=list)
    """Every check whose oracle was shown wrong (``Check.oracle_disagreement``), with its instance."""
    instances: int = 0
    skipped: int = 0
    """Instances left unchecked because the time budget ran out or the run was asked to stop."""
    overshoots: Overshoots = field(default_factory=Overshoots)
    """How far each answer's real memory exceeded max_memory, by solver and family (run_check fills it)."""
    counterparts: dict[str, str] = field(default_factory=dict)
    """Target name -> the name of the baseline it is compared with, instance by instance."""
    baselines: list[str] = field(default_factory=list)
    """The names of the solvers checked as baselines (the others are targets)."""
    comparisons: dict[str, Comparison] = field(default_factory=dict)
    """Target name -> how it fared against its baseline on the instances both were run on."""
    sources: list[Source] = field(default_factory=list)
    repeated: Counter = field(default_factory=Counter)
    """Solver name -> instances it was called on twice (the determinism check)."""
    interventions: dict = field(default_factory=dict)
    """Target name -> what repairing its baseline's known defects in its source did
    (``knapcheck.fuzz.judging.known.repaired.Intervention``), for the targets whose failures needed it."""
    known: dict[Signature, str] = field(default_factory=dict)
    """Signature of a finding without a baseline -> the id of the corpus case that explains it
    (``knapcheck.fuzz.judging.known.known``); a finding not in it is new."""
    stopped_by: str = ""
    sources_changed: dict[str, str] = field(default_factory=dict)
    """Target name -> how its file changed during the run (``knapcheck.fuzz.judging.known.frozen_source``):
    then the run judged more than one version of it, and is incomplete."""
    """Why the run stopped before it was done ("interrupted", "terminated"); empty when it did not."""

    def our_failures(self) -> list[Check]:
        return [f for f in self.findings if f.solver.ours]

    def __post_init__(self) -> None:
        for entry in self.solvers:
            self.counts.setdefault(entry.name, Counter())
