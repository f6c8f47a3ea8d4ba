"""OR-Tools CP-SAT as an exact oracle.

CP-SAT takes integer coefficients only. Runtimes are scaled exactly to integers by their common
power of two when they fit in 2**53 (the exact instances); otherwise they are rounded to 50 bits
and the result carries the slack that rounding can cost. Optimality counts as proven only when
the status is OPTIMAL and the objective equals the best bound; a time limit ends in an unproven
result (the verdict UNVERIFIED), never in a pass. One worker and a fixed seed keep it
deterministic and polite under ``pytest -n auto``.
"""

from __future__ import annotations

from fractions import Fraction

from ortools.sat.python import cp_model

from oracles.exact import set_value
from oracles.result import OracleResult
from solvers.contract import EXACT_LIMIT, Instance, exact_runtimes

ROUNDED_BITS = 50
DEFAULT_TIME_LIMIT = 20.0


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


def cpsat(instance: Instance, *, time_limit: float = DEFAULT_TIME_LIMIT, seed: int = 0) -> OracleResult:
    weights, capacity = instance.quantized()
    coefficients, _, slack = model_runtimes(instance)
    model = cp_model.CpModel()
    useful = [i for i in range(instance.n) if coefficients[i] > 0 and weights[i] <= capacity]
    take = {i: model.NewBoolVar(f"x{i}") for i in useful}
    model.Add(sum(weights[i] * take[i] for i in useful) <= capacity)
    model.Maximize(sum(coefficients[i] * take[i] for i in useful))

    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = seed
    solver.parameters.max_time_in_seconds = time_limit
    status = solver.Solve(model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return OracleResult("cpsat", Fraction(0), (), proven=False, slack=slack)
    saved = tuple(i for i in useful if solver.BooleanValue(take[i]))
    proven = status == cp_model.OPTIMAL and solver.ObjectiveValue() == solver.BestObjectiveBound()
    return OracleResult("cpsat", set_value(instance, saved), saved, proven=proven, slack=slack)
