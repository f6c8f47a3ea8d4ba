"""The expanding-core search for the 0/1 knapsack problem, written once, run two ways.

The algorithm follows the published descriptions of Pisinger's minimal-core algorithm
("A minimal algorithm for the 0-1 knapsack problem", Operations Research 45, 1997) and of Martello,
Pisinger and Toth's Combo ("Dynamic programming and strong bounds for the 0-1 knapsack problem",
Management Science 45, 1999); the code is ours. Its parts:

- ``core_items``: items partially sorted by efficiency around the break item, the rest in
  intervals sorted only when the search reaches them, after the Dembo-Hammer test drops what it can;
- ``core_states``: the undominated (weight, profit) states and how the best one's items are found;
- ``core_expansion``: one search growing the core, with Combo's divisibility reduction of the
  capacity and its heuristic pairing states with far items (``core_reductions``);
- ``core_surrogate``: the surrogate relaxation of a cardinality constraint, solved as a knapsack.

``search`` runs one expansion; if its states outnumber ``SURROGATE_STATES`` it stops, bounds the
problem by the surrogate relaxation (whose solution may be optimal outright) and searches again with
that bound, which ends the search as soon as a selection reaches it.

Two ways to run: ``search`` is plain Python on lists of Python integers, exact whatever their size;
``compiled_search`` is the same function compiled by numba for int64 arrays, used when every sum
fits (``core_arith`` holds the few operations that differ, with the margins that keep the compiled
bound tests safe). numba's on-disk cache only notices changes to this file, not to the modules it
calls, so ``HELPERS_DIGEST`` names their sources: the cache is used only while it matches
(``tests/test_expanding_core.py`` says when it is stale).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numba

from knapcheck.solvers.core_expansion import NO_LIMIT, REDUCTIONS, SURROGATE, expand
from knapcheck.solvers.core_surrogate import surrogate_bound

SURROGATE_STATES = 2000
"""States beyond which the first expansion stops for the surrogate relaxation."""
HELPERS = ("core_arith.py", "core_items.py", "core_states.py", "core_reductions.py", "core_expansion.py", "core_surrogate.py")
HELPERS_DIGEST = "d1b14ddc512f05df19177edd734309b468e8b53d627208d839cb7be861f3aeb4"
"""sha256 of the helper modules' sources (``helpers_digest()``), updated with every change to them."""


def search(weights, profits, capacity, reductions=REDUCTIONS):
    """Which items an optimal selection takes (1) or leaves (0), for items that fit on their own.

    ``weights`` are in ``[1, capacity]``, ``profits`` positive, and the weights sum to more than
    ``capacity``. Returns a list (or, compiled, an array) of 0/1 in the given item order.
    ``reductions`` (flags of ``core_expansion``) switches Combo's reductions on and off; every
    combination finds an optimum.
    """
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


def helpers_digest() -> str:
    here = Path(__file__).parent
    return hashlib.sha256(b"".join((here / name).read_bytes() for name in HELPERS)).hexdigest()


compiled_search = numba.njit(cache=helpers_digest() == HELPERS_DIGEST)(search)
"""``search`` compiled for int64 arrays; every weight and profit sum must fit in an int64."""
