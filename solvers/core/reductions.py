"""The expanding-core search's reductions and heuristics beyond its bounds (after Combo).

- the first core: Combo's items around the break item, and greedy ones (``first_core_item``);
- divisibility: a smaller capacity from the gcd of the weights that may flip (Combo's), and a
  value every better selection is congruent to, from the gcd of their profits (``divisibility``);
- pairing: the far item that best completes a state (Combo's heuristic, ``best_pairing``), and
  the subset of a group of unreached items that best completes a state, found by meeting in the
  middle (``best_group_pairing``).

The reductions are sound for the search's purpose, finding a selection worth more than the best
one so far (``target``): an item that fails the Dembo-Hammer test (``core.items.may_flip``) keeps
its break-solution value in every such selection.
"""

from __future__ import annotations

from numba.extending import register_jitable

from .arith import gcd, integers, rate_of, threshold_of
from .items import NEXT_ADD, NEXT_REMOVE, SORTED_FIRST, SORTED_LAST, may_flip, unreached_left, unreached_right
from .states import BITS, FIELDS, PROFIT, WEIGHT, heaviest_within, merge


@register_jitable
def divisibility(w, p, split, brk, target, scale):
    """What divisibility says of every selection reaching ``target``: returns ``(capacity,
    modulus, residue)`` such that each fits ``capacity`` just as well as the real one, and is worth
    ``residue`` modulo ``modulus``.

    The items that may flip (``may_flip``) have weights with gcd ``g`` and profits with gcd ``h``;
    the break-solution items that may not weigh ``fixed_w`` in all and are worth ``fixed_p``. Such
    a selection weighs ``fixed_w`` plus a multiple of ``g``, so at most ``fixed_w + g * floor((c -
    fixed_w) / g)``, and is worth ``fixed_p`` plus a multiple of ``h``. One pass over the items.
    Positions left of ``split`` hold the break solution.
    """
    divisor_w = 0
    divisor_p = 0
    fixed_w = 0
    fixed_p = 0
    for x in range(len(w)):
        if may_flip(p[x], w[x], x >= split, brk, target, scale):
            divisor_w = gcd(w[x], divisor_w)
            divisor_p = gcd(p[x], divisor_p)
        elif x < split:
            fixed_w += w[x]
            fixed_p += p[x]
    if divisor_w == 0:
        return brk[2], 1, 0
    return fixed_w + (brk[2] - fixed_w) // divisor_w * divisor_w, divisor_p, fixed_p % divisor_p


@register_jitable
def next_goal(best, modulus, residue):
    """The least value above ``best`` worth ``residue`` modulo ``modulus``."""
    goal = best + 1
    short = (residue - goal) % modulus
    return goal + short


@register_jitable
def best_pairing(w, p, left_last, right_first, at, states, count, capacity, adding, best, bound):
    """Combo's dynamic-programming heuristic: the unreached item (in an interval, right of the
    sorted run when ``adding``, left of it otherwise) that, flipped in a state, gives the most
    valuable selection within the capacity if that beats ``best``; returns its position or -1.

    Stops at the first pairing that reaches ``bound``. The best state for an item is the heaviest
    that leaves room for it (``capacity - w`` when adding, ``capacity + w`` when removing), found
    by binary search among the states sorted by weight: the heaviest is the most profitable.
    """
    found = -1
    if adding:
        for x in range(unreached_right(right_first, at, len(w)), len(w)):
            k = heaviest_within(states, count, capacity - w[x])
            if k >= 0 and states[FIELDS * k + PROFIT] + p[x] > best:
                best = states[FIELDS * k + PROFIT] + p[x]
                found = x
                if best >= bound:
                    break
    else:
        for x in range(unreached_left(left_last, at) + 1):
            k = heaviest_within(states, count, capacity + w[x])
            if k >= 0 and states[FIELDS * k + PROFIT] - p[x] > best:
                best = states[FIELDS * k + PROFIT] - p[x]
                found = x
                if best >= bound:
                    break
    return found


@register_jitable
def addable(x, at, right_first, n):
    """Whether position ``x`` holds an unreached item right of the core (not left behind)."""
    return at[NEXT_ADD] <= x < n and (x <= at[SORTED_LAST] or x >= unreached_right(right_first, at, n))


@register_jitable
def removable(x, at, left_last):
    """Whether position ``x`` holds an unreached item left of the core (not left behind)."""
    return 0 <= x <= at[NEXT_REMOVE] and (x >= at[SORTED_FIRST] or x <= unreached_left(left_last, at))


@register_jitable
def richest_fitting(w, p, at, right_first, room):
    """The unreached item right of the core worth most among those weighing at most ``room``, or -1."""
    found = -1
    far = unreached_right(right_first, at, len(w))
    x = at[NEXT_ADD]
    while x < len(w):
        if at[SORTED_LAST] < x < far:
            x = far
            continue
        if w[x] <= room and (found < 0 or p[x] > p[found]):
            found = x
        x += 1
    return found


