"""Hypothesis strategies for knapsack instances, and drawing a fixed sample from one.

Each strategy here is one family's (``knapcheck.fuzz.instances.families`` holds the records) and draws a valid
``Instance``. Sizes are kept where brute force or CP-SAT proves the optimum in milliseconds. Memory
is drawn in quantized units (``units / SCALE``) unless the family is about what lies between units.

A family's items strategy (``_items``), where it depends on no earlier draw, is built once at
module level, with the capacity's where that is fixed too: a composite strategy built inside
another is built, validated and labelled again for each instance (a tenth of a campaign's time on
``tiny``). The instances drawn are the same.
"""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path
from typing import Callable, TypeVar

from hypothesis import given, seed
from hypothesis import strategies as st

from ...solvers.contract import SCALE, Instance
from ..corpus.harvest_records import CORPUS_DIR, LARGE_CORPUS_DIR, load_harvested
from .pisinger import Raw
from .seeded_draws import seeded_settings
from .sizes import FLOAT32_LIMITS_MAX_ITEMS, MAX_ITEMS, QUANTIZATION_MAX_ITEMS

MAX_UNITS = 400


def memory_of(units: int) -> float:
    return units / SCALE


def _instance(weights: list[int], runtimes: list[float], capacity: int) -> Instance:
    return Instance(tuple(memory_of(w) for w in weights), tuple(float(r) for r in runtimes), memory_of(capacity))


@st.composite
def _items(draw, weights, runtimes, min_size=0, max_size=MAX_ITEMS):
    pairs = draw(st.lists(st.tuples(weights, runtimes), min_size=min_size, max_size=max_size))
    return [w for w, _ in pairs], [r for _, r in pairs]


_TINY_ITEMS = _items(st.integers(0, 30), st.integers(0, 60), max_size=8)
_TINY_CAPACITY = st.integers(0, 100)


@st.composite
def tiny(draw) -> Instance:
    """Few items, small weights and runtimes: brute force checks every one exhaustively."""
    weights, runtimes = draw(_TINY_ITEMS)
    return _instance(weights, runtimes, draw(_TINY_CAPACITY))


_TIGHT_BUDGET_ITEMS = _items(st.integers(1, MAX_UNITS), st.integers(1, 10**6), min_size=1)


@st.composite
def tight_budget(draw) -> Instance:
    """Capacity equal to the weight of a drawn subset, or one unit above or below it."""
    weights, runtimes = draw(_TIGHT_BUDGET_ITEMS)
    subset = draw(st.lists(st.sampled_from(range(len(weights))), unique=True))
    capacity = max(0, sum(weights[i] for i in subset) + draw(st.sampled_from([-1, 0, 1])))
    return _instance(weights, runtimes, capacity)


_ZERO_ITEMS = _items(
    st.one_of(st.just(0), st.integers(1, MAX_UNITS)),
    st.one_of(st.just(0), st.integers(-1000, -1), st.integers(1, 1000)),
)
_ZERO_ITEMS_CAPACITY = st.integers(0, 2 * MAX_UNITS)


@st.composite
def zero_items(draw) -> Instance:
    """Zero-weight items, zero-runtime items and negative runtimes, mixed with ordinary ones."""
    weights, runtimes = draw(_ZERO_ITEMS)
    return _instance(weights, runtimes, draw(_ZERO_ITEMS_CAPACITY))


@st.composite
def heavy_items(draw) -> Instance:
    """Items heavier than the budget, exactly the budget, and one unit over it."""
    capacity = draw(st.integers(0, MAX_UNITS))
    near = st.sampled_from([capacity, capacity + 1, capacity + 2, 2 * capacity + 1])
    weights, runtimes = draw(
        _items(st.one_of(near, st.integers(0, 3 * MAX_UNITS)), st.integers(1, 10**4), min_size=1)
    )
    return _instance(weights, runtimes, capacity)


@st.composite
def duplicates_ties(draw) -> Instance:
    """A few distinct items repeated, and items of equal runtime per unit: many optimal sets."""
    kinds = draw(st.lists(st.tuples(st.integers(1, 50), st.integers(1, 50)), min_size=1, max_size=4))
    picks = draw(st.lists(st.tuples(st.sampled_from(kinds), st.integers(1, 4)), min_size=1, max_size=MAX_ITEMS))
    weights = [w * k for (w, _), k in picks]
    runtimes = [r * k for (_, r), k in picks]
    return _instance(weights, runtimes, draw(st.integers(0, sum(weights))))


