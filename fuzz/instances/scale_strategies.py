"""Hypothesis strategies of the shapes at scale (``knapcheck.fuzz.instances.scale``).

Sizes are drawn on a logarithmic scale, so that a sample meets every order of magnitude and the
costly extremes stay rare: a drawn integer ``k`` in ``[0, STEPS]`` gives
``low * (high / low) ** ((k / STEPS) ** skew)``, and Hypothesis shrinks ``k`` to 0, the smallest
size. Capacities are skewed further (``CAPACITY_SKEW``) than item counts: a call of torch's
``dp_knapsack`` costs (n + 1) x (C + 1) float32 cells, a few tenths of a second at 10**7 units.
The many items of an instance come from a drawn seed (Python's ``random.Random``), not from one
Hypothesis draw each: two thousand items would overrun Hypothesis's limit on the choices of one
example. Half of the draws of huge_capacity and many_items, and two in three of runtime_span, have
runtimes whose total float32 holds exactly (torch's solvers are exact there); the others have
runtimes beyond float32's reach.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from hypothesis import strategies as st

from ...solvers.contract import SCALE, Instance
from . import scale
from .sizes import HUGE_CAPACITY_MAX_ITEMS, MANY_ITEMS_MAX_ITEMS, RUNTIME_SPAN_MAX_ITEMS

STEPS = 1000
CAPACITY_SKEW = 2
SPAN_DECADES = range(-12, 15)
"""Runtimes of the span kind besides its two ends: three significant digits times 10**e for these e."""
SPAN_MAX_WEIGHT = 400


def _instance(weights: list[int], runtimes: Sequence[float], capacity: int) -> Instance:
    return Instance(tuple(w / SCALE for w in weights), tuple(float(r) for r in runtimes), capacity / SCALE)


def logarithmic(low: int, high: int, skew: int = 1) -> st.SearchStrategy[int]:
    """Integers from ``low`` to ``high`` on a logarithmic scale (with ``skew`` 1, every order of
    magnitude about as likely; above 1, the larger ones rarer); shrinks to ``low``."""
    return st.integers(0, STEPS).map(lambda k: min(high, round(low * (high / low) ** ((k / STEPS) ** skew))))


@st.composite
def _runtimes(draw, n: int) -> list[float]:
    """n integer runtimes: totalling below 2**24, or FLOP counts beyond it beside runtimes of 1 to 8."""
    if draw(st.booleans()):
        return [float(r) for r in draw(st.lists(st.integers(1, scale.float32_exact_high(n)), min_size=n, max_size=n))]
    beyond = st.one_of(st.integers(scale.BEYOND_FLOAT32_LOW, scale.BEYOND_FLOAT32_HIGH), st.integers(1, scale.SMALL_RUNTIME_HIGH))
    return [float(r) for r in draw(st.lists(beyond, min_size=n, max_size=n))]


@st.composite
def huge_capacity(draw) -> Instance:
    """1 to 3 items at a capacity of 65 537 to 10**7 units: items of one unit, just over half the
    capacity, exactly the capacity, one unit over it, or any weight up to it."""
    capacity = draw(logarithmic(scale.HUGE_MIN_CAPACITY, scale.HUGE_MAX_CAPACITY, CAPACITY_SKEW))
    n = draw(st.integers(1, HUGE_CAPACITY_MAX_ITEMS))
    near = st.sampled_from([1, capacity // 2, capacity // 2 + 1, capacity, capacity + 1])
    weights = draw(st.lists(st.one_of(near, st.integers(1, capacity)), min_size=n, max_size=n))
    return _instance(weights, draw(_runtimes(n)), capacity)


@st.composite
def many_items(draw) -> Instance:
    """65 to 2 000 items of 1 to 20 units and a capacity of at most a fifth of their weight."""
    n = draw(logarithmic(scale.MANY_MIN_ITEMS, MANY_ITEMS_MAX_ITEMS))
    items = random.Random(draw(st.integers(0, 2**32 - 1)))
    weights = [items.randint(1, scale.MANY_MAX_WEIGHT) for _ in range(n)]
    if draw(st.booleans()):
        runtimes = [items.randint(1, scale.float32_exact_high(n)) for _ in range(n)]
    else:
        runtimes = [items.randint(scale.BEYOND_FLOAT32_LOW, scale.BEYOND_FLOAT32_HIGH) if items.random() < 0.5
                    else items.randint(1, scale.SMALL_RUNTIME_HIGH) for _ in range(n)]
    capacity = draw(st.integers(1, max(1, sum(weights) // 5)))
    return _instance(weights, runtimes, capacity)


@st.composite
def _span(draw, n: int) -> list[float]:
    """n runtimes of three significant digits from 1e-12 to 1e15, the two ends among them."""
    middle = draw(st.lists(st.tuples(st.integers(100, 999), st.sampled_from(SPAN_DECADES)), min_size=n - 2, max_size=n - 2))
    runtimes = [scale.SPAN_LOW, scale.SPAN_HIGH, *(float(f"{digits / 100}e{decade}") for digits, decade in middle)]
    return draw(st.permutations(runtimes))


@st.composite
def runtime_span(draw) -> Instance:
    """2 to 12 items whose runtimes span 1e-12 to 1e15, or are multiples of 2**-40 (about 9e-13) or
    of 2**26 (about 7e7) whose total float32 holds exactly."""
    n = draw(st.integers(2, RUNTIME_SPAN_MAX_ITEMS))
    weights = draw(st.lists(st.integers(1, SPAN_MAX_WEIGHT), min_size=n, max_size=n))
    kind = draw(st.sampled_from(["span", "tiny", "huge"]))
    if kind == "span":
        runtimes = draw(_span(n))
    else:
        unit = scale.TINY_UNIT if kind == "tiny" else scale.HUGE_UNIT
        runtimes = [k * unit for k in draw(st.lists(st.integers(1, scale.float32_exact_high(n)), min_size=n, max_size=n))]
    return _instance(weights, runtimes, draw(st.integers(0, sum(weights))))
