"""Exact values of item sets, as fractions, whatever the runtimes (every float is a dyadic rational)."""

from __future__ import annotations

from fractions import Fraction
from typing import Iterable

from ..solvers.contract import UPSTREAM, Instance, exact_runtimes


def set_value(instance: Instance, items: Iterable[int]) -> Fraction:
    integers, denominator = exact_runtimes(instance.runtimes)
    return Fraction(sum(integers[i] for i in items), denominator)


def set_weight(instance: Instance, items: Iterable[int], rounding: str = UPSTREAM) -> int:
    weights, _ = instance.quantized(rounding)
    return sum(weights[i] for i in items)
