"""Pisinger's classic knapsack instance classes as Hypothesis strategies.

The generator formulas are those of D. Pisinger, "Where are the hard knapsack problems?",
Computers & Operations Research 32 (2005) 2271-2284, as his generator ``genhard.c`` implements
them (class numbers below are its ``type`` numbers). Each class draws item weights in ``[1, R]``,
profits by its formula, and the capacity of the h-th of H test instances,
``c = floor(h * sum(w) / (H + 1))``, raised to the largest weight if that is larger.

The data range is scaled down from Pisinger's R = 1000 .. 10**7 to ``R = 1000`` quantized units and
at most ``MAX_ITEMS`` items, so the oracle (brute force, else CP-SAT) proves every instance in
milliseconds; weights are in units of ``1 / SCALE`` when they become memory. Each strategy draws a
raw ``(weights, profits, capacity)`` triple; ``fuzz.strategies`` turns it into an ``Instance``.
"""

from __future__ import annotations

import math
from typing import Callable

from hypothesis import strategies as st

R = 1000
"""Data range of weights and profits, in quantized units."""
MAX_ITEMS = 30
SIMILAR_WEIGHTS_MAX_ITEMS = 20
"""Similar weights are CP-SAT's hardest class: fewer of them keep every proof short."""
H = 100
"""Pisinger generates H instances per class, the h-th with capacity h / (H + 1) of the total weight."""

Raw = tuple[list[int], list[float], int]


def _capacity(draw, weights: list[int]) -> int:
    h = draw(st.integers(1, H))
    return max(h * sum(weights) // (H + 1), max(weights))


def _weights(draw, low: int = 1, high: int = R, max_size: int = MAX_ITEMS) -> list[int]:
    return draw(st.lists(st.integers(low, high), min_size=1, max_size=max_size))


@st.composite
def uncorrelated(draw) -> Raw:
    """Class 1: w_j and p_j uniform in [1, R]."""
    weights = _weights(draw)
    profits = [draw(st.integers(1, R)) for _ in weights]
    return weights, profits, _capacity(draw, weights)


@st.composite
def weakly_correlated(draw) -> Raw:
    """Class 2: w_j uniform in [1, R], p_j uniform in [w_j - R/10, w_j + R/10], raised to 1 if below."""
    weights = _weights(draw)
    profits = [_weak_profit(draw, w) for w in weights]
    return weights, profits, _capacity(draw, weights)


@st.composite
def strongly_correlated(draw) -> Raw:
    """Class 3: w_j uniform in [1, R], p_j = w_j + R/10."""
    weights = _weights(draw)
    return weights, [w + R // 10 for w in weights], _capacity(draw, weights)


@st.composite
def inverse_strongly_correlated(draw) -> Raw:
    """Class 4: p_j uniform in [1, R], w_j = p_j + R/10."""
    profits = _weights(draw)
    weights = [p + R // 10 for p in profits]
    return weights, profits, _capacity(draw, weights)


@st.composite
def almost_strongly_correlated(draw) -> Raw:
    """Class 5: w_j uniform in [1, R], p_j uniform in [w_j + R/10 - R/1000, w_j + R/10 + R/1000]."""
    weights = _weights(draw)
    profits = [draw(st.integers(w + R // 10 - R // 1000, w + R // 10 + R // 1000)) for w in weights]
    return weights, profits, _capacity(draw, weights)


@st.composite
def subset_sum(draw) -> Raw:
    """Class 6: w_j uniform in [1, R], p_j = w_j."""
    weights = _weights(draw)
    return weights, list(weights), _capacity(draw, weights)


@st.composite
def even_odd(draw) -> Raw:
    """Class 7, even-odd subset sum: even w_j in [2, R], p_j = w_j, odd capacity, so no set fills it."""
    weights = [2 * k for k in _weights(draw, 1, R // 2)]
    return weights, list(weights), _capacity(draw, weights) | 1


@st.composite
def similar_weights(draw) -> Raw:
    """Class 9, uncorrelated with similar weights: w_j in [100R, 100R + R/10) (here [10R, 10R + R/10]), p_j in [1, R]."""
    weights = _weights(draw, 10 * R, 10 * R + R // 10, SIMILAR_WEIGHTS_MAX_ITEMS)
    profits = [draw(st.integers(1, R)) for _ in weights]
    return weights, profits, _capacity(draw, weights)


SPANNER_DIVISOR = 5
"""genhard.c divides the spanner items' weights and profits by 5, rounding up."""


def _spanner(correlation: Callable[[object, int], int], v: int = 2, m: int = 10):
    """Classes 11-13, span(v, m): v spanner items drawn by a distribution and divided by
    SPANNER_DIVISOR (rounded up), then every item is a spanner item times a multiplier in [1, m]."""

    @st.composite
    def spanner(draw) -> Raw:
        kernel = []
        for _ in range(v):
            w = draw(st.integers(1, R))
            p = correlation(draw, w)
            kernel.append((math.ceil(w / SPANNER_DIVISOR), math.ceil(p / SPANNER_DIVISOR)))
        picks = draw(st.lists(st.tuples(st.sampled_from(kernel), st.integers(1, m)), min_size=1, max_size=MAX_ITEMS))
        weights = [a * w for (w, _), a in picks]
        profits = [a * p for (_, p), a in picks]
        return weights, profits, _capacity(draw, weights)

    return spanner


def _uncorrelated_profit(draw, w: int) -> int:
    return draw(st.integers(1, R))


def _weak_profit(draw, w: int) -> int:
    return max(1, draw(st.integers(w - R // 10, w + R // 10)))


def _strong_profit(draw, w: int) -> int:
    return w + R // 10


def multiple_strongly_correlated(k1: int = 3 * R // 10, k2: int = 2 * R // 10, d: int = 6):
    """Class 14, mstr(k1, k2, d): p_j = w_j + k1 if d divides w_j, else w_j + k2."""

    @st.composite
    def mstr(draw) -> Raw:
        weights = _weights(draw)
        profits = [w + (k1 if w % d == 0 else k2) for w in weights]
        return weights, profits, _capacity(draw, weights)

    return mstr


def profit_ceiling(d: int = 3):
    """Class 15, pceil(d): p_j = d * ceil(w_j / d)."""

    @st.composite
    def pceil(draw) -> Raw:
        weights = _weights(draw)
        return weights, [d * math.ceil(w / d) for w in weights], _capacity(draw, weights)

    return pceil


def circle(d: float = 2 / 3):
    """Class 16, circle(d): p_j = d * sqrt(4 R^2 - (w_j - 2R)^2), profits on an ellipse.

    genhard.c truncates the profit to an integer; here it is kept as the float the formula gives,
    so this class is also an inexact one.
    """

    @st.composite
    def circle_instances(draw) -> Raw:
        weights = _weights(draw)
        profits = [d * math.sqrt(4 * R * R - (w - 2 * R) ** 2) for w in weights]
        return weights, profits, _capacity(draw, weights)

    return circle_instances


CLASSES: dict[str, Callable[[], st.SearchStrategy[Raw]]] = {
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
    "pisinger_multiple_strongly_correlated": multiple_strongly_correlated(),
    "pisinger_profit_ceiling": profit_ceiling(),
    "pisinger_circle": circle(),
}
