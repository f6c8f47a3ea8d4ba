"""Pisinger's classic knapsack instance classes as Hypothesis strategies.

The generator formulas are those of D. Pisinger, "Where are the hard knapsack problems?",
Computers & Operations Research 32 (2005) 2271-2284, as his generator ``genhard.c`` implements
them (class numbers below are its ``type`` numbers). Each class draws item weights in ``[1, R]``,
profits by its formula, and the capacity of the h-th of H test instances,
``c = floor(h * sum(w) / (H + 1))``, raised to the largest weight if that is larger.

The data range is scaled down from Pisinger's R = 1000 .. 10**7 to ``R = 1000`` quantized units and
at most ``MAX_ITEMS`` items, so the oracle (brute force, else CP-SAT) proves every instance in
milliseconds; weights are in units of ``1 / SCALE`` when they become memory. Each strategy draws a
raw ``(weights, profits, capacity)`` triple; ``knapcheck.fuzz.instances.strategies`` turns it into an ``Instance``.
``generate`` draws the same classes at Pisinger's own sizes, for benchmarks.
"""

from __future__ import annotations

import math
import random
from typing import Callable

from hypothesis import strategies as st

from .sizes import PISINGER_MAX_ITEMS as MAX_ITEMS
from .sizes import PISINGER_SIMILAR_WEIGHTS_MAX_ITEMS as SIMILAR_WEIGHTS_MAX_ITEMS

R = 1000
"""Data range of weights and profits, in quantized units."""
H = 100
"""Pisinger generates H instances per class, the h-th with capacity h / (H + 1) of the total weight."""

Raw = tuple[list[int], list[float], int]
Integer = Callable[[int, int], int]
"""Draws an integer in ``[low, high]``: from Hypothesis in the strategies, from a seeded ``random.Random``
in ``generate``, so both follow the same formulas."""
Items = Callable[[Integer, int, int], tuple[list[int], list[float]]]
"""A class: ``(integer, n, data_range) -> (weights, profits)`` of n items."""


