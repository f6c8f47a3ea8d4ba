"""The shapes of the problems torch.compile hands its solvers at scale, as ranges and runtime units.

Real partitioner problems have up to a few thousand items and capacities of millions of units, with
runtimes from a fraction of a nanosecond to FLOP counts near 1e15. Three shapes reach there while
every solver, and brute force or CP-SAT, still answers in milliseconds: a huge capacity with few
items (torch's ``dp_knapsack`` allocates an (n + 1) x (C + 1) float32 table), many items with a
small capacity, and runtimes 27 decades apart in one instance.

Each shape comes in two kinds of runtimes. Where float32 arithmetic is exact (every runtime a
multiple of one power of two, their total below 2**24 of it), torch's float32 solvers are exact,
so a new defect shows on an instance torch passes; elsewhere torch's own float32 defects show.
Nothing here imports Hypothesis: ``knapcheck.fuzz.instances.enumerated`` lists fixed instances of
these shapes, ``knapcheck.fuzz.instances.scale_strategies`` draws them.
"""

from __future__ import annotations

from typing import Iterator

HUGE_MIN_CAPACITY = 2**16 + 1
"""Just past 65 536 units, where a solver could switch to narrower cells or other blocks."""
HUGE_MAX_CAPACITY = 10**7

MANY_MIN_ITEMS = 65
"""Just past 64 items, where a solver could switch to another indexing or a wider mask."""
MANY_MAX_WEIGHT = 20
"""Weights of many items are 1 to 20 units, so a small capacity still holds a few dozen of them."""
MANY_CAPACITY_SHARE = 10
"""The enumerated many-item instances have a tenth of their total weight as capacity."""

FLOAT32_EXACT_UNITS = 2**24
"""float32 holds every integer below this: runtimes in one unit with a total below it sum exactly."""
TINY_UNIT = 2.0**-40
"""About 9.1e-13: runtimes of a few units of it lie far below any tolerance of 1e-6, far above
float32's smallest normal (1.2e-38)."""
HUGE_UNIT = 2.0**26
"""About 6.7e7: runtimes of many units of it reach 1e15, where float32 keeps only multiples of it."""
SPAN_LOW = 1e-12
SPAN_HIGH = 1e15
"""Runtimes from SPAN_LOW to SPAN_HIGH in one instance: beyond float64's 16 digits, let alone float32's 7."""

BEYOND_FLOAT32_LOW = 2**24
BEYOND_FLOAT32_HIGH = 2**34
"""FLOP-scale runtimes beside runtimes of 1 to 8, as the partitioner hands them: float32 absorbs the small ones."""
SMALL_RUNTIME_HIGH = 8


def float32_exact_high(n: int) -> int:
    """The largest runtime, in units, that keeps the total of n runtimes below FLOAT32_EXACT_UNITS."""
    return (FLOAT32_EXACT_UNITS - 1) // max(1, n)


def minstd(seed: int) -> Iterator[int]:
    """Park and Miller's minimal standard generator (x -> 48271 x mod 2**31 - 1), from ``seed``
    (1 to 2**31 - 2): a fixed sequence that a test file can repeat in three lines."""
    x = seed
    while True:
        x = x * 48271 % (2**31 - 1)
        yield x
