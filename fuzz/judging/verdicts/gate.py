"""The gate: which failures fail `knapcheck check` and `knapcheck report`, decided in one place.

The differential rule judges a failure by its cause. A target given a baseline is compared with
one counterpart: the baseline of the same function name (``pr/knapsack.py:dp_knapsack`` with
``torch:dp_knapsack``), else the only baseline. Both are judged on every instance, and a failure
is named by its signature (target, verdict, the baseline's verdict on that same instance). It is
shared ("also in baseline") when the baseline fails the same way there. Otherwise the baseline's
known defects (``knapcheck.fuzz.judging.known.defects``: the causes its corpus cases name) decide: a
failure within the reach of one that causes its verdict (an instance of its trait, a failure
within its bound) is a "known defect, now visible", information; one outside all of them is a
regression, and only regressions fail the gate. A failure is called known only once no
reproduction outside those reaches is found (knapcheck.fuzz.runs.check takes it out of each
defect's reach and shrinks it there, and a failure that survives is a regression reproduced on
that instance), so a known defect never hides a new one. A defect that reaches every instance
(the Hirschberg split) explains nothing beyond the instance: there the baseline's own verdict
decides. A verdict no known defect of the baseline causes is a regression wherever the baseline
does not fail that way. Without a baseline every failure of a gated target counts; with
``strict`` every failure counts, shared and known ones included. An oracle shown wrong fails the
gate in every case: no verdict of that run can be trusted. A heuristic that saves less runtime
than its baseline is information, a failure only past ``max_quality_loss``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ....oracles.exact import set_value
from ....oracles.verdict import Verdict
from ....solvers import specs
from ....solvers.entry import SolverEntry
from .comparison import Comparison
from .differential import Check

CANDIDATE = "candidate"
BASELINE = "baseline"

REGRESSION = "regression"
"""A failure whose cause is new: its baseline does not fail that way, and no known defect of the
baseline explains it. It fails the gate."""
SHARED = "also in baseline"
"""A failure its baseline shows on the same instance, with the same verdict."""
VISIBLE = "known defect, now visible"
"""A failure its baseline does not share on that instance, which a known defect of the baseline
explains (``Check.causes``): information, never a gate failure."""
NEW = "new"
"""Without a baseline: a failure no case of the known-failure corpus explains."""
KNOWN = "known"
"""Without a baseline: a failure a case of the known-failure corpus explains (knapcheck.fuzz.judging.known.known)."""
OF_BASELINE = "baseline"
"""A failure of a baseline solver itself (shown, never counted)."""

DIFFERENTIAL_RULE = (
    "the differential rule (the default): a failure counts when its cause is new, that is when it shows where the"
    " baseline does not fail that way, outside the reach of every known defect of the baseline that causes its"
    " verdict; failures the baseline shares, and its known defects made visible, do not"
)
NO_BASELINE_RULE = "no baseline: every failure of a gated target counts"
STRICT_RULE = "the strict rule (--strict): every failure of a gated target counts, shared and known ones included"


def function_name(entry: SolverEntry) -> str:
    return specs.parse(entry.spec).name


def pair(targets: Sequence[SolverEntry], baselines: Sequence[SolverEntry]) -> dict[str, SolverEntry]:
    """Each target's counterpart: the baseline whose function has the target's name, else the only
    baseline. ValueError (one line) when a target is also a baseline, or has no single counterpart."""
    if not baselines:
        return {}
    names = {b.name for b in baselines}
    pairs = {}
    for target in targets:
        if target.name in names:
            raise ValueError(f"{target.name} is named both as a target and as a baseline")
        same = [b for b in baselines if function_name(b) == function_name(target)]
        if len(same) == 1:
            pairs[target.name] = same[0]
        elif len(baselines) == 1:
            pairs[target.name] = baselines[0]
        else:
            which = "several baselines are" if same else "no baseline is"
            raise ValueError(
                f"{target.name} has no counterpart: {which} a function named {function_name(target)!r}"
                f" among {', '.join(sorted(names))}; give one baseline, or one per function name"
            )
    return pairs


def counterparts(targets: Sequence[SolverEntry], baselines: Sequence[SolverEntry]) -> list[SolverEntry]:
    """The baselines that are some target's counterpart, in their order: the only ones worth
    running, since a baseline no target is compared with decides nothing. ValueError as ``pair``."""
    paired = pair(targets, baselines).values()
    return [b for b in baselines if any(b is p for p in paired)]


def valid(done: Check) -> bool:
    """An answer that keeps the solver's promise and was proven to (UNVERIFIED never counts as a pass)."""
    return not done.failed and done.verdict is not Verdict.UNVERIFIED


