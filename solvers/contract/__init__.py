"""The solver contract shared by every part of knapcheck.

A solver is ``solve(memory, runtimes, max_memory) -> (value, saved, recomputable)``, torch's own
signature. This module holds the pieces every solver and every checker must agree on: input
validation, the quantizations (upstream's, and the budget-safe one), and the exact view of float
runtimes. No solver rounds on its own.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence as SequenceABC
from dataclasses import dataclass
from typing import Any, Callable, Mapping, NamedTuple, Sequence, cast

SCALE = 10_000
"""Upstream's quantization scale: weight = round(memory * SCALE)."""

SAFE_SCALE = 100_000
"""The budget-safe rounding's scale: weight = ceil(memory * SAFE_SCALE), capacity rounded down.
Ten times upstream's, so that rounding each item up costs a tenth of upstream's unit (docs/harvest.md
compares scales with ``python studies/budget_price.py --scales``)."""

UPSTREAM = "upstream"
BUDGET_SAFE = "budget_safe"
"""Names of the roundings in ``ROUNDINGS``."""

EXACT_LIMIT = 2**53
"""Runtime totals below this (in units of their common power-of-two step) sum exactly in float64."""

RUNTIME_TOTAL_LIMIT = 2.0**1023
"""The positive runtimes must sum to less than this (half of float64's range), so that the total a
solver returns, and every partial sum it forms in any order, is a finite float64."""


class Solution(NamedTuple):
    """What a solver returns: a plain tuple, so torch's callers unpack it as before."""

    value: float
    saved: list[int]
    recomputable: list[int]


Solver = Callable[[Sequence[float], Sequence[float], float], tuple[float, list[int], list[int]]]


class ProblemTooLarge(Exception):
    """Raised before allocation when a solver's table would exceed the memory it is allowed.

    Not a MemoryError: it is a refusal the contract documents, not running out of memory. Whether it
    is a defect depends on the sizes the solver's registry entry declares (SolverEntry.accepts).
    """