def capacity_of(weights: list[int], h: int) -> int:
    """The capacity of the h-th of H instances: h / (H + 1) of the total weight, at least the largest."""
    return max(h * sum(weights) // (H + 1), max(weights))


def _uniform(integer: Integer, n: int, low: int, high: int) -> list[int]:
    return [integer(low, high) for _ in range(n)]


def uncorrelated(integer: Integer, n: int, r: int):
    """Class 1: w_j and p_j uniform in [1, R]."""
    weights = _uniform(integer, n, 1, r)
    return weights, [_uncorrelated_profit(integer, w, r) for w in weights]


def weakly_correlated(integer: Integer, n: int, r: int):
    """Class 2: w_j uniform in [1, R], p_j uniform in [w_j - R/10, w_j + R/10], raised to 1 if below."""
    weights = _uniform(integer, n, 1, r)
    return weights, [_weak_profit(integer, w, r) for w in weights]


def strongly_correlated(integer: Integer, n: int, r: int):
    """Class 3: w_j uniform in [1, R], p_j = w_j + R/10."""
    weights = _uniform(integer, n, 1, r)
    return weights, [_strong_profit(integer, w, r) for w in weights]


def inverse_strongly_correlated(integer: Integer, n: int, r: int):
    """Class 4: p_j uniform in [1, R], w_j = p_j + R/10."""
    profits = _uniform(integer, n, 1, r)
    return [p + r // 10 for p in profits], profits


def almost_strongly_correlated(integer: Integer, n: int, r: int):
    """Class 5: w_j uniform in [1, R], p_j uniform in [w_j + R/10 - R/1000, w_j + R/10 + R/1000]."""
    weights = _uniform(integer, n, 1, r)
    return weights, [integer(w + r // 10 - r // 1000, w + r // 10 + r // 1000) for w in weights]


def subset_sum(integer: Integer, n: int, r: int):
    """Class 6: w_j uniform in [1, R], p_j = w_j."""
    weights = _uniform(integer, n, 1, r)
    return weights, list(weights)


def even_odd(integer: Integer, n: int, r: int):
    """Class 7, even-odd subset sum: even w_j in [2, R], p_j = w_j (and an odd capacity, so no set fills it)."""
    weights = [2 * k for k in _uniform(integer, n, 1, r // 2)]
    return weights, list(weights)


def similar_weights(integer: Integer, n: int, r: int):
    """Class 9, uncorrelated with similar weights: w_j in [100R, 100R + R/10) (here [10R, 10R + R/10]), p_j in [1, R]."""
    weights = _uniform(integer, n, 10 * r, 10 * r + r // 10)
    return weights, _uniform(integer, n, 1, r)


SPANNER_DIVISOR = 5
"""genhard.c divides the spanner items' weights and profits by 5, rounding up."""


def _spanner(correlation: Callable[[Integer, int, int], int], v: int = 2, m: int = 10) -> Items:
    """Classes 11-13, span(v, m): v spanner items drawn by a distribution and divided by
    SPANNER_DIVISOR (rounded up), then every item is a spanner item times a multiplier in [1, m]."""

    def spanner(integer: Integer, n: int, r: int):
        kernel = []
        for _ in range(v):
            w = integer(1, r)
            p = correlation(integer, w, r)
            kernel.append((math.ceil(w / SPANNER_DIVISOR), math.ceil(p / SPANNER_DIVISOR)))
        picks = [(kernel[integer(0, v - 1)], integer(1, m)) for _ in range(n)]
        return [a * w for (w, _), a in picks], [a * p for (_, p), a in picks]

    return spanner


def _uncorrelated_profit(integer: Integer, w: int, r: int) -> int:
    return integer(1, r)


def _weak_profit(integer: Integer, w: int, r: int) -> int:
    return max(1, integer(w - r // 10, w + r // 10))


def _strong_profit(integer: Integer, w: int, r: int) -> int:
    return w + r // 10


def multiple_strongly_correlated(integer: Integer, n: int, r: int, d: int = 6):
    """Class 14, mstr(k1, k2, d) with k1 = 3R/10, k2 = 2R/10, d = 6: p_j = w_j + k1 if d divides w_j, else w_j + k2."""
    weights = _uniform(integer, n, 1, r)
    return weights, [w + (3 * r // 10 if w % d == 0 else 2 * r // 10) for w in weights]


def profit_ceiling(integer: Integer, n: int, r: int, d: int = 3):
    """Class 15, pceil(d): p_j = d * ceil(w_j / d)."""
    weights = _uniform(integer, n, 1, r)
    return weights, [d * math.ceil(w / d) for w in weights]


def circle(integer: Integer, n: int, r: int, d: float = 2 / 3):
    """Class 16, circle(d): p_j = d * sqrt(4 R^2 - (w_j - 2R)^2), profits on an ellipse.

    genhard.c truncates the profit to an integer; here it is kept as the float the formula gives,
    so this class is also an inexact one (``generate(..., integral=True)`` truncates, as genhard.c).
    """
    weights = _uniform(integer, n, 1, r)
    return weights, [d * math.sqrt(4 * r * r - (w - 2 * r) ** 2) for w in weights]


ITEMS: dict[str, Items] = {
    "pisinger_uncorrelated": uncorrelated,
    "pisinger_weakly_correlated": weakly_correlated,
    "pisinger_strongly_correlated": strongly_correlated,
    "pisinger_inverse_strongly_correlated": inverse_strongly_correlated,
    "pisinger_almost_strongly_correlated": almost_strongly_correlated,
    "pisinger_subset_sum": subset_sum,
    "pisinger_even_odd": even_odd,
    "pisinger_similar_weights": similar_weights,
    "pisinger_spanner_uncorrelated": _spanner(_uncorrelated_profit),
    "pisinger_spanner_weakly_correlated": _spanner(_weak_profit),
    "pisinger_spanner_strongly_correlated": _spanner(_strong_profit),
    "pisinger_multiple_strongly_correlated": multiple_strongly_correlated,
    "pisinger_profit_ceiling": profit_ceiling,
    "pisinger_circle": circle,
}
_MAX_ITEMS = {"pisinger_similar_weights": SIMILAR_WEIGHTS_MAX_ITEMS}


def _capacity_for(name: str, weights: list[int], h: int) -> int:
    capacity = capacity_of(weights, h)
    return capacity | 1 if name == "pisinger_even_odd" else capacity


def _strategy(name: str) -> Callable[[], st.SearchStrategy[Raw]]:
    @st.composite
    def draw_raw(draw) -> Raw:
        n = draw(st.integers(1, _MAX_ITEMS.get(name, MAX_ITEMS)))
        weights, profits = ITEMS[name](lambda low, high: draw(st.integers(low, high)), n, R)
        return weights, profits, _capacity_for(name, weights, draw(st.integers(1, H)))

    return draw_raw


CLASSES: dict[str, Callable[[], st.SearchStrategy[Raw]]] = {name: _strategy(name) for name in ITEMS}
"""Each class as a Hypothesis strategy of raw ``(weights, profits, capacity)`` triples (R = 1000)."""


def generate(name: str, n: int, data_range: int, seed: int = 0, h: int = H // 2, integral: bool = False) -> Raw:
    """One reproducible instance of a class at any size, as in Pisinger's benchmarks: n items,
    weights in [1, data_range], the h-th of H capacities. ``integral`` truncates profits to
    integers, as genhard.c does (only the circle class has others)."""
    if name not in ITEMS:
        raise ValueError(f"unknown Pisinger class {name!r}; known: {', '.join(ITEMS)}")
    rng = random.Random(f"{name}:{n}:{data_range}:{seed}")
    weights, profits = ITEMS[name](rng.randint, n, data_range)
    if integral:
        profits = [int(p) for p in profits]
    return weights, profits, _capacity_for(name, weights, h)
