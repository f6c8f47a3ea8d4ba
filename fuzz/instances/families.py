"""The instance families, as records: one list that tests, checks, campaigns and reports select from.

A family is a named Hypothesis strategy of valid instances with what it promises about them:
whether every instance is exact (``knapcheck.solvers.contract.exact_scale`` is not None, so exact solvers
must return identical values), the largest n it draws, and one line saying what it is for. An
enumerated family (``knapcheck.fuzz.instances.enumerated``) is a fixed list instead: a check takes all of
it, in order, whatever the seed or the count asked of sampled families; its strategy (for
campaigns and tests) samples from that list. Adding a family is one record here;
``tests/test_families.py`` holds every family to its record.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Sequence

from ...solvers.contract import Instance
from . import enumerated, sizes

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy


@dataclass(frozen=True)
class Family:
    name: str
    strategy: Callable[[], SearchStrategy[Instance]] = field(repr=False)
    exact: bool
    """Every instance is exact: exact solvers must return identical values on it."""
    max_n: int
    """The largest number of items an instance has."""
    description: str

    listing: Callable[[], Sequence[Instance]] | None = field(default=None, repr=False)
    """Every instance, in order, for an enumerated family; None for a sampled one."""

    @property
    def enumerated(self) -> bool:
        return self.listing is not None

    def instances(self) -> SearchStrategy[Instance]:
        return self.strategy()

    def draw(self, count: int, seed_value: int = 0) -> list[Instance]:
        """What a check takes from the family: ``count`` instances drawn from the seed (the same
        list in every process, drawn once and kept: ``knapcheck.fuzz.instances.draw_cache``), or
        the whole list of an enumerated family."""
        if self.listing is not None:
            return list(self.listing())
        from . import draw_cache, strategies

        return draw_cache.cached_draw(self.name, count, seed_value,
                                      lambda: strategies.sample(self.instances(), count, seed_value))


def _enumerated(
    name: str, listing: Callable[[], Sequence[Instance]], max_n: int, description: str, *, exact: bool = True,
) -> Family:
    def strategy() -> SearchStrategy[Instance]:
        from hypothesis import strategies as st

        return st.sampled_from(listing())

    return Family(name, strategy, exact, max_n, description, listing)


def _drawn_by(name: str, module: str = "strategies") -> Callable[[], SearchStrategy[Instance]]:
    """``knapcheck.fuzz.instances.MODULE.NAME``, imported (and Hypothesis with it) when the family first
    draws: listing the families imports no strategy."""

    def strategy() -> SearchStrategy[Instance]:
        return getattr(importlib.import_module(f"knapcheck.fuzz.instances.{module}"), name)()

    return strategy


def _limits(name: str) -> Callable[[], Sequence[Instance]]:
    """The boundary family ``name`` of ``knapcheck.fuzz.instances.limits``, listed when first asked."""

    def listing() -> Sequence[Instance]:
        from . import limits

        return limits.listing(name)

    return listing


def _pisinger_class(name: str) -> Callable[[], SearchStrategy[Instance]]:
    """Pisinger's class ``name`` (``knapcheck.fuzz.instances.pisinger.CLASSES``) as instances, imported when it first draws."""

    def strategy() -> SearchStrategy[Instance]:
        from . import pisinger, strategies

        return strategies.from_raw(pisinger.CLASSES[name])()

    return strategy


def _pisinger(name: str, description: str, exact: bool = True, max_n: int = sizes.PISINGER_MAX_ITEMS) -> Family:
    return Family(name, _pisinger_class(name), exact, max_n, description)


