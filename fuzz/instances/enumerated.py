"""Families enumerated in full: every instance of a small space, in a fixed order, no randomness.

Rare shapes must not be left to chance: a two-item instance where a split hands out one unit too
many, a zero-weight item with a negative runtime, a capacity just past a block of 4 096 units, the
extremes of the problems torch.compile hands its solvers at scale (10**7 units, 2 000 items,
runtimes from 1e-12 to 1e15). A sampled family meets them in a few of its draws at best; these
lists hold every one of them. The small spaces are ordered simplest first (fewer items, then
smaller numbers), so a search through them finds the smallest instance that fails.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations_with_replacement, product

from ...solvers.contract import SCALE, Instance
from . import scale, sizes

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


EXTREME_CAPACITIES = (scale.HUGE_MIN_CAPACITY, scale.HUGE_MAX_CAPACITY)
EXCLUSIVE_PAIRS = ((2049.0, 2048.0), (70001.0, 70000.0))
"""Runtimes of two items of which one fits: float32 tells them apart; float16 does not (2049 rounds
to 2048, and both of the others overflow its largest finite value, 65 504)."""
ABSORBED_PAIR = (2.0**25 + 1, 1.0)
"""Runtimes of two items that fit together: float32 absorbs the 1 next to 2**25 + 1."""
EXTREME_ITEM_COUNTS = (scale.MANY_MIN_ITEMS, sizes.MANY_ITEMS_MAX_ITEMS)
SPAN_RUNTIMES = (1e-12, 3e-10, 7e-08, 2e-05, 0.004, 1.0, 60.0, 9000.0, 2500000.0, 400000000.0, 700000000000.0, 1e15)
SPAN_MAX_WEIGHT = 40
EXTREMES_MAX_ITEMS = max(EXTREME_ITEM_COUNTS)


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


def _pairs(capacity: int, both_orders: bool) -> list[tuple[tuple[int, float], ...]]:
    """Each exclusive pair (two items of the whole capacity: even a split that hands out a unit too
    many fits only one) and the absorbed pair (weights of half the capacity), in the order given
    and, if ``both_orders``, reversed."""
    half = capacity // 2
    pairs = [((capacity, a), (capacity, b)) for a, b in EXCLUSIVE_PAIRS]
    pairs.append(((half, ABSORBED_PAIR[0]), (half, ABSORBED_PAIR[1])))
    return [items for pair in pairs for items in ((pair, pair[::-1]) if both_orders else (pair,))]


def _many_items(n: int, float32_exact: bool) -> Instance:
    """n items of 1 to MANY_MAX_WEIGHT units, a tenth of their weight as capacity; runtimes whose
    total float32 holds exactly, or FLOP counts beyond 2**24 alternating with runtimes of 1 to 8."""
    numbers = scale.minstd(n if float32_exact else n + 1)
    weights = [1 + next(numbers) % scale.MANY_MAX_WEIGHT for _ in range(n)]
    if float32_exact:
        runtimes = [1.0 + next(numbers) % scale.float32_exact_high(n) for _ in range(n)]
    else:
        runtimes = [float(scale.BEYOND_FLOAT32_LOW + next(numbers) if i % 2 else 1 + next(numbers) % scale.SMALL_RUNTIME_HIGH)
                    for i in range(n)]
    return _instance(tuple(zip(weights, runtimes)), sum(weights) // scale.MANY_CAPACITY_SHARE)


def _runtime_span(unit: float | None) -> Instance:
    """len(SPAN_RUNTIMES) items of 1 to SPAN_MAX_WEIGHT units, half their weight as capacity; runtimes
    SPAN_RUNTIMES, or multiples of ``unit`` whose total float32 holds exactly."""
    n = len(SPAN_RUNTIMES)
    numbers = scale.minstd(n)
    weights = [1 + next(numbers) % SPAN_MAX_WEIGHT for _ in range(n)]
    runtimes: tuple[float, ...]
    if unit is None:
        runtimes = SPAN_RUNTIMES
    else:
        runtimes = tuple((1 + next(numbers) % scale.float32_exact_high(n)) * unit for _ in range(n))
    return _instance(tuple(zip(weights, runtimes)), sum(weights) // 2)


@lru_cache(maxsize=None)
def scale_extremes() -> tuple[Instance, ...]:
    """The extremes of ``knapcheck.fuzz.instances.scale``'s shapes, 16 instances: the pairs of
    ``_pairs`` at each capacity of EXTREME_CAPACITIES (in both orders at the first, in one at the
    second: a call of torch's dp_knapsack at 10**7 units takes a few tenths of a second); at each
    count of EXTREME_ITEM_COUNTS, many items with float32-exact and with FLOP-scale runtimes; and
    twelve items with runtimes from 1e-12 to 1e15, in tiny and in huge units of exact float32 sums."""
    first, last = EXTREME_CAPACITIES
    return (
        *(_instance(items, first) for items in _pairs(first, both_orders=True)),
        *(_instance(items, last) for items in _pairs(last, both_orders=False)),
        *(_many_items(n, float32_exact) for n in EXTREME_ITEM_COUNTS for float32_exact in (True, False)),
        *(_runtime_span(unit) for unit in (None, scale.TINY_UNIT, scale.HUGE_UNIT)),
    )
