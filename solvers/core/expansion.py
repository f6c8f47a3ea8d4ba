"""One expanding-core search: the best selection worth more than a given value, if there is one.

The break solution takes every item more efficient than the break item (``core.items``). Each state
(``core.states``) differs from it only on a core of items around the break item, which grows one
item at a time, alternately the next that states may add (right of it) and the next they may
remove (left of it); merging the states with their copies that flip the item keeps the undominated
ones. An item joins the core only if flipping it can beat the best solution at all (the
Dembo-Hammer test with the break item's efficiency); every state whose upper bound cannot beat it
is dropped: for a state within the capacity, its profit plus the slack times the efficiency of the
next item to add (Dantzig's bound on what is left); for a state over it, its profit minus the
excess times the efficiency of the next item to remove. When a step keeps no flipped copy, the
identical items next on that side are passed over: they could not keep one either.

From ``FIRST_CORE_ITEMS`` items on, the search starts, as Combo does, by enumerating a first core
of items picked for good solutions (``core.reductions.first_core_item``). Then, when the states
first outnumber ``DIVISIBILITY_STATES``, the capacity shrinks to what the weights of the items that
may flip can fill, and the value a better selection must have rises to the next one their profits'
gcd allows (``core.reductions.divisibility``); from ``GROUP_STATES`` states on, each time they
double, the states are paired with the subsets of a group of unreached items by meeting in the
middle (``core.reductions.best_group_pairing``); and when they first outnumber
``PAIRING_STATES``, the unreached item that best completes a state is brought into the core, on
each side (Combo's heuristic, ``core.reductions.best_pairing``).

The search ends when no state is left (the best solution is optimal), when every item has been in
the core, when the best solution reaches the upper bound (the LP relaxation's, or ``upper``), or
when the states outnumber ``state_limit`` (the caller may then tighten the bound and search again).
"""

from __future__ import annotations

from numba.extending import register_jitable

from .arith import floor_bound, integers, rate_of, ratio, ratios, threshold_of
from .items import (
    BREAK_FIELDS,
    CURSORS,
    LEFT_COUNT,
    NEXT_ADD,
    NEXT_REMOVE,
    RIGHT_COUNT,
    SORTED_FIRST,
    SORTED_LAST,
    arrange,
    bring_in_add,
    bring_in_remove,
    may_flip,
    next_add,
    next_remove,
)
from .reductions import (
    FIRST_CORE,
    GROUP_LIMIT,
    best_group_pairing,
    best_pairing,
    divisibility,
    first_core_item,
    group_positions,
    next_goal,
)
from .states import BITS, FIELDS, PROFIT, WEIGHT, checkpoint_due, copy_field, merge, recover, step_bit

DIVISIBILITY = 1
PAIRING = 2
GROUP_PAIRING = 4
SURROGATE = 8
TWO_EFFICIENCIES = 16
REDUCTIONS = DIVISIBILITY | PAIRING | GROUP_PAIRING | SURROGATE | TWO_EFFICIENCIES
"""Flags naming the reductions a search may use: divisibility, Combo's pairing, the group pairing,
and (taken by ``core.search.search``) the surrogate relaxation and the two-efficiency programme.
Every combination finds an optimum."""
FIRST_CORE_ITEMS = 32
"""Problems with fewer items start without the first core: it would cost them more than it saves."""
DIVISIBILITY_STATES = 1000
GROUP_STATES = 1000
PAIRING_STATES = 10_000
"""State counts at which the reductions are first tried (Combo's are 1000 and 10 000)."""
NO_LIMIT = -1


