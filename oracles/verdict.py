"""The verdict function: (instance, what the solver did, what the oracle proved) -> one verdict.

The same words are used in tests, campaigns and reports. Checks run in a
fixed order and the first that fails decides: how the call ended, whether it changed the lists it
was given, the partition, the budget, the selection's value against the oracle, and last the
reported value. The selection is what torch acts on, so a suboptimal selection outranks a
misreported total.

The judge never raises. When the oracle contradicts itself (its own selection is over budget or not
worth what it claims) or a feasible answer beats its proven optimum, the oracle or the checker is
wrong, not the solver: the verdict is UNVERIFIED (never a pass) and ``oracle_disagreement`` says
why, for the caller to record as an oracle finding.

The budget and the optimum are those of the rounding the oracle solved (``OracleResult.rounding``:
upstream's unless the solver promises another); when that rounding promises the real budget
(``Rounding.keeps_real_budget``), saved real memory above max_memory is OVER_BUDGET too.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from typing import Sequence

from ..solvers.contract import UPSTREAM, Instance, float_tolerance, rounding_named
from ..solvers.contract import outcome as outcomes
from ..solvers.contract.answer import Answer, plain_answer
from .exact import set_value, set_weight
from .result import OracleResult


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
    MUTATED_INPUT = "MUTATED_INPUT"
    NONDETERMINISTIC = "NONDETERMINISTIC"
    """Two calls on one input gave different answers (knapcheck.fuzz.judging.verdicts.differential decides it, not judge)."""
    UNVERIFIED = "UNVERIFIED"

    def __str__(self) -> str:
        return self.value


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
    oracle_disagreement: str = ""
    """Set when the oracle, not the solver, is shown wrong (verdict UNVERIFIED): an oracle finding."""

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


def _partition_problem(answer: Answer, n: int) -> tuple[str, list[int] | None]:
    """What is wrong with the answer's partition, and the saved items when nothing is."""
    if answer.saved is None or answer.recomputable is None:
        return answer.problem, None
    saved, recomputable = answer.saved, answer.recomputable
    both = sorted(set(saved) & set(recomputable))
    if both:
        return f"items {both[:10]} are both saved and recomputable", None
    counts = Counter(saved + recomputable)
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


def _refusal(instance: Instance, result: outcomes.Outcome, accepted: bool, rounding: str) -> Judgement:
    weights, capacity = instance.quantized(rounding)
    size = f"n={len(weights)}, C={capacity}"
    if accepted:
        return Judgement(Verdict.REJECTED, f"refused a size its entry accepts ({size}): {result.error}")
    return Judgement(Verdict.UNVERIFIED, f"refused a size its entry does not accept ({size}), as documented: {result.error}")


def real_memory_slack(instance: Instance, saved: Sequence[int]) -> float:
    """How far the saved items' real (unquantized) memory exceeds ``max_memory``; 0 within it."""
    try:
        real_memory = math.fsum(instance.memory[i] for i in saved)
    except OverflowError:
        return math.inf
    return max(0.0, real_memory - instance.max_memory)


def _witness_problem(instance: Instance, oracle: OracleResult, capacity: int) -> str:
    """What is wrong with the oracle's own selection, the witness of its value; empty when nothing."""
    chosen = list(oracle.saved)
    if len(set(chosen)) != len(chosen) or not all(isinstance(i, int) and 0 <= i < instance.n for i in chosen):
        return f"{oracle.name}'s selection {chosen[:10]} is not a set of item indices"
    weight = set_weight(instance, chosen, oracle.rounding)
    if weight > capacity:
        return f"{oracle.name}'s own selection weighs {weight} > capacity {capacity}"
    worth = set_value(instance, chosen)
    if worth != oracle.value:
        return f"{oracle.name}'s own selection is worth {float(worth)!r}, not the {float(oracle.value)!r} it claims"
    return ""


def _unproven(oracle: OracleResult) -> str:
    return f"{oracle.name} did not prove optimality" + (f": {oracle.reason}" if oracle.reason else "")


def judge(instance: Instance, result: outcomes.Outcome, oracle: OracleResult, *, accepted: bool = True) -> Judgement:
    """``accepted``: whether the solver's entry declares this size accepted (a refusal above it is no defect).

    The answer is judged as plain data (``knapcheck.solvers.contract.answer``): an Outcome made by running a
    solver holds it so already; any other answer is read that way first.
    """
    if result.kind == outcomes.REFUSED:
        return _refusal(instance, result, accepted, oracle.rounding)
    if not result.returned:
        return Judgement(_ENDINGS[result.kind], result.error)
    if result.changed_input:
        return Judgement(Verdict.MUTATED_INPUT, result.changed_input)

    answer = result.answer if isinstance(result.answer, Answer) else plain_answer(result.answer, instance.n)
    problem, saved = _partition_problem(answer, instance.n)
    if saved is None:
        return Judgement(Verdict.BAD_PARTITION, problem)

    rounding = rounding_named(oracle.rounding)
    weights, capacity = instance.quantized(rounding.name)
    weight = set_weight(instance, saved, rounding.name)
    memory_slack = real_memory_slack(instance, saved)
    if weight > capacity:
        excess = weight - capacity
        units = "quantized units" if rounding.name == UPSTREAM else f"quantized units, {rounding.name} rounding"
        return Judgement(
            Verdict.OVER_BUDGET,
            f"saved weight {weight} > capacity {capacity} ({units})",
            excess=excess,
            memory_slack=memory_slack,
        )
    if rounding.keeps_real_budget and memory_slack > 0:
        return Judgement(
            Verdict.OVER_BUDGET,
            f"saved real memory exceeds max_memory {instance.max_memory!r} by {memory_slack!r}"
            f" (the {rounding.name} rounding promises the real budget)",
            memory_slack=memory_slack,
        )

    witness = _witness_problem(instance, oracle, capacity)
    if witness:
        return Judgement(Verdict.UNVERIFIED, witness, memory_slack=memory_slack, oracle_disagreement=witness)

    value = set_value(instance, saved)
    tolerance = Fraction(float_tolerance(instance.runtimes, weights, capacity))
    gap = oracle.value - value
    if value > oracle.value + oracle.slack:
        if oracle.proven:
            beaten = f"{oracle.name} proved {float(oracle.value)!r} optimal, but a feasible answer is worth {float(value)!r}"
            return Judgement(Verdict.UNVERIFIED, beaten, gap=float(gap), memory_slack=memory_slack, oracle_disagreement=beaten)
        return Judgement(Verdict.UNVERIFIED, _unproven(oracle), gap=float(gap), memory_slack=memory_slack)
    # The oracle's own selection is feasible and worth exactly oracle.value (checked above): a gap
    # beyond the float tolerance is a real one, whatever the oracle's slack on the true optimum.
    if gap > tolerance:
        return Judgement(
            Verdict.SUBOPTIMAL,
            f"value {float(value)!r} < optimum {float(oracle.value)!r}",
            gap=float(gap),
            memory_slack=memory_slack,
        )

    if answer.value is None:
        return Judgement(Verdict.WRONG_VALUE, answer.value_problem, memory_slack=memory_slack)
    if abs(Fraction(answer.value) - value) > tolerance:
        return Judgement(
            Verdict.WRONG_VALUE,
            f"reported {answer.value!r}, saved items sum to {float(value)!r}",
            memory_slack=memory_slack,
        )
    if not oracle.proven:
        return Judgement(Verdict.UNVERIFIED, _unproven(oracle), gap=float(gap), memory_slack=memory_slack)
    return Judgement(Verdict.OPTIMAL, gap=float(gap), memory_slack=memory_slack)
