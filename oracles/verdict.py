"""The verdict function: (instance, what the solver did, what the oracle proved) -> one verdict.

The same words are used in tests, campaigns and reports (design.md, section 2). Checks run in a
fixed order and the first that fails decides: how the call ended, the partition, the budget, the
selection's value against the oracle, and last the reported value. The selection is what torch
acts on, so a suboptimal selection outranks a misreported total.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction

from oracles.exact import set_value, set_weight
from oracles.result import OracleResult
from solvers import outcome as outcomes
from solvers.contract import Instance, float_tolerance


class Verdict(str, Enum):
    OPTIMAL = "OPTIMAL"
    SUBOPTIMAL = "SUBOPTIMAL"
    OVER_BUDGET = "OVER_BUDGET"
    BAD_PARTITION = "BAD_PARTITION"
    WRONG_VALUE = "WRONG_VALUE"
    REJECTED = "REJECTED"
    CRASH = "CRASH"
    TIMEOUT = "TIMEOUT"
    OUT_OF_MEMORY = "OUT_OF_MEMORY"
    UNVERIFIED = "UNVERIFIED"

    def __str__(self) -> str:
        return self.value


class OracleDisagreement(AssertionError):
    """A feasible answer beat a proven optimum: the oracle (or the checker) is wrong, not the solver."""


@dataclass(frozen=True)
class Judgement:
    verdict: Verdict
    detail: str = ""
    gap: float | None = None
    """Oracle value minus the solver's true value (SUBOPTIMAL, and any valid heuristic answer)."""
    excess: int | None = None
    """Quantized units over the capacity (OVER_BUDGET)."""
    memory_slack: float | None = None
    """How far the saved items' unquantized memory exceeds max_memory: information, never a failure."""

    def failed(self, exact: bool) -> bool:
        """A defect for a solver that promises exactness (or only validity, for a heuristic)."""
        if self.verdict in (Verdict.OPTIMAL, Verdict.UNVERIFIED):
            return False
        return exact or self.verdict is not Verdict.SUBOPTIMAL


_ENDINGS = {
    outcomes.RAISED: Verdict.REJECTED,
    outcomes.CRASHED: Verdict.CRASH,
    outcomes.TIMED_OUT: Verdict.TIMEOUT,
    outcomes.OUT_OF_MEMORY: Verdict.OUT_OF_MEMORY,
}


def _partition_problem(answer: object, n: int) -> tuple[str, list[int] | None]:
    """What is wrong with the answer's shape or partition, and the saved items when nothing is."""
    if not isinstance(answer, (tuple, list)) or len(answer) != 3:
        return f"expected a (value, saved, recomputable) tuple, got {answer!r:.200}", None
    _, saved, recomputable = answer
    try:
        saved, recomputable = list(saved), list(recomputable)
    except TypeError:
        return "saved and recomputable must be sequences of indices", None
    indices = saved + recomputable
    if not all(isinstance(i, numbers.Integral) and not isinstance(i, bool) for i in indices):
        return "saved and recomputable must hold integer indices", None
    saved = [int(i) for i in saved]
    both = sorted(set(saved) & {int(i) for i in recomputable})
    if both:
        return f"items {both[:10]} are both saved and recomputable", None
    counts: dict[int, int] = {}
    for i in indices:
        counts[int(i)] = counts.get(int(i), 0) + 1
    repeated = sorted(i for i, c in counts.items() if c > 1)
    if repeated:
        return f"items {repeated[:10]} are listed more than once", None
    outside = sorted(i for i in counts if not 0 <= i < n)
    if outside:
        return f"indices {outside[:10]} are outside range({n})", None
    missing = sorted(set(range(n)) - set(counts))
    if missing:
        return f"items {missing[:10]} are neither saved nor recomputable", None
    return "", saved


def judge(instance: Instance, result: outcomes.Outcome, oracle: OracleResult) -> Judgement:
    if not result.returned:
        return Judgement(_ENDINGS[result.kind], result.error)

    problem, saved = _partition_problem(result.answer, instance.n)
    if saved is None:
        return Judgement(Verdict.BAD_PARTITION, problem)

    _, capacity = instance.quantized()
    weight = set_weight(instance, saved)
    real_memory = math.fsum(instance.memory[i] for i in saved)
    memory_slack = max(0.0, real_memory - instance.max_memory)
    if weight > capacity:
        excess = weight - capacity
        return Judgement(
            Verdict.OVER_BUDGET,
            f"saved weight {weight} > capacity {capacity} (quantized units)",
            excess=excess,
            memory_slack=memory_slack,
        )

    value = set_value(instance, saved)
    tolerance = Fraction(float_tolerance(instance.runtimes))
    gap = oracle.value - value
    if value > oracle.value + oracle.slack:
        if oracle.proven:
            raise OracleDisagreement(
                f"{oracle.name} proved {oracle.value} optimal, but a feasible answer is worth {value}"
            )
        return Judgement(Verdict.UNVERIFIED, f"{oracle.name} did not prove optimality", gap=float(gap))
    if gap > tolerance + oracle.slack:
        return Judgement(
            Verdict.SUBOPTIMAL,
            f"value {float(value)!r} < optimum {float(oracle.value)!r}",
            gap=float(gap),
            memory_slack=memory_slack,
        )

    reported = result.answer[0]
    try:
        reported_ok = abs(Fraction(float(reported)) - value) <= tolerance
    except (TypeError, ValueError, OverflowError):
        reported_ok = False
    if not reported_ok:
        return Judgement(
            Verdict.WRONG_VALUE,
            f"reported {reported!r}, saved items sum to {float(value)!r}",
            memory_slack=memory_slack,
        )
    if not oracle.proven:
        return Judgement(Verdict.UNVERIFIED, f"{oracle.name} did not prove optimality", gap=float(gap))
    return Judgement(Verdict.OPTIMAL, gap=float(gap), memory_slack=memory_slack)
