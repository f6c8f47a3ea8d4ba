"""expanding_core: an exact solver that grows a core of items around the LP solution's break item.

The contract's validation and quantization first (for lists of plain floats with integer runtimes,
the usual case, checked and quantized inside one compiled call, ``compiled_solve``: item-by-item
Python work and a call's fixed cost are most of a small problem's time); then
runtimes <= 0 are never taken, zero-weight
items with a positive runtime always are, items heavier than the budget never are, and when the
rest fit together they are all taken (``core.search.select``). What is left goes to the search of
``knapcheck.solvers.core.search`` (the algorithm and why it is exact are described there) with the
runtimes as exact integers in their common unit: compiled by numba when every weight and runtime
sum fits an int64 and numba's cache holds the compiled code (``COMPILED``: until then, a background
process compiles it, ``knapcheck.solvers.cache.compiled_in_background``), in plain Python on Python
integers otherwise; both give the same answer. The answer is deterministic: no
threads and no randomness (among equal optima, the one the search meets first).

Memory: the search's states and its checkpoints, O(n) besides; nothing grows with the budget.
"""

from __future__ import annotations

import hashlib
import inspect
import math
from pathlib import Path
from typing import Sequence

import numba
import numpy as np
from numba.extending import register_jitable

from .cache.compiled_in_background import CompiledInBackground
from .contract import SCALE, Solution, exact_runtimes, plain_arrays, quantize, quantized, validate
from .core import search as core_search
from .core.arith import integers
from .core.search import compiled_select, select

COMPILED_LIMIT = 2**59
"""The compiled search runs when n times the capacity and n times the largest runtime (in its
common unit) are below this, and every weight and runtime fits too: its sums then stay below
2**60, int64 with room for the surrogate problems' capacities and the merge's sentinel."""


def expanding_core(
    memory: Sequence[float], runtimes: Sequence[float], max_memory: float, *, scale: int = SCALE
) -> Solution:
    return solve(memory, runtimes, max_memory, scale, compiled=COMPILED.ready())


def solve(memory: Sequence[float], runtimes: Sequence[float], max_memory: float, scale: int, *, compiled: bool) -> Solution:
    """``expanding_core``, through the compiled functions or in plain Python alone: the same answer."""
    plain = plain_arrays(memory, runtimes, max_memory) if compiled else None
    if plain is not None:
        solved, saved, recomputable, total = compiled_solve(*plain, scale)
        if solved:
            return Solution(float(total), saved.tolist(), recomputable.tolist())
    memory, runtimes, max_memory = validate(memory, runtimes, max_memory)
    weights, capacity = quantize(memory, max_memory, scale)
    values, _ = exact_runtimes(runtimes)
    if compiled and _fits_int64(weights, values, capacity):
        saved, recomputable = compiled_select(np.array(weights, dtype=np.int64), np.array(values, dtype=np.int64), capacity)
        saved, recomputable = saved.tolist(), recomputable.tolist()
    else:
        saved, recomputable = select(weights, values, capacity)
    return Solution(math.fsum([runtimes[i] for i in saved]), saved, recomputable)


def _fits_int64(weights: list[int], values: list[int], capacity: int) -> bool:
    """Whether the compiled search can hold every sum it forms (see ``COMPILED_LIMIT``)."""
    n = len(values)
    return (
        n > 0
        and n * capacity < COMPILED_LIMIT
        and n * max(values) < COMPILED_LIMIT
        and min(values) > -COMPILED_LIMIT
        and max(weights) < COMPILED_LIMIT
    )


PLAIN_LIMIT = 2.0**58
"""``compiled_solve`` takes a problem as it is only when every quantized weight, the capacity, every
runtime, and n times the capacity and n times the largest runtime are below this (with room to
spare under ``COMPILED_LIMIT``, as float products are rounded)."""


def solve_plain(memory, runtimes, max_memory, scale):
    """``select`` on float64 memories and runtimes, quantized as the contract says: ``(True, saved,
    recomputable, total)``, ``total`` the saved runtimes' sum, when every memory is non-negative,
    every runtime an integer, and all of it small enough for int64 (``PLAIN_LIMIT``); otherwise
    ``(False, ...)`` and the caller takes the general path, which also names what is invalid.
    (Compiled, as ``compiled_solve``; the sum of integers below 2**63 is exact, so it rounds to the
    float the contract's ``math.fsum`` of the saved runtimes gives. It calls ``compiled_select``
    rather than ``select``, so that numba compiles the search once for both, not into each.)"""
    n = len(memory)
    none = integers(0)
    limit = PLAIN_LIMIT / (n + 1)
    if not (0 <= max_memory * scale < limit):
        return False, none, none, 0
    capacity = quantized(max_memory, scale)
    weights = integers(n)
    values = integers(n)
    for i in range(n):
        product = memory[i] * scale
        runtime = runtimes[i]
        if not (0 <= product < PLAIN_LIMIT and -limit < runtime < limit and runtime == int(runtime)):
            return False, none, none, 0
        weights[i] = quantized(memory[i], scale)
        values[i] = int(runtime)
    saved, recomputable = compiled_select(weights, values, capacity)
    total = 0
    for i in saved:
        total += values[i]
    return True, saved, recomputable, total


ENTRY_DIGEST = "c91761841c13dccfc7055ba4497a512928d90916cbec9603afdc6b46b95756c9"
"""``entry_digest()``: numba's cache notices changes to this file only, not to the search and the
contract's formula ``solve_plain`` compiles with them, so it is used only while this matches
(``tests/test_expanding_core.py`` says when it is stale)."""


def entry_digest() -> str:
    """sha256 of ``core/search.py``, its helpers' digest and ``contract.quantized``'s source."""
    search_source = Path(core_search.__file__).read_bytes() + core_search.helpers_digest().encode()
    return hashlib.sha256(search_source + inspect.getsource(quantized).encode()).hexdigest()


register_jitable(quantized)
CACHED = entry_digest() == ENTRY_DIGEST and core_search.CACHED
"""Whether numba keeps both compiled functions in its on-disk cache (not while a source they
depend on differs from the one its digest names)."""
compiled_solve = numba.njit(cache=CACHED)(solve_plain)
"""``solve_plain`` compiled for float64 arrays."""

COMPILED_ENTRIES = {"compiled_solve": 1.0, "compiled_select": 0.5}
"""The compiled functions, and a runtime that makes ``solve`` call each one (an integer runtime is
solved by ``compiled_solve``; a fraction goes on to ``compiled_select``)."""


def compile_entry(name: str) -> None:
    """Compile one of COMPILED_ENTRIES in this process (or load it from numba's cache), as ``solve`` calls it."""
    solve([0.1], [COMPILED_ENTRIES[name]], 0.1, SCALE, compiled=True)


COMPILED = CompiledInBackground(
    "expanding_core", (__file__, core_search.__file__), CACHED, list(COMPILED_ENTRIES), compile_entry,
    "from knapcheck.solvers.expanding_core import COMPILED; COMPILED.compile_all()",
)
"""Whether numba's cache holds both compiled functions yet."""