@st.composite
def quantization_edges(draw) -> Instance:
    """Memory and budget at, just below and just above half a quantization unit (k/S +- 1/(2S)).

    The budget is an edge too, or the unquantized memory of a subset: solvers that compare real
    memory instead of quantized weights then disagree with the contract in both directions.
    """

    def edge(units: int, offset: str) -> float:
        half = (units + 0.5) / SCALE
        return {"exact": units / SCALE, "half": half, "below": half * (1 - 1e-12), "above": half * (1 + 1e-12)}[offset]

    offsets = st.sampled_from(["exact", "half", "below", "above"])
    n = draw(st.integers(1, QUANTIZATION_MAX_ITEMS))
    memory = tuple(edge(draw(st.integers(0, 40)), draw(offsets)) for _ in range(n))
    runtimes = tuple(float(draw(st.integers(1, 100))) for _ in range(n))
    subset = draw(st.lists(st.sampled_from(range(n)), unique=True))
    budget = draw(st.one_of(st.builds(edge, st.integers(0, 120), offsets), st.just(math.fsum(memory[i] for i in subset))))
    return Instance(memory, runtimes, budget)


_FLOP_SCALE_ITEMS = _items(st.integers(0, MAX_UNITS), st.integers(10**6, 10**13), min_size=1)


@st.composite
def flop_scale(draw) -> Instance:
    """Integer FLOP-count runtimes from 1e6 to 1e13: exact in float64, far beyond float32's 2**24."""
    weights, runtimes = draw(_FLOP_SCALE_ITEMS)
    return _instance(weights, runtimes, draw(st.integers(0, sum(weights) + 1)))


_FLOAT32_LIMITS_ITEMS = _items(st.integers(0, 60), st.one_of(st.integers(2**24, 2**34), st.integers(1, 8)),
                               min_size=2, max_size=FLOAT32_LIMITS_MAX_ITEMS)


@st.composite
def float32_limits(draw) -> Instance:
    """Runtimes past float32's 2**24 next to runtimes of a few units, as real partitioner problems have.

    Harvested instances mix FLOP counts above 2**24 with nodes of runtime 1; a float32 profile
    cannot tell a set with the small items from one without them.
    """
    weights, runtimes = draw(_FLOAT32_LIMITS_ITEMS)
    return _instance(weights, runtimes, draw(st.integers(0, sum(weights))))


_FLOAT_RUNTIMES_ITEMS = _items(st.integers(0, MAX_UNITS), st.floats(0, 1e6, allow_nan=False, allow_infinity=False),
                               min_size=1)


@st.composite
def float_runtimes(draw) -> Instance:
    """Arbitrary float runtimes: mostly inexact instances, compared with the derived tolerance."""
    weights, runtimes = draw(_FLOAT_RUNTIMES_ITEMS)
    return _instance(weights, runtimes, draw(st.integers(0, sum(weights) + 1)))


@st.composite
def normalized(draw) -> Instance:
    """The partitioner's shape: memories normalized to sum to 1, sorted, a budget fraction."""
    raw = draw(st.lists(st.integers(1, 10**6), min_size=1, max_size=MAX_ITEMS))
    total = sum(raw)
    memory = tuple(sorted((r / total for r in raw), reverse=True))
    runtimes = tuple(float(draw(st.integers(0, 10**9))) for _ in raw)
    budget = draw(st.sampled_from([0.0, 0.01, 0.05, 0.1, 0.3, 0.5, 0.9, 1.0]))
    return Instance(memory, runtimes, budget)


@lru_cache(maxsize=None)
def _harvested_instances(directory: Path) -> tuple[Instance, ...]:
    instances = tuple(record.instance for record in load_harvested(directory))
    if not instances:
        raise ValueError(f"the harvested corpus {directory} holds no instances")
    return instances


def harvested() -> st.SearchStrategy[Instance]:
    """Instances recorded from torch.compile's partitioner on the toy models (fuzz/corpus/harvested)."""
    return st.sampled_from(_harvested_instances(CORPUS_DIR))


def harvested_large() -> st.SearchStrategy[Instance]:
    """Instances recorded on the real-size models: about a hundred to a few hundred items, many of
    them lighter than half a quantization unit (fuzz/corpus/harvested_large)."""
    return st.sampled_from(_harvested_instances(LARGE_CORPUS_DIR))


def from_raw(make: Callable[[], st.SearchStrategy[Raw]]) -> Callable[[], st.SearchStrategy[Instance]]:
    """A strategy of instances from one of raw (weights in units, profits, capacity in units) triples."""
    return lambda: make().map(lambda raw: _instance(*raw))


_Drawn = TypeVar("_Drawn")


def sample(strategy: st.SearchStrategy[_Drawn], count: int, seed_value: int = 0) -> list[_Drawn]:
    """``count`` instances drawn by Hypothesis from a fixed seed: the same list in every process,
    whatever it has imported (``knapcheck.fuzz.instances.seeded_draws``), and nothing written to disk.
    Any strategy's examples are drawn so (the Pisinger classes' raw triples too)."""
    drawn: list[_Drawn] = []

    @seed(seed_value)
    @seeded_settings(count)
    @given(strategy)
    def collect(instance: _Drawn) -> None:
        drawn.append(instance)

    collect()
    return drawn
