"""Brute force, the trust anchor: every subset, exact integer arithmetic, nothing clever."""

from __future__ import annotations

from fractions import Fraction

from ..solvers.contract import UPSTREAM, Instance, exact_runtimes
from .result import OracleResult

MAX_ITEMS = 16


def brute_force(instance: Instance, rounding: str = UPSTREAM) -> OracleResult:
    n = instance.n
    if n > MAX_ITEMS:
        raise ValueError(f"brute_force enumerates 2**n subsets; n={n} is over its limit of {MAX_ITEMS}")
    weights, capacity = instance.quantized(rounding)
    values, denominator = exact_runtimes(instance.runtimes)
    best_value, best_mask = 0, 0
    for mask in range(1 << n):
        items = [i for i in range(n) if mask >> i & 1]
        if sum(weights[i] for i in items) <= capacity:
            value = sum(values[i] for i in items)
            if value > best_value:
                best_value, best_mask = value, mask
    saved = tuple(i for i in range(n) if best_mask >> i & 1)
    return OracleResult("brute_force", Fraction(best_value, denominator), saved, proven=True, rounding=rounding)
