"""The expanding-core search for the 0/1 knapsack problem, written once, run two ways.

The algorithm follows the published descriptions of Pisinger's minimal-core algorithm
("A minimal algorithm for the 0-1 knapsack problem", Operations Research 45, 1997) and of Martello,
Pisinger and Toth ("Dynamic programming and strong bounds for the 0-1 knapsack problem",
Management Science 45, 1999); the code is ours.

Items are ordered by decreasing efficiency (profit per weight). The break solution takes every item
before the break item ``b``, the first that no longer fits. Each state of the search is a
(weight, profit) pair that differs from the break solution only on a core, a run of items around
``b``: the core grows by one item at a time, alternately the next item after it (which states may
add) and the next one before it (which states may remove). Merging the states with their shifted
copies keeps only undominated ones (a state is dominated when another weighs no more and is worth
no less), and every state whose upper bound cannot beat the best solution found so far is dropped:
for a state within the capacity, its profit plus the slack times the efficiency of the next item
that may be added (Dantzig's bound on what is left); for a state over it, its profit minus the
excess times the efficiency of the next item that may be removed. Before an item joins the core,
the Lagrangian bound of Dembo and Hammer with the break item's efficiency tells whether flipping it
can lead to a better solution at all; if not, it keeps its break-solution value and never enters.
The search ends when no state is left (the best solution is optimal), when every item has been in
the core, or when the best solution reaches an upper bound on the optimum: the LP relaxation's at
first, and once the states first outnumber ``LARGE_STATES``, cardinality bounds (Lagrangian
relaxations of "at most as many items as the lightest ones that fit" and "at least as many as the
richest ones an improving selection needs", each minimized over its multiplier), which close
instances whose profits follow their weights, where the LP bound stays loose.

Recovering the chosen items: every state carries the decisions of the last ``WINDOW`` core steps as
bits, and every ``WINDOW`` steps the states' weights and bits are kept as a checkpoint. The best
solution's bits give its last steps; undoing them gives the weight of its ancestor at the checkpoint
before, where a binary search finds it (weights are unique among undominated states), and its bits
give the steps before. Checkpoints hold one ``WINDOW``-th of the states the search creates.

Two ways to run: ``search`` is plain Python on lists of Python integers, exact whatever their size;
``compiled_search`` is the same function compiled by numba for int64 arrays, used when every sum
fits. The few operations that differ between the two (allocating, ordering by efficiency, testing a
bound) are small functions below with a numba overload each. The compiled bound test works in
float64 with a safety margin far above its rounding error, so it keeps every state the exact test
keeps (and perhaps a few more): pruning less never changes the optimum.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numba
import numpy as np
from numba.extending import overload, register_jitable

WINDOW = 62
"""Core steps each state remembers (bits of an int64 that stays non-negative when shifted)."""
_BITS = (1 << WINDOW) - 1
LARGE_STATES = 1000
"""When the states first outnumber this, the cardinality bounds are tried (see the search loop)."""
_MARGIN = 2.0**-40
"""Relative margin of the compiled bound test: its rounding error is a few units of 2**-52."""


def integers(size):
    """``size`` zeros: Python integers in plain Python, int64 once compiled."""
    return [0] * size


@overload(integers)
def _integers_compiled(size):
    return lambda size: np.zeros(size, np.int64)


def by_efficiency(weights, profits):
    """Positions by decreasing profit / weight, ties in given order (exact fractions in Python)."""
    return sorted(range(len(weights)), key=lambda i: Fraction(profits[i], weights[i]), reverse=True)


@overload(by_efficiency)
def _by_efficiency_compiled(weights, profits):
    # Float efficiencies may order near-equal items differently from the exact ones; the margin of
    # the compiled bound test covers the difference (see may_improve).
    return lambda weights, profits: np.argsort(-(profits / weights), kind="mergesort")


def may_improve(profit, slack, rate_profit, rate_weight, target, scale):
    """Whether ``profit + slack * rate_profit / rate_weight >= target`` (rate_weight > 0).

    ``scale`` (the total profit of all items) only sizes the compiled version's margin.
    """
    return (profit - target) * rate_weight + slack * rate_profit >= 0


@overload(may_improve)
def _may_improve_compiled(profit, slack, rate_profit, rate_weight, target, scale):
    def test(profit, slack, rate_profit, rate_weight, target, scale):
        gain = float(slack) * (float(rate_profit) / float(rate_weight))
        bound = float(profit) + gain
        margin = _MARGIN * (abs(float(profit)) + abs(gain) + float(target) + float(scale))
        return bound + margin >= float(target)

    return test


def floor_bound(base, slack, rate_profit, rate_weight, scale):
    """At least ``base + slack * rate_profit / rate_weight`` (rate_weight > 0): its floor in Python."""
    return base + slack * rate_profit // rate_weight


@overload(floor_bound)
def _floor_bound_compiled(base, slack, rate_profit, rate_weight, scale):
    def bound(base, slack, rate_profit, rate_weight, scale):
        gain = float(slack) * (float(rate_profit) / float(rate_weight))
        return int(math.floor(float(base) + gain + _MARGIN * (abs(float(base)) + abs(gain) + float(scale))))

    return bound


def ascending(values):
    return sorted(values)


@overload(ascending)
def _ascending_compiled(values):
    return lambda values: np.sort(values)


@register_jitable
def dantzig_bound(w, p, shift, capacity, scale):
    """The LP relaxation's value for profits ``p + shift`` (items whose shifted profit is positive)."""
    n = len(w)
    kept = 0
    shifted = integers(n)
    kept_w = integers(n)
    for i in range(n):
        if p[i] + shift > 0:
            shifted[kept] = p[i] + shift
            kept_w[kept] = w[i]
            kept += 1
    shifted = shifted[:kept]
    kept_w = kept_w[:kept]
    order = by_efficiency(kept_w, shifted)
    room = capacity
    value = 0
    for i in order:
        if kept_w[i] > room:
            return floor_bound(value, room, shifted[i], kept_w[i], scale)
        room -= kept_w[i]
        value += shifted[i]
    return floor_bound(value, 0, 0, 1, scale)


