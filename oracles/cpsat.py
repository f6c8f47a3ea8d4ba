"""OR-Tools CP-SAT as an exact oracle.

CP-SAT takes integer coefficients only. Runtimes are scaled exactly to integers by their common
power of two when they fit in 2**53 (the exact instances); otherwise they are rounded to 50 bits
and the result carries the slack that rounding can cost. Weights are int64 in CP-SAT, and its model
checker refuses a linear expression whose coefficients may sum to 2**62 or more; valid instances
reach far beyond that (a weight is round(memory * 10 000) for any finite memory), so the model is
first reduced exactly: items that cannot help (runtime that rounds to nothing, weight above the
capacity) drop out, a capacity above the useful items' total weight is clamped to it, and weights
and capacity are divided by the weights' greatest common divisor. When all items with a positive
runtime fit together the optimum is known without CP-SAT. What still does not fit ends unproven,
with the reason, never in an exception.

Optimality counts as proven only when the status is OPTIMAL and the objective equals the best
bound; a time limit ends in an unproven result (the verdict UNVERIFIED), never in a pass. One
worker and a fixed seed keep it deterministic and polite under ``pytest -n auto``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from ortools.sat.python import cp_model

from ..solvers.contract import EXACT_LIMIT, UPSTREAM, Instance, exact_runtimes
from .exact import set_value
from .result import OracleResult

ROUNDED_BITS = 50
DEFAULT_TIME_LIMIT = 20.0
LINEAR_SUM_LIMIT = 2**62
"""CP-SAT's model checker refuses a linear expression whose absolute coefficients sum to this or more."""


def model_runtimes(instance: Instance) -> tuple[list[int], Fraction, Fraction]:
    """Integer objective coefficients, the value of one unit, and the slack rounding may cost."""
    integers, denominator = exact_runtimes(instance.runtimes)
    total = sum(v for v in integers if v > 0)
    if total < EXACT_LIMIT:
        return integers, Fraction(1, denominator), Fraction(0)
    shift = total.bit_length() - ROUNDED_BITS
    rounded = [round(Fraction(v, 1 << shift)) for v in integers]
    unit = Fraction(1 << shift, denominator)
    # Each rounded coefficient is off by at most half a unit; two sets are compared.
    slack = unit * len(integers)
    return rounded, unit, slack


@dataclass(frozen=True)
class IntegerModel:
    """The instance reduced for CP-SAT: the items that can help, their weights and the capacity."""

    items: list[int]
    weights: list[int]
    capacity: int
    coefficients: list[int]
    slack: Fraction


def integer_model(instance: Instance, rounding: str = UPSTREAM) -> IntegerModel:
    """The exact reduction described in the module docstring (it may still exceed CP-SAT's range)."""
    weights, capacity = instance.quantized(rounding)
    coefficients, _, slack = model_runtimes(instance)
    items = [i for i in range(instance.n) if coefficients[i] > 0 and weights[i] <= capacity]
    capacity = min(capacity, sum(weights[i] for i in items))
    divisor = math.gcd(*(weights[i] for i in items)) or 1
    return IntegerModel(
        items, [weights[i] // divisor for i in items], capacity // divisor, [coefficients[i] for i in items], slack
    )


def _out_of_range(model: IntegerModel) -> str:
    """Why CP-SAT cannot hold the model, or an empty string when it can."""
    if sum(model.weights) >= LINEAR_SUM_LIMIT:
        return (
            f"the reduced weights sum to {sum(model.weights)}, beyond CP-SAT's limit of 2**62 for a linear"
            " constraint (no common divisor, no item or capacity to drop)"
        )
    if sum(model.coefficients) >= LINEAR_SUM_LIMIT:
        return f"the objective coefficients sum to {sum(model.coefficients)}, beyond CP-SAT's limit of 2**62"
    return ""


def _everything_fits(instance: Instance, rounding: str) -> tuple[int, ...] | None:
    """All items with a positive runtime, when their weights fit the capacity together: the optimum."""
    weights, capacity = instance.quantized(rounding)
    positive = tuple(i for i, r in enumerate(instance.runtimes) if r > 0)
    return positive if sum(weights[i] for i in positive) <= capacity else None


def cpsat(
    instance: Instance, *, time_limit: float = DEFAULT_TIME_LIMIT, seed: int = 0, rounding: str = UPSTREAM
) -> OracleResult:
    """The optimum of the problem ``rounding`` (knapcheck.solvers.contract.ROUNDINGS) makes of the instance."""
    everything = _everything_fits(instance, rounding)
    if everything is not None:
        return OracleResult("cpsat", set_value(instance, everything), everything, proven=True, rounding=rounding)
    reduced = integer_model(instance, rounding)
    out_of_range = _out_of_range(reduced)
    if out_of_range:
        return OracleResult("cpsat", Fraction(0), (), proven=False, slack=reduced.slack, reason=out_of_range, rounding=rounding)

    model = cp_model.CpModel()
    take = [model.NewBoolVar(f"x{i}") for i in reduced.items]  # type: ignore[attr-defined]  # ortools' stub lacks the CamelCase aliases it defines at run time
    model.Add(sum(w * x for w, x in zip(reduced.weights, take)) <= reduced.capacity)  # type: ignore[attr-defined]  # ortools' stub lacks the CamelCase aliases it defines at run time
    model.Maximize(sum(c * x for c, x in zip(reduced.coefficients, take)))  # type: ignore[attr-defined]  # ortools' stub lacks the CamelCase aliases it defines at run time

    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = seed
    solver.parameters.max_time_in_seconds = time_limit
    # CP-SAT's own Ctrl-C handler leaves SIGINT at its default action when the solve ends, whatever
    # the process had set (a campaign's workers ignore Ctrl-C; a command turns it into a clean stop).
    solver.parameters.catch_sigint_signal = False
    status = solver.Solve(model)
    if status == cp_model.MODEL_INVALID:
        reason = f"CP-SAT refused the model: {model.Validate()[:200]}"  # type: ignore[attr-defined]  # ortools' stub lacks the CamelCase aliases it defines at run time
        return OracleResult("cpsat", Fraction(0), (), proven=False, slack=reduced.slack, reason=reason, rounding=rounding)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        reason = f"CP-SAT found no solution within {time_limit:g} s (status {solver.StatusName(status)})"
        return OracleResult("cpsat", Fraction(0), (), proven=False, slack=reduced.slack, reason=reason, rounding=rounding)
    saved = tuple(i for i, x in zip(reduced.items, take) if solver.BooleanValue(x))
    proven = status == cp_model.OPTIMAL and solver.ObjectiveValue() == solver.BestObjectiveBound()
    reason = "" if proven else f"CP-SAT did not prove optimality within {time_limit:g} s"
    return OracleResult(
        "cpsat", set_value(instance, saved), saved, proven=proven, slack=reduced.slack, reason=reason, rounding=rounding
    )