@register_jitable
def poorest_freeing(w, p, at, left_last, need):
    """The unreached item left of the core worth least among those weighing at least ``need``, or -1."""
    found = -1
    far = unreached_left(left_last, at)
    x = at[NEXT_REMOVE]
    while x >= 0:
        if far < x < at[SORTED_FIRST]:
            x = far
            continue
        if w[x] >= need and (found < 0 or p[x] < p[found]):
            found = x
        x -= 1
    return found


FIRST_CORE = 9
"""Stages of the first core (Combo's): the break item, its two neighbours, two items that fit in
the break solution's slack (one with the item before the break item removed), two whose removal
makes room for the break item (and the one after it), and the first and last items for variety."""


@register_jitable
def first_core_item(stage, w, p, at, left_last, right_first, brk, neighbour_w):
    """The item of stage ``stage`` of the first core and whether it is added; -1 when there is none.

    ``neighbour_w`` holds the weights of the break item's neighbours flipped at stages 1 and 2 (0:
    none). Items the Dembo-Hammer test has already left behind are never chosen.
    """
    n = len(w)
    slack = brk[2] - brk[1]
    if stage == 0 or stage == 2:
        return (at[NEXT_ADD] if addable(at[NEXT_ADD], at, right_first, n) else -1), True
    if stage == 1:
        return (at[NEXT_REMOVE] if removable(at[NEXT_REMOVE], at, left_last) else -1), False
    if stage == 3:
        return poorest_freeing(w, p, at, left_last, brk[4] - slack), False
    if stage == 4:
        return (richest_fitting(w, p, at, right_first, slack + neighbour_w[1]) if neighbour_w[1] > 0 else -1), True
    if stage == 5:
        return (poorest_freeing(w, p, at, left_last, brk[4] + neighbour_w[2] - slack) if neighbour_w[2] > 0 else -1), False
    if stage == 6:
        return richest_fitting(w, p, at, right_first, slack), True
    if stage == 7:
        return (0 if removable(0, at, left_last) else -1), False
    return (n - 1 if addable(n - 1, at, right_first, n) else -1), True


GROUP_LIMIT = 16
"""At most this many items in a group: 2**16 selections."""


@register_jitable
def group_positions(at, left_first, left_last, right_first, n, size):
    """Up to ``size`` unreached items nearest the core, alternately right and left of it (the dead
    zones the Dembo-Hammer test left behind skipped); returns their positions and whether each is
    right of the core."""
    positions = integers(size)
    right = integers(size)
    add = at[NEXT_ADD]
    remove = at[NEXT_REMOVE]
    far_right = unreached_right(right_first, at, n)
    far_left = unreached_left(left_last, at)
    chosen = 0
    while chosen < size:
        progress = False
        if add > at[SORTED_LAST] and add < far_right:
            add = far_right
        if add < n:
            positions[chosen] = add
            right[chosen] = 1
            chosen += 1
            add += 1
            progress = True
        if chosen == size:
            break
        if remove < at[SORTED_FIRST] and remove > far_left:
            remove = far_left
        if remove >= 0:
            positions[chosen] = remove
            right[chosen] = 0
            chosen += 1
            remove -= 1
            progress = True
        if not progress:
            break
    return positions[:chosen], right[:chosen]


@register_jitable
def best_group_pairing(w, p, positions, right, states, count, capacity, best, bound, beyond):
    """Meet in the middle: the best selection that completes a state with a subset of the group
    (items not in the core), if it beats ``best``. Returns (its value, the state's position, the
    group's selection as bits: item m at bit m), or (best, -1, 0).

    The group's undominated selections (by the states' merge, from the empty one) sorted by
    weight, and the states sorted by weight, are paired in one pass: as a state gets heavier, the
    best selection that still fits it only gets lighter. O(states + 2**group) for the whole group.
    """
    g = len(positions)
    size = FIELDS * ((1 << g) + 1)
    group = integers(size)
    other = integers(size)
    kept = 1
    base_w = 0
    base_p = 0
    for m in range(g):
        x = positions[m]
        if right[m] == 0:
            base_w += w[x]
            base_p += p[x]
        none = rate_of(0, 1)
        kept, _, _, _, _ = merge(group, kept, w[x], p[x], 1 << m, other, beyond, 0, False, False, none,
                                 threshold_of(0, none, 0, 0), False, none, threshold_of(0, none, 0, 0))
        group, other = other, group
    found = -1
    found_bits = 0
    j = kept - 1
    for k in range(count):
        room = capacity - (states[FIELDS * k + WEIGHT] - base_w)
        while j >= 0 and group[FIELDS * j + WEIGHT] > room:
            j -= 1
        if j < 0:
            break
        value = states[FIELDS * k + PROFIT] - base_p + group[FIELDS * j + PROFIT]
        if value > best:
            best = value
            found = k
            found_bits = group[FIELDS * j + BITS]
            if best >= bound:
                break
    return best, found, found_bits