@register_jitable
def convex_minimum(w, p, sign, count, capacity, scale):
    """The least of ``dantzig_bound(shift = sign * m) - sign * m * count`` over integers m >= 0.

    With ``sign = -1`` and ``count`` the most items that fit, or ``sign = 1`` and ``count`` the
    fewest an improving selection needs, each value bounds the optimum of the problem with that
    cardinality constraint added (a Lagrangian relaxation of it); the function is convex in m.
    """
    low = 0
    high = 0
    for i in range(len(p)):
        high = max(high, p[i])
    while low < high:
        middle = (low + high) // 2
        here = dantzig_bound(w, p, sign * middle, capacity, scale) - sign * middle * count
        after = dantzig_bound(w, p, sign * (middle + 1), capacity, scale) - sign * (middle + 1) * count
        if after < here:
            low = middle + 1
        else:
            high = middle
    return dantzig_bound(w, p, sign * low, capacity, scale) - sign * low * count


@register_jitable
def most_items_bound(w, p, capacity, scale):
    """An upper bound from the most items that fit together (the lightest ones)."""
    n = len(w)
    lightest = ascending(w)
    most = 0
    room = capacity
    while most < n and lightest[most] <= room:
        room -= lightest[most]
        most += 1
    return convex_minimum(w, p, -1, most, capacity, scale)


@register_jitable
def fewest_items_bound(w, p, capacity, best, scale):
    """An upper bound on selections worth more than ``best``, from the fewest items they need."""
    n = len(w)
    richest = ascending(p)
    fewest = 0
    reached = 0
    while fewest < n and reached <= best:
        reached += richest[n - 1 - fewest]
        fewest += 1
    return convex_minimum(w, p, 1, fewest, capacity, scale)


