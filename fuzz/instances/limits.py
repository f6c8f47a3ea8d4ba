"""The type and size limits a pull request can break, as instances that change their answer there.

A solver that narrows a type (int16 or int32 weights, float16 runtimes) or bounds a size by a power
of two (a table or a profile of 2**16, 2**20 or 2**24 cells, an index in a byte) is exact below the
limit and wrong past it, and only an instance whose optimum depends on what lies past the limit
shows it. Each instance here has several items, the one at the limit needed in the optimum, and
the optimum unique: truncating, wrapping or capping the value at the limit changes the answer.

- ``weight_limits``: at each limit L of WEIGHT_LIMITS that torch's float32 table can reach in a
  fraction of a second (up to 2**24 cells), a capacity of L + 3 units that only an item of L + 1
  units and one of 2 fill exactly (beside items of L and L - 1 units and one of 1); past that
  (2**31, 2**32, 2**53), where a table of C + 1 cells is out of reach, the cheaper witness: items
  of L - 1, L and L + 1 units beside light ones at a capacity of 7, where a weight wrapped or
  truncated to a few units is taken, and the same heavy items at a capacity of L + 3, for the
  solvers that accept it (torch's table solvers declare they do not: they are not run there).
- ``runtime_limits``: at each limit of a float type's range (float16's largest and smallest
  normal and subnormal values, float32's, and totals of 2**24 and 2**53 in their unit), runtimes
  of a few multiples of one power of two at the limit, where two items beat a third by one unit.
  The ones within float32's reach are exact for torch's float32 solvers; the ones past it
  (``beyond``) show torch's own float32 defect, for our solvers.
- ``count_limits``: 2**8 and 2**8 + 1 items, the last two of which (past an index of one byte)
  make the optimum; the others are heavier than the capacity.

Nothing here imports Hypothesis; the families are enumerated in full.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import NamedTuple

from ...solvers.contract import SCALE, Instance

TABLE_LIMITS = (2**15, 2**16, 2**20, 2**24)
"""Limits of int16 and uint16 weights and of tables or profiles a solver might cap: torch's float32
table of (n + 1) x (L + 4) cells answers in a fraction of a second up to 2**20 and in about one at 2**24."""
WIDE_LIMITS = (2**31, 2**32, 2**53)
"""Limits of int32 and uint32 weights and of float64's integers: no table of L cells fits in memory."""
WITNESS_CAPACITY = 7
"""The capacity of the heavy-item witnesses: the light items (1, 2 and 4 units) fill it exactly."""
COUNT_LIMITS = (2**8,)
"""Item counts past which an index of one byte wraps (2**15 and 2**16 items take torch's
sliding Hirschberg solver 18 s and more: not listed)."""
COUNT_CAPACITY = 3


class Limit(NamedTuple):
    """One boundary: its name, the instances at it, and whether torch's float32 solvers are exact there."""

    name: str
    instances: tuple[Instance, ...]
    within_float32: bool = True


def memory_for(units: int) -> float:
    """A memory value that quantizes to ``units`` (round(memory * SCALE) == units), the float nearest
    units / SCALE that does; ValueError when no float near it does (past 2**53, odd units)."""
    guess = units / SCALE
    candidates = [guess]
    below = above = guess
    for _ in range(64):
        below, above = math.nextafter(below, -math.inf), math.nextafter(above, math.inf)
        candidates += [below, above]
    for memory in candidates:
        if round(memory * SCALE) == units:
            return memory
    raise ValueError(f"no memory value near {guess!r} quantizes to {units} units")


def _instance(items: list[tuple[int, float]], capacity: int) -> Instance:
    return Instance(tuple(memory_for(w) for w, _ in items), tuple(float(r) for _, r in items), memory_for(capacity))


def _decisive(limit: int) -> list[tuple[int, float]]:
    """Items whose one best set is the item past the limit with the item of 2 units, filling
    limit + 3 (or, from 2**53 on, where weights are even, limit + 6) exactly: any capacity below it,
    or a weight wrapped or truncated at the limit, changes the answer. In an order where torch's
    sliding Hirschberg split does not over-fill."""
    step = 1 if limit < 2**53 else 2
    heavy = [(limit + step, 8.0), (limit, 6.0), (limit - step, 5.0)]
    light = [(2 * step, 2.0), (step, 1.0)]
    return heavy + light


def decisive_capacity(limit: int) -> int:
    return limit + (3 if limit < 2**53 else 6)


