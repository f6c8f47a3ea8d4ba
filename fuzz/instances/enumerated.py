"""Families enumerated in full: every instance of a small space, in a fixed order, no randomness.

Rare shapes must not be left to chance: a two-item instance where a split hands out one unit too
many, a zero-weight item with a negative runtime, a capacity just past a block of 4 096 units.
A sampled family meets them in a few of its draws at best; these lists hold every one of them.
They are ordered simplest first (fewer items, then smaller numbers), so a search through them
finds the smallest instance that fails.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations_with_replacement, product

from knapcheck.solvers.contract import SCALE, Instance

SMALL_MAX_ITEMS = 3
SMALL_WEIGHTS = (0, 1, 2, 3)
"""Quantized units."""
SMALL_CAPACITIES = tuple(range(7))
SMALL_RUNTIMES = (-1.0, 0.0, 1.0, 2.0)
"""Negative, zero, and values that tie (1 + 1 = 2) when several items are drawn from them."""
ORDERED_UP_TO = 2
"""Up to this many items every order is listed; three items are listed once per multiset (sorted)."""

LARGE_CAPACITIES = (4097, 8193)
"""Just past one and two blocks of 4 096 units: where blocked or tiled profile updates change."""
LARGE_MAX_ITEMS = 2
LARGE_RUNTIMES = (1.0, 2.0)


def large_weights(capacity: int) -> tuple[int, ...]:
    """A unit item (taken twice if a solver reuses items), a block-sized one, one just over half the
    capacity (two never fit together) and one of exactly the capacity."""
    return (1, 4096, capacity // 2 + 1, capacity)


def _instance(items: tuple[tuple[int, float], ...], capacity: int) -> Instance:
    return Instance(tuple(w / SCALE for w, _ in items), tuple(r for _, r in items), capacity / SCALE)


def _item_lists(kinds: list[tuple[int, float]], n: int, ordered: bool):
    return product(kinds, repeat=n) if ordered else combinations_with_replacement(kinds, n)


@lru_cache(maxsize=None)
def exhaustive_small() -> tuple[Instance, ...]:
    """Every instance of at most SMALL_MAX_ITEMS items with weights in SMALL_WEIGHTS, runtimes in
    SMALL_RUNTIMES and a capacity in SMALL_CAPACITIES, up to two reductions: three items come in
    one order (sorted), and of the capacities at or above the items' total weight W, where every
    set fits, only W and W + 1 are kept. 6 142 instances (7 623 without the second reduction,
    30 583 without either)."""
    kinds = list(product(SMALL_WEIGHTS, SMALL_RUNTIMES))
    return tuple(
        _instance(items, capacity)
        for n in range(SMALL_MAX_ITEMS + 1)
        for capacity in SMALL_CAPACITIES
        for items in _item_lists(kinds, n, ordered=n <= ORDERED_UP_TO)
        if capacity <= sum(w for w, _ in items) + 1
    )


@lru_cache(maxsize=None)
def large_capacity() -> tuple[Instance, ...]:
    """One or two items, in every order, at each capacity of LARGE_CAPACITIES, with weights from
    ``large_weights`` and runtimes from LARGE_RUNTIMES. 144 instances."""
    return tuple(
        _instance(items, capacity)
        for n in range(1, LARGE_MAX_ITEMS + 1)
        for capacity in LARGE_CAPACITIES
        for items in _item_lists(list(product(large_weights(capacity), LARGE_RUNTIMES)), n, ordered=True)
    )