@register_jitable
def expand(weights, profits, capacity, lower, upper, state_limit, reductions):
    """Search for a selection worth more than ``lower``, stopping once one reaches ``upper``
    (ignored when negative) or the states outnumber ``state_limit`` (``NO_LIMIT``: never).

    ``weights`` are in ``[1, capacity]``, ``profits`` positive, and the weights sum to more than
    ``capacity``. Returns ``(taken, value, limited)``: 0/1 per item in the given order and its
    value, or an empty ``taken`` and ``lower`` when nothing is worth more; ``limited`` says the
    search stopped at ``state_limit``.
    """
    n = len(weights)
    w = integers(n)
    p = integers(n)
    idx = integers(n)
    key = ratios(n)
    scale = 0
    total_weight = 0
    for i in range(n):
        w[i] = weights[i]
        p[i] = profits[i]
        idx[i] = i
        key[i] = ratio(profits[i], weights[i])
        scale += profits[i]
        total_weight += weights[i]
    left_first = integers(n + 1)
    left_last = integers(n + 1)
    right_first = integers(n + 1)
    right_last = integers(n + 1)
    at = integers(CURSORS)
    split, break_weight, break_profit = arrange(w, p, key, idx, capacity, left_first, left_last, right_first, right_last, at)
    brk = integers(BREAK_FIELDS)
    brk[0] = break_profit
    brk[1] = break_weight
    brk[2] = capacity
    brk[3] = p[split]
    brk[4] = w[split]
    bound = floor_bound(break_profit, capacity - break_weight, p[split], w[split], scale)
    if upper >= 0 and upper < bound:
        bound = upper

    best = lower
    best_step = -1
    best_weight = 0
    best_bits = 0
    if break_profit > best:
        best = break_profit
        best_step = 0
        best_weight = break_weight

    states = integers(FIELDS * 64)
    other = integers(FIELDS * 64)
    count = 1
    states[WEIGHT] = break_weight
    states[PROFIT] = break_profit
    beyond = 4 * total_weight + 4
    step_item = integers(n + 1)
    step_adds = integers(n + 1)
    checkpoint_w = [copy_field(states, 1, WEIGHT)]
    checkpoint_bits = [copy_field(states, 1, BITS)]

    # Every selection better than ``best`` found from here on is worth ``residue`` modulo
    # ``modulus`` (1 until divisibility says more): ``goal`` is the least such value above ``best``.
    modulus = 1
    residue = 0
    goal = best + 1
    step = 0
    stage = 0 if n >= FIRST_CORE_ITEMS else FIRST_CORE
    neighbour_w = integers(3)
    adding_turn = True
    divisibility_pending = (reductions & DIVISIBILITY) != 0
    pairing_pending = (reductions & PAIRING) != 0
    pair_side = 0
    group_at = GROUP_STATES if (reductions & GROUP_PAIRING) != 0 else -1
    group_idx = integers(GROUP_LIMIT)
    group_count = 0
    group_bits = 0
    limited = False
    while count > 0 and best < bound:
        # The next item, and whether it joins the core without the Dembo-Hammer test (forced).
        # The calls that may pop an interval are made only when the sorted run is used up: each
        # call costs its arrays' reference counts, which add up on small problems.
        forced = True
        if stage < FIRST_CORE:
            x, adding = first_core_item(stage, w, p, at, left_last, right_first, brk, neighbour_w)
            stage += 1
        elif pair_side != 0:
            adding = pair_side == 1
            pair_side = -1 if adding else 0
            x = best_pairing(w, p, left_last, right_first, at, states, count, brk[2], adding, best, bound)
        else:
            forced = False
            can_add = at[NEXT_ADD] <= at[SORTED_LAST] or at[RIGHT_COUNT] > 0 and next_add(
                w, p, key, idx, right_first, right_last, at, brk, goal, scale)
            can_remove = at[NEXT_REMOVE] >= at[SORTED_FIRST] or at[LEFT_COUNT] > 0 and next_remove(
                w, p, key, idx, left_first, left_last, at, brk, goal, scale)
            if not can_add and not can_remove:
                break
            adding = can_add and (adding_turn or not can_remove)
            adding_turn = not adding
            x = at[NEXT_ADD] if adding else at[NEXT_REMOVE]
        if x < 0:
            continue
        if adding:
            if x != at[NEXT_ADD] or x > at[SORTED_LAST]:
                bring_in_add(w, p, key, idx, right_first, right_last, at, x)
            x = at[NEXT_ADD]
            at[NEXT_ADD] = x + 1
            dw = w[x]
            dp = p[x]
        else:
            if x != at[NEXT_REMOVE] or x < at[SORTED_FIRST]:
                bring_in_remove(w, p, key, idx, left_first, left_last, at, x)
            x = at[NEXT_REMOVE]
            at[NEXT_REMOVE] = x - 1
            dw = -w[x]
            dp = -p[x]
        if not forced and not may_flip(p[x], w[x], adding, brk, goal, scale):
            continue
        if stage <= 3:
            neighbour_w[stage - 1] = w[x]

        step += 1
        step_item[step] = x
        step_adds[step] = 1 if adding else 0
        if len(other) < FIELDS * (2 * count + 1):
            other = integers(FIELDS * (4 * count + 2))
        # The first core is enumerated whole (the next items are not the bounds' yet); after it,
        # the merge drops the states whose bound cannot reach the goal.
        pruning = stage >= FIRST_CORE
        can_add = pruning and (at[NEXT_ADD] <= at[SORTED_LAST] or at[RIGHT_COUNT] > 0 and next_add(
            w, p, key, idx, right_first, right_last, at, brk, goal, scale))
        can_remove = pruning and (at[NEXT_REMOVE] >= at[SORTED_FIRST] or at[LEFT_COUNT] > 0 and next_remove(
            w, p, key, idx, left_first, left_last, at, brk, goal, scale))
        t = at[NEXT_ADD]
        s = at[NEXT_REMOVE]
        add_rate = rate_of(p[t], w[t]) if can_add else rate_of(0, 1)
        remove_rate = rate_of(p[s], w[s]) if can_remove else rate_of(0, 1)
        count, flips, fit_p, fit_w, fit_b = merge(
            states, count, dw, dp, step_bit(step), other, beyond, brk[2], pruning,
            can_add, add_rate, threshold_of(goal, add_rate, scale, beyond),
            can_remove, remove_rate, threshold_of(goal, remove_rate, scale, beyond),
        )
        states, other = other, states
        if fit_p > best:
            best = fit_p
            best_step = step
            best_weight = fit_w
            best_bits = fit_b
            group_count = 0
            goal = next_goal(best, modulus, residue)
        if flips == 0 and pruning:
            # No flipped copy survived: neither would one of an identical item next on this side.
            if adding:
                while at[NEXT_ADD] <= at[SORTED_LAST] and w[at[NEXT_ADD]] == w[x] and p[at[NEXT_ADD]] == p[x]:
                    at[NEXT_ADD] += 1
            else:
                while at[NEXT_REMOVE] >= at[SORTED_FIRST] and w[at[NEXT_REMOVE]] == w[x] and p[at[NEXT_REMOVE]] == p[x]:
                    at[NEXT_REMOVE] -= 1
        if checkpoint_due(step):
            checkpoint_w.append(copy_field(states, count, WEIGHT))
            checkpoint_bits.append(copy_field(states, count, BITS))

        if divisibility_pending and count > DIVISIBILITY_STATES:
            divisibility_pending = False
            reduced, modulus, residue = divisibility(w, p, split, brk, goal, scale)
            if reduced < brk[2]:
                brk[2] = reduced
                bound = min(bound, floor_bound(break_profit, reduced - break_weight, brk[3], brk[4], scale))
            bound -= (bound - residue) % modulus
            goal = next_goal(best, modulus, residue)
        if group_at >= 0 and count > group_at and stage >= FIRST_CORE:
            group_at = 2 * count
            size = min(GROUP_LIMIT, group_bits_for(count))
            positions, right = group_positions(at, left_first, left_last, right_first, n, size)
            value, k, bits = best_group_pairing(w, p, positions, right, states, count, brk[2], best, bound, beyond)
            if k >= 0:
                best = value
                goal = next_goal(best, modulus, residue)
                best_step = step
                best_weight = states[FIELDS * k + WEIGHT]
                best_bits = states[FIELDS * k + BITS]
                group_count = len(positions)
                group_bits = bits
                for m in range(group_count):
                    group_idx[m] = idx[positions[m]]
        if pairing_pending and count > PAIRING_STATES and stage >= FIRST_CORE:
            pairing_pending = False
            pair_side = 1
        if state_limit != NO_LIMIT and count > state_limit:
            limited = True
            break

    if best_step < 0:
        return integers(0), lower, limited
    taken = integers(n)
    for i in range(split):
        taken[i] = 1
    recover(taken, w, step_item, step_adds, best_step, best_weight, best_bits, checkpoint_w, checkpoint_bits)
    chosen = integers(n)
    for i in range(n):
        chosen[idx[i]] = taken[i]
    for m in range(group_count):
        chosen[group_idx[m]] = (group_bits >> m) & 1
    return chosen, best, limited


@register_jitable
def group_bits_for(count):
    """A group of about as many selections as there are states, and a few more."""
    bits = 2
    while (1 << bits) < count:
        bits += 1
    return bits + 2