def _not_shared(done: Check) -> bool:
    return done.failed and done.counterpart is not None and done.baseline_verdict != done.verdict.value


def is_regression(done: Check) -> bool:
    """A failure of a target compared with a baseline that, on the same instance, did not fail the
    same way, and that no known defect of the baseline explains."""
    return _not_shared(done) and not done.causes


def is_visible(done: Check) -> bool:
    """A failure the baseline does not share on the instance, which a known defect of the baseline explains."""
    return _not_shared(done) and bool(done.causes)


def is_shared(done: Check) -> bool:
    return done.failed and done.counterpart is not None and done.baseline_verdict == done.verdict.value


def counts(done: Check, strict: bool = False) -> bool:
    """Whether a failure of a gated target fails the gate."""
    if not done.failed:
        return False
    return strict or done.counterpart is None or is_regression(done)


def record(comparison: Comparison, done: Check) -> None:
    """Tally one instance of a target against its baseline (``done`` carries both checks)."""
    base = done.baseline
    if is_regression(done):
        comparison.regressed[done.verdict.value, done.baseline_verdict] += 1
    elif is_visible(done):
        comparison.visible[done.verdict.value, done.baseline_verdict, done.causes] += 1
    if base is None:
        return
    comparison.instances += 1
    comparison.same_verdict += done.verdict is base.verdict
    if is_shared(done):
        comparison.shared[done.verdict.value] += 1
    elif base.failed and valid(done):
        comparison.fixed[base.verdict.value] += 1
        comparison.fixed_causes[base.verdict.value, base.causes] += 1
    if valid(done) and valid(base):
        saved, baseline_saved = _saved(done), _saved(base)
        comparison.add_selection(done.instance, saved, baseline_saved, _value(done), _value(base))
        if saved is not None and baseline_saved is not None:
            comparison.quality.add(done.instance, set_value(done.instance, saved), set_value(base.instance, baseline_saved))


def _saved(done: Check) -> tuple[int, ...] | None:
    answer: Any = done.outcome.answer  # of any shape a stored check holds: what fails to read is None
    try:
        return tuple(sorted(int(i) for i in answer[1]))
    except Exception:
        return None


def _value(done: Check) -> float:
    answer: Any = done.outcome.answer  # of any shape a stored check holds: what fails to read is nan
    try:
        return float(answer[0])
    except Exception:
        return float("nan")


def status(done: Check, role: str, known_case: str | None = None) -> str:
    """How a finding reads in a report: a baseline's own, a regression or shared (against a
    baseline), or known or new (without one)."""
    if role == BASELINE:
        return OF_BASELINE
    if done.counterpart is not None:
        return REGRESSION if is_regression(done) else VISIBLE if is_visible(done) else SHARED
    return KNOWN if known_case else NEW


def quality_failing(comparisons: Mapping[str, Comparison], max_loss: float | None) -> list[str]:
    """The targets that save less runtime than their baseline, on some instance where both are
    valid, by more than ``max_loss`` of it (none without a limit)."""
    if max_loss is None:
        return []
    return [t for t, c in comparisons.items() if c.quality.worst is not None and c.quality.worst.loss > max_loss]


@dataclass(frozen=True)
class Decision:
    failing: list[Check]
    """The findings that fail the gate."""
    oracle_findings: int
    rule: str
    quality_failing: list[str] = field(default_factory=list)
    """The targets whose quality loss against their baseline is past the limit asked for."""

    @property
    def passed(self) -> bool:
        return not self.failing and not self.oracle_findings and not self.quality_failing


def decide(
    findings: Iterable[Check],
    gated: Iterable[str],
    oracle_findings: int,
    *,
    baseline: bool,
    strict: bool = False,
    comparisons: Mapping[str, Comparison] | None = None,
    max_quality_loss: float | None = None,
) -> Decision:
    """The gate on a run's findings: the failures of the ``gated`` solvers that count under the
    rule (``baseline``: whether the gated solvers were compared with one), and, given
    ``max_quality_loss``, the gated targets that save less runtime than their baseline past it."""
    gated = set(gated)
    failing = [f for f in findings if f.solver.name in gated and counts(f, strict)]
    rule = STRICT_RULE if strict else DIFFERENTIAL_RULE if baseline else NO_BASELINE_RULE
    worse = [t for t in quality_failing(comparisons or {}, max_quality_loss) if t in gated]
    return Decision(failing, oracle_findings, rule, worse)
