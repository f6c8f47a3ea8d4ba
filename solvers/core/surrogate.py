"""Martello, Pisinger and Toth's surrogate relaxation of a cardinality constraint, solved as a knapsack.

Every selection fits at most ``most`` items (the lightest ones that fit together), and every
selection worth more than the best one so far needs at least ``fewest`` (the richest ones). Where
the LP relaxation's full items number ``full``, and one of those counts is ``full`` or ``full + 1``,
the cardinality constraint ``sum x <= k`` (or ``>= k``) cuts off the LP solution. Adding it to the
capacity constraint with a multiplier ``m`` (positive for ``<=``, negative for ``>=``) gives the
surrogate problem

    maximize sum p_j x_j  subject to  sum (w_j + m) x_j <= c + m k,

a relaxation of the problem with that constraint, so its optimum bounds every selection the
constraint admits. The multiplier is the one whose LP bound is least (a binary search on the bound's
slope, each LP bound an expected O(n) selection, never a sort); then the surrogate problem is solved
exactly as a knapsack of its own (items with ``w_j + m <= 0`` are always taken). Its optimum is
often the original's: an optimal surrogate selection that fits the original capacity is optimal.
Where neither count cuts the LP solution, both cases (at most ``full``, at least ``full + 1`` items)
are bounded this way when one of them is tight, and the larger bound holds.

Where every profit is its weight plus one of at most two bonuses (Pisinger's strongly and multiple
strongly correlated classes), ``bonus_bound`` bounds the problem by the capacity plus the most
bonus a selection within the capacity can collect, which the lightest items of each bonus give.
"""

from __future__ import annotations

from numba.extending import register_jitable

from .arith import ascending, floor_bound, integers, more_efficient
from .expansion import NO_LIMIT, SURROGATE, expand
from .items import SMALL_RANGE