def _witness(limit: int) -> list[tuple[int, float]]:
    """Items past, at and below the limit, too heavy for WITNESS_CAPACITY, and light items filling it."""
    step = 1 if limit < 2**53 else 2
    return [(limit + step, 8.0), (1, 1.0), (limit, 6.0), (2, 2.0), (limit - step, 5.0), (4, 3.0)]


def _weight_limits() -> list[Limit]:
    tables = [Limit(_power(L), (_instance(_decisive(L), decisive_capacity(L)),)) for L in TABLE_LIMITS]
    wide = [Limit(_power(L), (_instance(_witness(L), WITNESS_CAPACITY), _instance(_decisive(L), decisive_capacity(L))))
            for L in WIDE_LIMITS]
    return tables + wide


def _power(limit: int) -> str:
    return f"weights of 2**{limit.bit_length() - 1} units"


def cells(instance: Instance) -> int:
    """What a table costs a solver: n x (C + 1) cells."""
    return instance.n * (instance.quantized()[1] + 1)


class RuntimeLimit(NamedTuple):
    name: str
    unit: float
    """Every runtime a multiple of it."""
    first: int
    second: int
    """The two items of one unit of weight that make the optimum: worth first + second units, one
    more than the item of two units of weight beside them."""
    within_float32: bool


RUNTIME_LIMITS = (
    RuntimeLimit("float16's largest normal (65 504) and past it", 2.0**5, 1024, 1024, True),
    RuntimeLimit("float16's smallest normal (2**-14)", 2.0**-25, 2**11 + 1, 2**11, True),
    RuntimeLimit("float16's smallest subnormal (2**-24) and below it", 2.0**-25, 2, 1, True),
    RuntimeLimit("float32's largest finite value", 2.0**104, 2**23, 2**23 - 1, True),
    RuntimeLimit("float32's smallest normal (2**-126)", 2.0**-149, 2**23, 2**23 - 1, True),
    RuntimeLimit("float32's smallest subnormal (2**-149)", 2.0**-149, 2, 1, True),
    RuntimeLimit("2**24 - 1 units, float32's last exact total", 1.0, 2**23, 2**23 - 1, True),
    RuntimeLimit("below float32's smallest subnormal (2**-150)", 2.0**-150, 2, 1, False),
    RuntimeLimit("2**24 + 1 units, past float32's exact totals", 1.0, 2**23 + 1, 2**23, False),
    RuntimeLimit("2**53 - 1 units, float64's last exact total", 1.0, 2**52, 2**52 - 1, False),
)


def _runtime_instance(limit: RuntimeLimit) -> Instance:
    """Capacity 2: one item of three units (too heavy) and one of two, each worth first + second - 1
    units, two of one unit worth first and second, and one of one worth min(first, second) - 1. In an
    order where torch's sliding Hirschberg split does not over-fill."""
    u, a, b = limit.unit, limit.first, limit.second
    items = [(3, (a + b - 1) * u), (2, (a + b - 1) * u), (1, a * u), (1, b * u), (1, (min(a, b) - 1) * u)]
    return _instance(items, 2)


def _count_instance(n: int) -> Instance:
    """n items, all but the last two heavier than COUNT_CAPACITY: those two (1 and 2 units) fill it."""
    heavy = [(COUNT_CAPACITY + 1, 4.0)] * (n - 2)
    return _instance([*heavy, (1, 1.0), (2, 2.0)], COUNT_CAPACITY)


@lru_cache(maxsize=None)
def boundaries() -> dict[str, tuple[Limit, ...]]:
    """Family name -> its limits, in order."""
    return {
        "weight_limits": tuple(_weight_limits()),
        "runtime_limits": tuple(Limit(r.name, (_runtime_instance(r),), r.within_float32) for r in RUNTIME_LIMITS),
        "count_limits": tuple(Limit(f"{n} items", (_count_instance(n),)) for base in COUNT_LIMITS for n in (base, base + 1)),
    }


def listing(family: str) -> tuple[Instance, ...]:
    """Every instance of a boundary family, the cheapest table first (a check stopped by its time
    budget has met every limit it could), in the order of the limits among equals."""
    return tuple(sorted((i for limit in boundaries()[family] for i in limit.instances), key=cells))


@lru_cache(maxsize=None)
def smallest() -> tuple[Instance, ...]:
    """The smallest instance (by ``cells``) of each limit of every boundary family: what the exported
    PyTorch test file holds."""
    return tuple(min(limit.instances, key=cells) for limits in boundaries().values() for limit in limits)


def weight_limits() -> tuple[Instance, ...]:
    return listing("weight_limits")


def runtime_limits() -> tuple[Instance, ...]:
    return listing("runtime_limits")


def count_limits() -> tuple[Instance, ...]:
    return listing("count_limits")
