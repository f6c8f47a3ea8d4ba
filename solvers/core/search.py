"""The expanding-core search for the 0/1 knapsack problem, written once, run two ways.

The algorithm follows the published descriptions of Pisinger's minimal-core algorithm
("A minimal algorithm for the 0-1 knapsack problem", Operations Research 45, 1997) and of Martello,
Pisinger and Toth's Combo ("Dynamic programming and strong bounds for the 0-1 knapsack problem",
Management Science 45, 1999); the code is ours. Its parts:

- ``core.items``: items partially sorted by efficiency around the break item, the rest in
  intervals sorted only when the search reaches them, after the Dembo-Hammer test drops what it can;
- ``core.states``: the undominated (weight, profit) states and how the best one's items are found;
- ``core.expansion``: one search growing the core, with Combo's first core, divisibility of the
  weights (a smaller capacity) and of the profits (a value better selections must have), and
  pairings of states with far items, one at a time or as the subsets of a group (``core.reductions``);
- ``core.surrogate``: the surrogate relaxation of a cardinality constraint, solved as a knapsack,
  and a bound for profits that are weights plus one of two bonuses;
- ``core.proportional``: problems whose items have at most two efficiencies, solved in two integer
  variables (Pisinger's spanner classes), before any expansion.

``search`` runs one expansion; if its states outnumber ``SURROGATE_STATES`` it stops, bounds the
problem by the surrogate relaxation (whose solution may be optimal outright) and searches again with
that bound, which ends the search as soon as a selection reaches it. (numba compiles no recursion
of ours, so the surrogate problem is solved by a second expansion rather than by the first one
calling itself; the first expansion's work is repeated, up to ``SURROGATE_STATES`` states.)

``select`` puts aside what needs no search (values <= 0, zero weights, items heavier than the
capacity, items that all fit) and calls ``search`` on the rest.

Two ways to run: ``select`` is plain Python on lists of Python integers, exact whatever their size;
``compiled_select`` is the same function compiled by numba for int64 arrays, used when every sum
fits (``core.arith`` holds the few operations that differ, with the margins that keep the compiled
bound tests safe). numba's on-disk cache only notices changes to this file, not to the modules it
calls, so ``HELPERS_DIGEST`` names their sources: the cache is used only while it matches
(``tests/test_expanding_core.py`` says when it is stale).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numba
from numba.extending import register_jitable

from .arith import integers
from .expansion import NO_LIMIT, REDUCTIONS, SURROGATE, TWO_EFFICIENCIES, expand
from .proportional import two_efficiencies
from .surrogate import surrogate_bound

SURROGATE_STATES = 2000
"""States beyond which the first expansion stops for the surrogate relaxation."""
HELPERS = (
    "arith.py",
    "items.py",
    "states.py",
    "reductions.py",
    "expansion.py",
    "surrogate.py",
    "proportional.py",
)
HELPERS_DIGEST = "2eae53adaeaf3731d006ae1826d64847cba2195fa8e6d2fcac7fa3b572bc26ee"
"""sha256 of the helper modules' sources (``helpers_digest()``), updated with every change to them."""


@register_jitable
def search(weights, profits, capacity, reductions=REDUCTIONS):
    """Which items an optimal selection takes (1) or leaves (0), for items that fit on their own.

    ``weights`` are in ``[1, capacity]``, ``profits`` positive, and the weights sum to more than
    ``capacity``. Returns a list (or, compiled, an array) of 0/1 in the given item order.
    ``reductions`` (flags of ``core.expansion``) switches Combo's reductions on and off; every
    combination finds an optimum.
    """
    if reductions & TWO_EFFICIENCIES:
        taken = two_efficiencies(weights, profits, capacity)
        if len(taken) > 0:
            return taken
    first_limit = SURROGATE_STATES if reductions & SURROGATE else NO_LIMIT
    taken, value, limited = expand(weights, profits, capacity, -1, -1, first_limit, reductions)
    if limited:
        bound, better, better_value = surrogate_bound(weights, profits, capacity, value, reductions)
        if len(better) > 0:
            taken = better
            value = better_value
        if value < bound:
            again, _, _ = expand(weights, profits, capacity, value, bound, NO_LIMIT, reductions)
            if len(again) > 0:
                taken = again
    return taken


@register_jitable
def select(weights, values, capacity):
    """The items an optimal selection saves and those it leaves, each in increasing order (lists,
    or compiled, arrays), for any items with integer weights and values: values <= 0 are never
    taken, zero weights with a positive value always, items heavier than the capacity never, and
    when the rest fit together they are all taken; what is left goes to ``search``."""
    n = len(weights)
    taken = integers(n)
    candidates = integers(n)
    count = 0
    total = 0
    for i in range(n):
        if values[i] > 0:
            if weights[i] == 0:
                taken[i] = 1
            elif weights[i] <= capacity:
                candidates[count] = i
                count += 1
                total += weights[i]
    if total <= capacity:
        for k in range(count):
            taken[candidates[k]] = 1
    elif count == n:
        taken = search(weights, values, capacity)
    else:
        candidate_w = integers(count)
        candidate_p = integers(count)
        for k in range(count):
            candidate_w[k] = weights[candidates[k]]
            candidate_p[k] = values[candidates[k]]
        chosen = search(candidate_w, candidate_p, capacity)
        for k in range(count):
            if chosen[k] == 1:
                taken[candidates[k]] = 1
    kept = 0
    for i in range(n):
        kept += taken[i]
    saved = integers(kept)
    recomputable = integers(n - kept)
    kept = 0
    for i in range(n):
        if taken[i] == 1:
            saved[kept] = i
            kept += 1
        else:
            recomputable[i - kept] = i
    return saved, recomputable


def helpers_digest() -> str:
    here = Path(__file__).parent
    return hashlib.sha256(b"".join((here / name).read_bytes() for name in HELPERS)).hexdigest()


CACHED = helpers_digest() == HELPERS_DIGEST
"""Whether numba keeps ``compiled_select`` in its on-disk cache."""


def compiled(function, cache: bool = CACHED):
    """``function`` compiled by numba, kept in numba's on-disk cache where numba finds a place to
    write one. Where it finds none (a read-only install and home: numba raises "no locator
    available" when asked to cache), it is compiled in each process instead: the cache costs time
    when it breaks, never the solver."""
    try:
        return numba.njit(cache=cache)(function)
    except RuntimeError:
        return numba.njit(cache=False)(function)


compiled_select = compiled(select)
"""``select`` compiled for int64 arrays (see ``expanding_core.COMPILED_LIMIT`` for what must fit)."""
