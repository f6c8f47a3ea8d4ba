"""Deciding items before any DP: the Lagrangian bound test of Dembo and Hammer (1980).

For any multiplier ``lam >= 0`` and any selection x within the capacity C,

    value(x) = sum (v_j - lam * w_j) x_j + lam * sum w_j x_j  <=  sum max(0, v_j - lam * w_j) + lam * C,

so ``U = sum max(0, d_j) + lam * C`` (``d_j = v_j - lam * w_j``) bounds the optimum, and a
selection that sets x_j against the sign of ``d_j`` is worth at most ``U - |d_j|``. When that is
below the value of a known selection, no optimal selection sets x_j that way: an item with
``d_j > 0`` is in every optimal selection, one with ``d_j < 0`` in none. Fixing them leaves the
set of optimal selections unchanged, and the DP only sees the undecided items, with the capacity
the taken ones leave.

``lam`` is the efficiency ``v_b / w_b`` of the break item (the first that no longer fits when items
are taken by decreasing efficiency), the multiplier of the LP relaxation, and the known selection
is the greedy one (by decreasing efficiency, every item that still fits). On FLOP-scale runtimes,
whose efficiencies spread over orders of magnitude, this decides all but a few dozen items.

All comparisons are on exact integers, scaled by ``w_b`` so that no fraction appears: the float
sort only chooses ``lam`` and the greedy selection, which need not be exact for the test to hold
(values too large for a float are shifted right before they are divided).
"""

from __future__ import annotations

from typing import Sequence, cast

from .contract import exact_integers


def fix_by_bounds(weights: Sequence[int], values: Sequence[int], capacity: int) -> tuple[list[int], list[int]]:
    """The positions every optimal selection takes, and those the bound leaves undecided.

    ``weights`` are in ``[1, capacity]`` and ``values`` positive integers; positions missing from
    both lists are in no optimal selection. Ties in efficiency keep the given order (the sort is
    stable), and the d_j are recomputed rather than stored: at partitioner scale this function's
    Python objects would otherwise outweigh the DP's profiles.
    """
    n = len(weights)
    if sum(weights) <= capacity:
        return list(range(n)), []
    largest = max(values)
    shift = max(0, largest.bit_length() - 1000)
    by_efficiency = sorted(range(n), key=lambda j: -(values[j] >> shift) / weights[j])
    room = capacity
    greedy = 0
    break_item = None
    for j in by_efficiency:
        if weights[j] <= room:
            room -= weights[j]
            greedy += values[j]
        elif break_item is None:
            break_item = j
    del by_efficiency
    break_item = cast(int, break_item)  # the weights add up to more than capacity: one item did not fit
    v_b, w_b = values[break_item], weights[break_item]
    bound = sum(max(0, v * w_b - v_b * w) for w, v in zip(weights, values)) + v_b * capacity
    known = max(greedy, largest) * w_b
    taken, undecided = [], []
    for j, (w, v) in enumerate(zip(weights, values)):
        d = v * w_b - v_b * w
        if bound - abs(d) >= known:
            undecided.append(j)
        elif d > 0:
            taken.append(j)
    return taken, undecided


def dp_candidates(weights: Sequence[int], runtimes: Sequence[float], capacity: int) -> list[int]:
    """The indices a DP may choose from: weight in [1, capacity] and a positive runtime."""
    return [i for i, (w, r) in enumerate(zip(weights, runtimes)) if 0 < w <= capacity and r > 0]


def decide_by_bounds(
    weights: Sequence[int], runtimes: Sequence[float], candidates: list[int], capacity: int
) -> tuple[list[int], list[int]]:
    """The candidates the bound test takes, and those it leaves to the DP (indices, as ``candidates``)."""
    taken, undecided = fix_by_bounds(
        [weights[i] for i in candidates], exact_integers([runtimes[i] for i in candidates]), capacity
    )
    return [candidates[j] for j in taken], [candidates[j] for j in undecided]