FAMILIES: tuple[Family, ...] = (
    Family("tiny", _drawn_by("tiny"), True, 8, "few items, small weights and runtimes: brute force checks them all"),
    Family("tight_budget", _drawn_by("tight_budget"), True, sizes.MAX_ITEMS,
           "capacity equal to a subset's weight, or one unit above or below it"),
    Family("zero_items", _drawn_by("zero_items"), True, sizes.MAX_ITEMS,
           "zero-weight items, zero and negative runtimes among ordinary ones"),
    Family("heavy_items", _drawn_by("heavy_items"), True, sizes.MAX_ITEMS,
           "items heavier than the budget, exactly the budget, one unit over it"),
    Family("duplicates_ties", _drawn_by("duplicates_ties"), True, sizes.MAX_ITEMS,
           "repeated items and equal efficiencies: many optimal selections"),
    Family("quantization_edges", _drawn_by("quantization_edges"), True, sizes.QUANTIZATION_MAX_ITEMS,
           "memory and budget at, just below and just above half a quantization unit"),
    Family("flop_scale", _drawn_by("flop_scale"), True, sizes.MAX_ITEMS,
           "integer FLOP-count runtimes from 1e6 to 1e13, beyond float32's exact range"),
    Family("float32_limits", _drawn_by("float32_limits"), True, sizes.FLOAT32_LIMITS_MAX_ITEMS,
           "runtimes above 2**24 beside runtimes of a few units, as real partitioner problems have"),
    Family("float_runtimes", _drawn_by("float_runtimes"), False, sizes.MAX_ITEMS,
           "arbitrary float runtimes: inexact, compared with the derived tolerance"),
    Family("normalized", _drawn_by("normalized"), True, sizes.MAX_ITEMS,
           "the partitioner's shape: memories summing to 1, sorted, a budget fraction"),
    Family("huge_capacity", _drawn_by("huge_capacity", "scale_strategies"), True, sizes.HUGE_CAPACITY_MAX_ITEMS,
           "1 to 3 items at capacities of 65 537 to 10**7 units; runtimes float32 sums exactly, or beyond 2**24"),
    Family("many_items", _drawn_by("many_items", "scale_strategies"), True, sizes.MANY_ITEMS_MAX_ITEMS,
           "65 to 2 000 items of 1 to 20 units, small capacities; runtimes float32 sums exactly, or beyond 2**24"),
    Family("runtime_span", _drawn_by("runtime_span", "scale_strategies"), False, sizes.RUNTIME_SPAN_MAX_ITEMS,
           "runtimes from 1e-12 to 1e15 in one instance, or multiples of 2**-40 or 2**26 that float32 sums exactly"),
    Family("harvested", _drawn_by("harvested"), True, 19,
           "instances recorded from torch.compile's partitioner on the toy built-in models"),
    Family("harvested_large", _drawn_by("harvested_large"), True, 239,
           "instances recorded on the real-size models: 107 to 239 items, many below half a unit"),
    _pisinger("pisinger_uncorrelated", "Pisinger class 1: weights and profits uniform in [1, R]"),
    _pisinger("pisinger_weakly_correlated", "Pisinger class 2: profit within R/10 of the weight"),
    _pisinger("pisinger_strongly_correlated", "Pisinger class 3: profit = weight + R/10"),
    _pisinger("pisinger_inverse_strongly_correlated", "Pisinger class 4: weight = profit + R/10"),
    _pisinger("pisinger_almost_strongly_correlated", "Pisinger class 5: profit within R/1000 of weight + R/10"),
    _pisinger("pisinger_subset_sum", "Pisinger class 6: profit = weight"),
    _pisinger("pisinger_even_odd", "Pisinger class 7: even weights, profit = weight, odd capacity"),
    _pisinger("pisinger_similar_weights", "Pisinger class 9: uncorrelated, weights within R/10 of each other",
              max_n=sizes.PISINGER_SIMILAR_WEIGHTS_MAX_ITEMS),
    _pisinger("pisinger_spanner_uncorrelated", "Pisinger class 11: multiples of two uncorrelated spanner items"),
    _pisinger("pisinger_spanner_weakly_correlated", "Pisinger class 12: multiples of two weakly correlated spanner items"),
    _pisinger("pisinger_spanner_strongly_correlated", "Pisinger class 13: multiples of two strongly correlated spanner items"),
    _pisinger("pisinger_multiple_strongly_correlated", "Pisinger class 14: profit = weight + k1 or + k2 by divisibility"),
    _pisinger("pisinger_profit_ceiling", "Pisinger class 15: profit = weight rounded up to a multiple of 3"),
    _pisinger("pisinger_circle", "Pisinger class 16: profits on an ellipse over the weights (float profits)", exact=False),
    _enumerated("exhaustive_small", enumerated.exhaustive_small, enumerated.SMALL_MAX_ITEMS,
                "every instance of up to 3 items, weights 0..3 units, capacity 0..6, runtimes -1, 0, 1, 2"
                " (6 142 instances: 3 items in one order, capacities past the total weight + 1 left out)"),
    _enumerated("large_capacity", enumerated.large_capacity, enumerated.LARGE_MAX_ITEMS,
                "1 or 2 items, every order, at capacities just past 1 and 2 blocks of 4 096 units"
                " (144 instances)"),
    _enumerated("scale_extremes", enumerated.scale_extremes, enumerated.EXTREMES_MAX_ITEMS,
                "pairs of items at 65 537 and 10**7 units, 65 and 2 000 items, runtimes from 1e-12 to 1e15;"
                " float32-exact runtimes and runtimes beyond it (16 instances)", exact=False),
    _enumerated("weight_limits", _limits("weight_limits"), sizes.WEIGHT_LIMITS_MAX_ITEMS,
                "an item past 2**15, 2**16, 2**20 and 2**24 units needed in the optimum at a capacity just past"
                " it; items past 2**31, 2**32 and 2**53 units beside light ones (10 instances)"),
    _enumerated("runtime_limits", _limits("runtime_limits"), sizes.RUNTIME_LIMITS_MAX_ITEMS,
                "runtimes at float16's and float32's largest and smallest normal and subnormal values, totals of"
                " 2**24 and 2**53 units: one unit decides the optimum (10 instances)", exact=False),
    _enumerated("count_limits", _limits("count_limits"), sizes.COUNT_LIMITS_MAX_ITEMS,
                "2**8 and 2**8 + 1 items, the last two making the optimum (2 instances)"),
)

_BY_NAME = {f.name: f for f in FAMILIES}


def get(name: str) -> Family:
    if name not in _BY_NAME:
        raise ValueError(f"unknown instance family {name!r}; known: {', '.join(_BY_NAME)}")
    return _BY_NAME[name]


def strategy(name: str) -> SearchStrategy[Instance]:
    """The instances of one family."""
    return get(name).instances()


def select(*, exact: bool | None = None, max_n: int | None = None, enumerated: bool | None = None) -> list[Family]:
    """The families whose records match: ``exact`` as given, drawing at most ``max_n`` items,
    enumerated in full or sampled."""
    return [
        f
        for f in FAMILIES
        if (exact is None or f.exact == exact)
        and (max_n is None or f.max_n <= max_n)
        and (enumerated is None or f.enumerated == enumerated)
    ]


def names(*, exact: bool | None = None, max_n: int | None = None, enumerated: bool | None = None) -> list[str]:
    return [f.name for f in select(exact=exact, max_n=max_n, enumerated=enumerated)]


def any_instance() -> SearchStrategy[Instance]:
    from hypothesis import strategies as st

    return st.one_of([f.instances() for f in FAMILIES])