def search(weights, profits, capacity):
    """Which items an optimal selection takes (1) or leaves (0), for items that fit on their own.

    ``weights`` are in ``[1, capacity]``, ``profits`` positive, and the weights sum to more than
    ``capacity``. Returns a list (or, compiled, an array) of 0/1 in the given item order.
    """
    n = len(weights)
    order = by_efficiency(weights, profits)
    w = integers(n)
    p = integers(n)
    total = 0
    for i in range(n):
        w[i] = weights[order[i]]
        p[i] = profits[order[i]]
        total += p[i]

    # The break solution, and the greedy one (every later item that still fits) as first incumbent.
    b = 0
    break_weight = 0
    break_profit = 0
    while break_weight + w[b] <= capacity:
        break_weight += w[b]
        break_profit += p[b]
        b += 1
    best = break_profit
    room = capacity - break_weight
    for i in range(b + 1, n):
        if w[i] <= room:
            room -= w[i]
            best += p[i]
    best_step = -1
    best_weight = 0
    best_bits = 0

    # States sorted by weight, profits strictly increasing; two buffers, the merge writes the other.
    state_size = 64
    state_w = integers(state_size)
    state_p = integers(state_size)
    state_bits = integers(state_size)
    other_size = 64
    other_w = integers(other_size)
    other_p = integers(other_size)
    other_bits = integers(other_size)
    count = 1
    state_w[0] = break_weight
    state_p[0] = break_profit
    step_item = integers(n + 1)
    step_adds = integers(n + 1)
    checkpoint_w = [integers(1)]
    checkpoint_bits = [integers(1)]
    checkpoint_w[0][0] = break_weight

    bound_checked_at = LARGE_STATES
    fewest_helps = False
    bound = floor_bound(break_profit, capacity - break_weight, p[b], w[b], total)
    step = 0
    next_add = b
    next_remove = b - 1
    while count > 0 and (next_add < n or next_remove >= 0) and best < bound:
        for adding in (True, False):
            if adding:
                if next_add >= n:
                    continue
                item = next_add
                next_add += 1
                flip_weight = w[item]
                flip_profit = p[item]
            else:
                if next_remove < 0:
                    continue
                item = next_remove
                next_remove -= 1
                flip_weight = -w[item]
                flip_profit = -p[item]
            if not may_improve(
                break_profit + flip_profit, capacity - break_weight - flip_weight, p[b], w[b], best + 1, total
            ):
                continue
            step += 1
            step_item[step] = item
            step_adds[step] = 1 if adding else 0

            if 2 * count > other_size:
                other_size = 4 * count
                other_w = integers(other_size)
                other_p = integers(other_size)
                other_bits = integers(other_size)
            # Merge the states with their copies that flip the item, dropping dominated ones.
            merged = 0
            i = 0
            j = 0
            while i < count or j < count:
                if j >= count:
                    take_flipped = False
                elif i >= count:
                    take_flipped = True
                else:
                    flipped_w = state_w[j] + flip_weight
                    if state_w[i] < flipped_w:
                        take_flipped = False
                    elif flipped_w < state_w[i]:
                        take_flipped = True
                    else:
                        take_flipped = state_p[j] + flip_profit > state_p[i]
                        if take_flipped:
                            i += 1
                        else:
                            j += 1
                if take_flipped:
                    candidate_w = state_w[j] + flip_weight
                    candidate_p = state_p[j] + flip_profit
                    candidate_bits = ((state_bits[j] << 1) | 1) & _BITS
                    j += 1
                else:
                    candidate_w = state_w[i]
                    candidate_p = state_p[i]
                    candidate_bits = (state_bits[i] << 1) & _BITS
                    i += 1
                if merged == 0 or candidate_p > other_p[merged - 1]:
                    other_w[merged] = candidate_w
                    other_p[merged] = candidate_p
                    other_bits[merged] = candidate_bits
                    merged += 1
            state_w, other_w = other_w, state_w
            state_p, other_p = other_p, state_p
            state_bits, other_bits = other_bits, state_bits
            state_size, other_size = other_size, state_size

            # The heaviest state within the capacity is the most profitable one.
            fits = merged
            while fits > 0 and state_w[fits - 1] > capacity:
                fits -= 1
            if fits > 0 and state_p[fits - 1] > best:
                best = state_p[fits - 1]
                best_step = step
                best_weight = state_w[fits - 1]
                best_bits = state_bits[fits - 1]

            # Drop every state whose bound cannot beat the best solution.
            count = 0
            for k in range(merged):
                slack = capacity - state_w[k]
                if slack >= 0:
                    if next_add < n:
                        keep = may_improve(state_p[k], slack, p[next_add], w[next_add], best + 1, total)
                    else:
                        keep = state_p[k] > best
                elif next_remove >= 0:
                    keep = may_improve(state_p[k], slack, p[next_remove], w[next_remove], best + 1, total)
                else:
                    keep = False
                if keep:
                    state_w[count] = state_w[k]
                    state_p[count] = state_p[k]
                    state_bits[count] = state_bits[k]
                    count += 1
            if count > bound_checked_at:
                # The fewest items an improving selection needs grows with the best value, so that
                # bound is tried again each time the states double, if it helped the first time.
                if bound_checked_at == LARGE_STATES:
                    fewest = fewest_items_bound(w, p, capacity, best, total)
                    fewest_helps = fewest < bound
                    bound = min(bound, fewest, most_items_bound(w, p, capacity, total))
                elif fewest_helps:
                    bound = min(bound, fewest_items_bound(w, p, capacity, best, total))
                bound_checked_at = 2 * count
            if step % WINDOW == 0:
                kept_w = integers(count)
                kept_bits = integers(count)
                for k in range(count):
                    kept_w[k] = state_w[k]
                    kept_bits[k] = state_bits[k]
                checkpoint_w.append(kept_w)
                checkpoint_bits.append(kept_bits)

    taken = integers(n)
    if best_step < 0:
        room = capacity
        for i in range(n):
            if w[i] <= room:
                room -= w[i]
                taken[i] = 1
    else:
        for i in range(b):
            taken[i] = 1
        at = best_step
        weight = best_weight
        bits = best_bits
        while at > 0:
            before = (at - 1) // WINDOW * WINDOW
            for s in range(at, before, -1):
                if (bits >> (at - s)) & 1:
                    item = step_item[s]
                    if step_adds[s] == 1:
                        taken[item] = 1
                        weight -= w[item]
                    else:
                        taken[item] = 0
                        weight += w[item]
            at = before
            if at > 0:
                kept_w = checkpoint_w[at // WINDOW]
                low = 0
                high = len(kept_w) - 1
                while low < high:
                    middle = (low + high) // 2
                    if kept_w[middle] < weight:
                        low = middle + 1
                    else:
                        high = middle
                bits = checkpoint_bits[at // WINDOW][low]

    chosen = integers(n)
    for i in range(n):
        chosen[order[i]] = taken[i]
    return chosen


compiled_search = numba.njit(cache=True)(search)
"""``search`` compiled for int64 arrays; every weight and profit sum must fit in an int64."""