@register_jitable
def prefix_count(values, limit, sign):
    """The most values whose sum is at most ``limit``, taken smallest first (``sign`` 1) or largest
    first (``sign`` -1): a quickselect on a copy, expected O(n)."""
    n = len(values)
    vals = integers(n)
    for i in range(n):
        vals[i] = values[i]
    first = 0
    last = n - 1
    room = limit
    count = 0
    while last - first + 1 > SMALL_RANGE:
        pivot = sign * vals[(first + last) // 2]
        i = first - 1
        j = last + 1
        while True:
            i += 1
            while sign * vals[i] < pivot:
                i += 1
            j -= 1
            while sign * vals[j] > pivot:
                j -= 1
            if i >= j:
                break
            vals[i], vals[j] = vals[j], vals[i]
        part = 0
        for k in range(first, j + 1):
            part += vals[k]
        if part <= room:
            room -= part
            count += j - first + 1
            first = j + 1
        else:
            last = j
    for k in range(first + 1, last + 1):
        v = vals[k]
        m = k - 1
        while m >= first and sign * vals[m] > sign * v:
            vals[m + 1] = vals[m]
            m -= 1
        vals[m + 1] = v
    while first <= last and vals[first] <= room:
        room -= vals[first]
        count += 1
        first += 1
    return count


@register_jitable(inline="always")
def swap_pair(sw, sp, i, j):
    sw[i], sw[j] = sw[j], sw[i]
    sp[i], sp[j] = sp[j], sp[i]


@register_jitable
def shifted_partition(sw, sp, shift, first, last):
    """``core.items.partition`` for the surrogate problem: the items' weights plus ``shift`` (all
    positive here) and their profits, by decreasing efficiency, compared by cross-multiplying (no
    efficiency array to compute and move). Returns ``split`` and the first part's shifted weight
    and profit sums."""
    middle = (first + last) // 2
    if more_efficient(sp[middle], sw[middle] + shift, sp[first], sw[first] + shift):
        swap_pair(sw, sp, first, middle)
    if more_efficient(sp[last], sw[last] + shift, sp[middle], sw[middle] + shift):
        swap_pair(sw, sp, middle, last)
        if more_efficient(sp[middle], sw[middle] + shift, sp[first], sw[first] + shift):
            swap_pair(sw, sp, first, middle)
    pivot_p = sp[middle]
    pivot_w = sw[middle] + shift
    i = first
    j = last
    part_w = 0
    part_p = 0
    while True:
        part_w += sw[i] + shift
        part_p += sp[i]
        i += 1
        while more_efficient(sp[i], sw[i] + shift, pivot_p, pivot_w):
            part_w += sw[i] + shift
            part_p += sp[i]
            i += 1
        j -= 1
        while more_efficient(pivot_p, pivot_w, sp[j], sw[j] + shift):
            j -= 1
        if i > j:
            break
        swap_pair(sw, sp, i, j)
    return i - 1, part_w, part_p


@register_jitable
def surrogate_lp(sw, sp, capacity, multiplier, card, scale):
    """The LP bound of the surrogate problem, the sign of its slope in the multiplier, and how
    many items the LP solution takes whole. The bound is -1 when no selection satisfies it.

    ``sw`` and ``sp`` hold the items' weights and profits in any order, which this reorders (each
    call is a quickselect of its own: no copy of the items, no efficiency array)."""
    n = len(sw)
    room = capacity + multiplier * card
    forced_p = 0
    forced_w = 0
    forced = 0
    if multiplier < 0:
        # Items that weigh nothing or less in the surrogate problem are always taken: to the front.
        for i in range(n):
            if sw[i] + multiplier <= 0:
                forced_p += sp[i]
                forced_w += sw[i]
                room -= sw[i] + multiplier
                swap_pair(sw, sp, i, forced)
                forced += 1
    if room < 0:
        return -1, 0, forced
    first = forced
    last = n - 1
    weight = 0
    profit = 0
    full = forced
    while last - first + 1 > SMALL_RANGE:
        split, part_w, part_p = shifted_partition(sw, sp, multiplier, first, last)
        if weight + part_w <= room:
            weight += part_w
            profit += part_p
            full += split - first + 1
            first = split + 1
        else:
            last = split
    for k in range(first + 1, last + 1):
        m = k
        while m > first and more_efficient(sp[m], sw[m] + multiplier, sp[m - 1], sw[m - 1] + multiplier):
            swap_pair(sw, sp, m, m - 1)
            m -= 1
    b = first
    while b <= last and weight + sw[b] + multiplier <= room:
        weight += sw[b] + multiplier
        profit += sp[b]
        full += 1
        b += 1
    if b > last:
        # Everything fits: a larger multiplier (or a smaller negative one) makes the bound tighter.
        return forced_p + profit, -1, full
    bound = floor_bound(forced_p + profit, room - weight, sp[b], sw[b] + multiplier, scale)
    # With r0 the original capacity left after the whole items and k the cardinality left, the
    # bound is profit + (r0 + m k) p_b / (w_b + m), whose slope in m has the sign of k w_b - r0.
    left = card - full
    r0 = capacity - forced_w - (weight - (full - forced) * multiplier)
    return bound, left * sw[b] - r0, full


@register_jitable
def least_multiplier(sw, sp, capacity, low, high, card, dantzig, scale):
    """The multiplier in ``[low, high]`` with the least LP bound that a binary search on the bound's
    slope meets (the bound is unimodal in it), and that bound; ``dantzig`` is the bound at 0."""
    best_m = 0
    best_bound = dantzig
    while low <= high:
        middle = (low + high) // 2
        bound, slope, _ = surrogate_lp(sw, sp, capacity, middle, card, scale)
        if bound < best_bound:
            best_bound = bound
            best_m = middle
        if slope > 0:
            high = middle - 1
        else:
            low = middle + 1
    return best_m, best_bound


@register_jitable
def solve_surrogate(weights, profits, capacity, multiplier, card, best, reductions):
    """The surrogate problem's optimum if it beats ``best`` (else ``best``), and its selection
    when that fits the original capacity (else an empty one)."""
    n = len(weights)
    room = capacity + multiplier * card
    chosen = integers(n)
    forced_p = 0
    for i in range(n):
        if weights[i] + multiplier <= 0:
            chosen[i] = 1
            forced_p += profits[i]
            room -= weights[i] + multiplier
    if room < 0:
        return best, integers(0)
    positions = integers(n)
    kept_w = integers(n)
    kept_p = integers(n)
    kept = 0
    kept_weight = 0
    for i in range(n):
        shifted = weights[i] + multiplier
        if shifted > 0 and shifted <= room:
            positions[kept] = i
            kept_w[kept] = shifted
            kept_p[kept] = profits[i]
            kept_weight += shifted
            kept += 1
    value = forced_p
    if kept_weight <= room:
        for k in range(kept):
            chosen[positions[k]] = 1
            value += kept_p[k]
        if value <= best:
            return best, integers(0)
    else:
        taken, found, _ = expand(kept_w[:kept], kept_p[:kept], room, best - forced_p, -1, NO_LIMIT, reductions & ~SURROGATE)
        if len(taken) == 0:
            return best, integers(0)
        value += found
        for k in range(kept):
            if taken[k] == 1:
                chosen[positions[k]] = 1
    weight = 0
    for i in range(n):
        if chosen[i] == 1:
            weight += weights[i]
    if weight > capacity:
        return value, integers(0)
    return value, chosen


@register_jitable
def bonus_bound(weights, profits, capacity):
    """An upper bound for problems whose profits are weights plus one of at most two bonuses
    (``p - w``, where positive), as in Pisinger's strongly and multiple strongly correlated classes;
    -1 for other problems.

    A selection is worth its weight (at most ``c``) plus its items' bonuses, and the most bonus a
    selection within the capacity can collect takes, of each bonus, the lightest items: ``n1`` of
    the larger and as many of the smaller as then fit, the best ``n1`` found in one pass.
    """
    high = 0
    low = 0
    for i in range(len(weights)):
        bonus = profits[i] - weights[i]
        if bonus > 0 and bonus != high and bonus != low:
            if high == 0:
                high = bonus
            elif low == 0:
                low = bonus
            else:
                return -1
    if low > high:
        high, low = low, high
    high_w = integers(len(weights))
    low_w = integers(len(weights))
    highs = 0
    lows = 0
    for i in range(len(weights)):
        bonus = profits[i] - weights[i]
        if bonus == high and high > 0:
            high_w[highs] = weights[i]
            highs += 1
        elif bonus == low and low > 0:
            low_w[lows] = weights[i]
            lows += 1
    if lows == 0:
        # One bonus (Pisinger's strongly correlated class): as many items as fit, the lightest.
        return capacity + high * prefix_count(high_w[:highs], capacity, 1)
    high_w = ascending(high_w[:highs])
    low_w = ascending(low_w[:lows])
    room = capacity
    for k in range(lows):
        if low_w[k] > room:
            lows = k
            break
        room -= low_w[k]
    # ``lows`` light items of the smaller bonus fit beside ``taken`` of the larger; ``room`` is left.
    best = low * lows
    taken = 0
    while taken < highs and high_w[taken] <= capacity:
        room -= high_w[taken]
        taken += 1
        while room < 0 and lows > 0:
            lows -= 1
            room += low_w[lows]
        if room < 0:
            break
        best = max(best, high * taken + low * lows)
    return capacity + best


@register_jitable
def surrogate_bound(weights, profits, capacity, best, reductions):
    """An upper bound on every selection worth more than ``best`` (``best`` itself when there is
    none), and the best selection found on the way if one beats ``best`` (else an empty one) with
    its value. ``weights`` and ``profits`` are as ``expand`` takes them."""
    n = len(weights)
    scale = 0
    widest = 0
    for i in range(n):
        scale += profits[i]
        widest = max(widest, weights[i])
    sw = integers(n)
    sp = integers(n)
    for i in range(n):
        sw[i] = weights[i]
        sp[i] = profits[i]
    lp_at_zero, _, full = surrogate_lp(sw, sp, capacity, 0, 0, scale)
    dantzig = lp_at_zero
    bonus = bonus_bound(weights, profits, capacity)
    if bonus >= 0 and bonus < dantzig:
        dantzig = bonus
    most = prefix_count(weights, capacity, 1)
    fewest = prefix_count(profits, best, -1) + 1
    if fewest > n:
        return best, integers(0), best
    # Each case: the cardinality k, and whether selections have at least k items (else at most).
    cards = integers(2)
    at_least = integers(2)
    cases = 0
    if fewest == full + 1:
        cards[0], at_least[0], cases = full + 1, 1, 1
    elif most == full:
        cards[0], at_least[0], cases = full, 0, 1
    elif most == full + 1 or fewest == full:
        cards[0], at_least[0] = full + 1, 1
        cards[1], at_least[1], cases = full, 0, 2
    else:
        return dantzig, integers(0), best
    bound = best
    taken = integers(0)
    for case in range(cases):
        card = cards[case]
        low, high = (-widest, 0) if at_least[case] == 1 else (0, widest)
        multiplier, lp = least_multiplier(sw, sp, capacity, low, high, card, lp_at_zero, scale)
        if multiplier == 0 or lp <= best:
            bound = max(bound, lp)
            continue
        value, selection = solve_surrogate(weights, profits, capacity, multiplier, card, best, reductions)
        bound = max(bound, value)
        if len(selection) > 0 and value > best:
            best = value
            taken = selection
    return min(bound, dantzig), taken, best