@dataclass(frozen=True)
class Instance:
    """One knapsack problem in the contract's terms, validated on construction."""

    memory: tuple[float, ...]
    runtimes: tuple[float, ...]
    max_memory: float

    def __post_init__(self) -> None:
        memory, runtimes, max_memory = validate(self.memory, self.runtimes, self.max_memory)
        object.__setattr__(self, "memory", tuple(memory))
        object.__setattr__(self, "runtimes", tuple(runtimes))
        object.__setattr__(self, "max_memory", max_memory)

    @property
    def n(self) -> int:
        return len(self.memory)

    def quantized(self, rounding: str = UPSTREAM) -> tuple[list[int], int]:
        """Integer weights and capacity under a named rounding (``ROUNDINGS``; upstream's by default)."""
        return rounding_named(rounding).quantize(self.memory, self.max_memory)

    def as_dict(self) -> dict:
        return {
            "memory": list(self.memory),
            "runtimes": list(self.runtimes),
            "max_memory": self.max_memory,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Instance":
        missing = {"memory", "runtimes", "max_memory"} - set(data)
        if missing:
            raise ValueError(f"instance is missing {sorted(missing)}; it needs memory, runtimes and max_memory")
        return cls(data["memory"], data["runtimes"], data["max_memory"])


def sequence_items(values: object, name: str) -> list:
    """The items of an argument that must be a sequence, as a list; ValueError naming it otherwise.

    Accepted: a ``collections.abc.Sequence`` other than text (a list, a tuple, a range, an array),
    and a one-dimensional numpy array or torch tensor (read with ``tolist()``, so their items are
    Python numbers). Refused: mappings and sets (iterating them yields keys, in no defined order),
    iterators and generators (consumed by one reading), strings and bytes, and a sequence that
    fails to be read (its ``tolist()``, ``__iter__`` or ``__len__`` raising).
    """
    if _read(lambda: hasattr(values, "ndim") and hasattr(values, "tolist"), name):
        array: Any = values  # anything with ndim and tolist: each use goes through _read, which names any failure
        ndim = _read(lambda: array.ndim, name)
        if ndim != 1:
            raise ValueError(f"{name} must be one-dimensional, got a {ndim}-dimensional {type(values).__name__}")
        return _read(lambda: list(array.tolist()), name)
    if isinstance(values, (str, bytes, bytearray)) or not isinstance(values, SequenceABC):
        raise ValueError(
            f"{name} must be a sequence (a list, a tuple, a 1-D numpy array or torch tensor), got {type(values).__name__}"
        )
    return _read(lambda: list(values), name)


def _read(reading: Callable[[], object], name: str):
    """What ``reading`` returns; a ValueError naming the argument if it raises."""
    try:
        return reading()
    except Exception as exc:
        raise ValueError(f"{name} cannot be read: {_failure(exc)}") from None


def _failure(exc: Exception) -> str:
    try:
        return f"{type(exc).__name__}: {exc}"
    except Exception:
        return type(exc).__name__


def _shown(value: object) -> str:
    """A value for an error message: its repr, cut short (an int's repr may itself be refused)."""
    try:
        text = repr(value)
    except ValueError:
        return f"a {type(value).__name__} too long to print"
    except Exception:
        return f"a {type(value).__name__} that cannot be printed"
    return text if len(text) <= 60 else text[:57] + "..."


def _real(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number, got {type(value).__name__} {_shown(value)}")
    try:
        result = float(value)
    except OverflowError:
        raise ValueError(f"{name} = {_shown(value)} is beyond float64's range") from None
    except Exception as exc:
        raise ValueError(f"{name} cannot be read as a float: {_failure(exc)}") from None
    if not math.isfinite(result):
        raise ValueError(f"{name} must be finite, got {result!r}")
    return result


_PLAIN_TYPES = frozenset({float, int})
_PLAIN_SEQUENCES = frozenset({list, tuple})


def _plain_floats(
    memory: list, runtimes: list, max_memory: object
) -> tuple[list[float], list[float], float] | None:
    """validate's answer for valid lists of Python floats and ints, found by whole-list operations;
    None for anything else (the item-by-item checks then find the first bad value and name it)."""
    if type(max_memory) not in _PLAIN_TYPES or not set(map(type, memory)).union(map(type, runtimes)) <= _PLAIN_TYPES:
        return None
    try:
        memory = list(map(float, memory))
        runtimes = list(map(float, runtimes))
        max_memory = float(cast(float, max_memory))  # a float or an int (its type, above)
        # Sums of non-negative memories bound every product; a finite runtime sum means no inf or
        # nan; n times the largest runtime bounds the positive runtimes' total.
        if (memory and min(memory) < 0) or not math.isfinite(sum(memory) * SCALE) or not math.isfinite(sum(runtimes)):
            return None
        if runtimes and max(runtimes) * len(runtimes) >= RUNTIME_TOTAL_LIMIT:
            return None
    except OverflowError:
        return None
    if not (max_memory >= 0 and math.isfinite(max_memory * SCALE)):
        return None
    return memory, runtimes, max_memory


def validate(
    memory: Sequence[float], runtimes: Sequence[float], max_memory: float
) -> tuple[list[float], list[float], float]:
    """Check a problem against the contract and return it as plain Python floats.

    ``memory`` and ``runtimes`` are sequences as ``sequence_items`` accepts them. Raises ValueError
    naming the argument (and the index) of the first bad value, and when the positive runtimes sum
    to RUNTIME_TOTAL_LIMIT or more (the total could not be returned as a float).
    """
    memory = sequence_items(memory, "memory")
    runtimes = sequence_items(runtimes, "runtimes")
    if len(memory) != len(runtimes):
        raise ValueError(
            f"memory and runtimes must have the same length, got {len(memory)} and {len(runtimes)}"
        )
    plain = _plain_floats(memory, runtimes, max_memory)
    return plain if plain is not None else _checked_one_by_one(memory, runtimes, max_memory)


def _checked_one_by_one(memory: list, runtimes: list, max_memory: object) -> tuple[list[float], list[float], float]:
    checked_memory = []
    for i, m in enumerate(memory):
        m = _real(m, f"memory[{i}]")
        if m < 0:
            raise ValueError(f"memory[{i}] must be >= 0, got {m!r}")
        if not math.isfinite(m * SCALE):
            raise ValueError(f"memory[{i}] = {m!r} is too large to quantize")
        checked_memory.append(m)
    checked_runtimes = [_real(r, f"runtimes[{i}]") for i, r in enumerate(runtimes)]
    _check_runtime_total(checked_runtimes)
    max_memory = _real(max_memory, "max_memory")
    if max_memory < 0:
        raise ValueError(f"max_memory must be >= 0, got {max_memory!r}")
    if not math.isfinite(max_memory * SCALE):
        raise ValueError(f"max_memory = {max_memory!r} is too large to quantize")
    return checked_memory, checked_runtimes, max_memory


def _check_runtime_total(runtimes: list[float]) -> None:
    try:
        total = math.fsum(r for r in runtimes if r > 0)
    except OverflowError:
        total = math.inf
    if total >= RUNTIME_TOTAL_LIMIT:
        shown = "more than float64 holds" if total == math.inf else repr(total)
        raise ValueError(
            f"runtimes: the positive runtimes sum to {shown}; they must sum to less than 2**1023 (half of "
            "float64's range), so that the total saved is a finite float64"
        )


def quantize(memory: Sequence[float], max_memory: float, scale: int = SCALE) -> tuple[list[int], int]:
    """Upstream's quantization: Python's round (ties to even) of the float product m * scale."""
    return [round(m * scale) for m in memory], round(max_memory * scale)


def quantized(memory: float, scale: int) -> int:
    """``quantize``'s formula for one memory, as a function numba compiles as it is (numba's ``round``
    of a float is Python's, ties to even): the compiled search's entry quantizes with it."""
    return round(memory * scale)


def plain_arrays(memory: object, runtimes: object, max_memory: object):
    """``(memory, runtimes, max_memory)`` as two float64 numpy arrays and a float when both are lists
    or tuples of Python floats and ints and ``max_memory`` is one: read whole, not item by item, and
    not checked (a caller that uses them checks their values, or takes ``validate``'s path). None
    otherwise, and when an int is beyond float64's range."""
    if type(memory) not in _PLAIN_SEQUENCES or type(runtimes) not in _PLAIN_SEQUENCES:
        return None
    memory_items, runtime_items = cast(Sequence[object], memory), cast(Sequence[object], runtimes)  # lists or tuples (above)
    if len(memory_items) != len(runtime_items):
        return None
    if type(max_memory) not in _PLAIN_TYPES or not set(map(type, memory_items)).union(map(type, runtime_items)) <= _PLAIN_TYPES:
        return None
    import numpy as np

    try:
        # max_memory is a float or an int (its type, above).
        return np.array(memory, dtype=np.float64), np.array(runtimes, dtype=np.float64), float(cast(float, max_memory))
    except OverflowError:
        return None


def quantize_budget_safe(memory: Sequence[float], max_memory: float, scale: int = SAFE_SCALE) -> tuple[list[int], int]:
    """Weights rounded up and the capacity rounded down, of the exact products m * scale.

    A set whose weights fit the capacity then keeps its real memory within the budget:
    sum(m_i) * scale <= sum(w_i) <= C <= max_memory * scale, exactly; and ``math.fsum`` of the m_i,
    being the exact sum correctly rounded, cannot pass the float max_memory either. The products are
    taken on the floats' exact ratios: rounding the float product up is not safe (m = k / scale
    stored a hair above k / scale gives the float product k, whose ceiling undercounts it).
    """
    return [_ceil_scaled(m, scale) for m in memory], -_ceil_scaled(-max_memory, scale)


def _ceil_scaled(value: float, scale: int) -> int:
    """ceil(value * scale), computed exactly."""
    numerator, denominator = float(value).as_integer_ratio()
    return -(-numerator * scale // denominator)


@dataclass(frozen=True)
class Rounding:
    """A way to turn memories into integer weights, which a solver promises to be exact for."""

    name: str
    quantize: Callable[[Sequence[float], float], tuple[list[int], int]]
    keeps_real_budget: bool
    """Every set feasible in these units has real memory (``math.fsum``) at most max_memory."""


ROUNDINGS: dict[str, Rounding] = {
    UPSTREAM: Rounding(UPSTREAM, quantize, keeps_real_budget=False),
    BUDGET_SAFE: Rounding(BUDGET_SAFE, quantize_budget_safe, keeps_real_budget=True),
}
"""Every rounding a registered solver may promise; the checks judge a solver on its own."""


def rounding_named(name: str) -> Rounding:
    if name not in ROUNDINGS:
        raise ValueError(f"unknown rounding {name!r}; known: {', '.join(ROUNDINGS)}")
    return ROUNDINGS[name]


def exact_scale(runtimes: Sequence[float]) -> int | None:
    """The power of two 2**k that turns every runtime into an integer, if the instance is exact.

    An instance is exact when all runtimes are multiples of 2**-k and the sum of their absolute
    values is below 2**53 in those units: then every subset sum, in any order, is exact in float64,
    and every exact solver must return identical values. Returns None otherwise.
    """
    exact = exact_units(runtimes)
    return None if exact is None else exact[1]


def exact_units(runtimes: Sequence[float]) -> tuple[list[int], int] | None:
    """``exact_runtimes`` when the instance is exact (see exact_scale), None otherwise."""
    integers, denominator = exact_runtimes(runtimes)
    return (integers, denominator) if sum(abs(v) for v in integers) < EXACT_LIMIT else None


def exact_runtimes(runtimes: Sequence[float]) -> tuple[list[int], int]:
    """Every float is a dyadic rational: return integer runtimes and their common denominator.

    Unlike exact_scale this always succeeds (Python ints are unbounded), so any subset's value can
    be compared exactly, whatever the instance.
    """
    floats = list(map(float, runtimes))
    if all(map(float.is_integer, floats)):
        return list(map(int, floats)), 1
    ratios = [r.as_integer_ratio() for r in floats]
    denominator = max((d for _, d in ratios), default=1)
    return [num * (denominator // d) for num, d in ratios], denominator


def exact_integers(runtimes: Sequence[float]) -> list[int]:
    """The runtimes as integers in one common unit (a power of two; 1 when they are all integers)."""
    if all(float(r).is_integer() for r in runtimes):
        return [int(r) for r in runtimes]
    return exact_runtimes(runtimes)[0]


UNIT_ROUNDOFF = 2.0**-53
"""u: float64's relative rounding error."""


def float_tolerance(
    runtimes: Sequence[float], weights: Sequence[int] | None = None, capacity: int | None = None
) -> float:
    """How far a float64 solver's best value may honestly fall short on an inexact instance, and how far
    its reported total may honestly differ from the exact sum of its saved runtimes.

    A float64 solver compares sums of runtimes that it computes with rounding. Summing k terms in
    any order errs by at most gamma(k - 1) * sum|terms|, gamma(j) = j * u / (1 - j * u), u = 2**-53
    (Higham, Accuracy and Stability of Numerical Algorithms, eq. 4.4). Let A be the set it returns
    and B an optimal set, both feasible. Rounding is monotone, so a solver that keeps the larger
    computed sum at every step computes fl(A) >= fl(B), whence
        value(B) - value(A) <= gamma(k - 1) * (value(A) + value(B)) <= 2 * gamma(k - 1) * V,
    where k bounds how many positive-runtime items a feasible set holds and V bounds a feasible
    set's value. The reported total fl(A) is off by at most gamma(k - 1) * V, which this bounds too.

    Only what can be saved enters k and V: with the quantized ``weights`` and ``capacity``, the
    items of positive runtime whose weight fits the capacity; k is how many of the lightest of them
    fit together; V is the fractional-knapsack (Dantzig) bound on them, which no feasible set
    exceeds. Without weights, every positive runtime counts (k = n, V = their sum). Items that
    can never be saved then no longer widen the tolerance: 198 items of runtime 1e20 that do not
    fit made the old bound, summed over all runtimes, wider than a real gap of 8e8.

    V is computed in float64 (``math.fsum``, items ordered by float ratios), which errs by a few u
    relative to V; the result is raised by a relative 2**-48 (32 u) to cover that.

    Zero on exact instances (``exact_scale``), where values must be identical.
    """
    if exact_scale(runtimes) is not None:
        return 0.0
    if weights is None or capacity is None:
        positive = [r for r in runtimes if r > 0]
        count, bound = len(positive), math.fsum(positive)
    else:
        candidates = [(r, w) for r, w in zip(runtimes, weights) if r > 0 and w <= capacity]
        count, bound = _most_items(candidates, capacity), _fractional_bound(candidates, capacity)
    if count == 0:
        return 0.0
    gamma = count * UNIT_ROUNDOFF / (1 - count * UNIT_ROUNDOFF)
    return 2 * gamma * bound * (1 + 2.0**-48)


def _most_items(items: list[tuple[float, int]], capacity: int) -> int:
    """The most of these items one feasible set holds: the lightest ones, as many as fit."""
    total = count = 0
    for weight in sorted(w for _, w in items):
        total += weight
        if total > capacity:
            break
        count += 1
    return count


def _fractional_bound(items: list[tuple[float, int]], capacity: int) -> float:
    """Dantzig's bound: items by runtime per unit of weight, whole while they fit, then a fraction
    of the next. No feasible set of these items is worth more."""
    whole, room = [], capacity
    for runtime, weight in sorted(items, key=lambda item: -item[0] / item[1] if item[1] else -math.inf):
        if weight > room:
            whole.append(runtime * (room / weight))
            break
        whole.append(runtime)
        room -= weight
    return math.fsum(whole)
