"""OR-Tools' knapsack solvers with torch's signature: baselines for ``knapcheck bench``, not registered.

    knapcheck bench --baselines knapcheck.solvers.ortools_baselines:branch_and_bound knapcheck.solvers.ortools_baselines:dynamic_programming

Both go through the contract's validation and quantization like every solver here, then hand
OR-Tools int64 coefficients: the runtimes as exact integers in their common power-of-two unit when
their total fits (``contract.exact_units``), otherwise scaled so that the total is about 2**53 and
rounded (then the answer may miss the optimum by the rounding; the bench rows never need it).
Runtimes <= 0 are left out before OR-Tools sees them, so its answer never takes one.
"""

from __future__ import annotations

import math
from typing import Sequence

from ortools.algorithms.python import knapsack_solver
from ortools.algorithms.python.knapsack_solver import SolverType

from .contract import EXACT_LIMIT, SCALE, Solution, exact_units, quantize, validate


def integer_profits(runtimes: Sequence[float]) -> list[int]:
    """Positive runtimes as int64-sized integers: exact where the instance is exact (see module)."""
    exact = exact_units(runtimes)
    if exact is not None:
        return [max(0, v) for v in exact[0]]
    total = math.fsum(r for r in runtimes if r > 0)
    factor = EXACT_LIMIT / total
    return [max(0, round(r * factor)) for r in runtimes]


def _solve(kind: SolverType, memory: Sequence[float], runtimes: Sequence[float], max_memory: float) -> Solution:
    memory, runtimes, max_memory = validate(memory, runtimes, max_memory)
    weights, capacity = quantize(memory, max_memory, SCALE)
    profits = integer_profits(runtimes)
    items = [i for i, profit in enumerate(profits) if profit > 0]
    solver = knapsack_solver.KnapsackSolver(kind, "baseline")
    solver.init([profits[i] for i in items], [[weights[i] for i in items]], [capacity])
    solver.solve()
    saved = [i for k, i in enumerate(items) if solver.best_solution_contains(k)]
    chosen = set(saved)
    recomputable = [i for i in range(len(runtimes)) if i not in chosen]
    return Solution(math.fsum(runtimes[i] for i in saved), saved, recomputable)


def branch_and_bound(memory: Sequence[float], runtimes: Sequence[float], max_memory: float) -> Solution:
    """OR-Tools' branch and bound (``KNAPSACK_MULTIDIMENSION_BRANCH_AND_BOUND_SOLVER``), C++."""
    return _solve(SolverType.KNAPSACK_MULTIDIMENSION_BRANCH_AND_BOUND_SOLVER, memory, runtimes, max_memory)


def dynamic_programming(memory: Sequence[float], runtimes: Sequence[float], max_memory: float) -> Solution:
    """OR-Tools' dynamic programming over capacities (``KNAPSACK_DYNAMIC_PROGRAMMING_SOLVER``), C++."""
    return _solve(SolverType.KNAPSACK_DYNAMIC_PROGRAMMING_SOLVER, memory, runtimes, max_memory)
