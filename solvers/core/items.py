"""The items of an expanding-core search, sorted by efficiency only where the search reaches.

Four parallel arrays hold the items: weight ``w``, profit ``p``, efficiency ``key`` (profit /
weight) and the input position ``idx``. ``arrange`` partitions them around the break item (the
first that no longer fits when items are taken by decreasing efficiency) the way quickselect does,
in expected O(n): every item left of the break item is at least as efficient as every item right of
it, and the parts it did not need to split stay unsorted, as intervals on two stacks, nearest the
break item on top. Only a run around the break item is sorted.

The search reads the next item to add at ``at[NEXT_ADD]`` (right of the break item, by decreasing
efficiency) and the next to remove at ``at[NEXT_REMOVE]`` (left of it, by increasing efficiency).
When it passes the sorted run, ``next_add`` / ``next_remove`` pop the nearest interval, drop from it
the items that cannot lead to a better solution (the Dembo-Hammer test of ``may_flip``: they keep
their break-solution value and are never sorted) and sort the rest. So every item not yet reached
on a side is no more efficient (right) or no less efficient (left) than the next one there, which
the search's bounds need.

Positions left of ``split`` (the break item's position) always hold exactly the break solution's
items, and an item's position never changes once it has entered the core, so the search can name
items by position until it maps them back through ``idx``.
"""

from __future__ import annotations

from numba.extending import register_jitable

from .arith import before, descending, integers, may_improve, ratios

NEXT_ADD = 0
NEXT_REMOVE = 1
SORTED_FIRST = 2
SORTED_LAST = 3
LEFT_COUNT = 4
RIGHT_COUNT = 5
CURSORS = 6
"""Indices of ``at``: the next items, the sorted run, and the interval stacks' heights."""
SMALL_RANGE = 16
"""Partitioning stops at ranges of this many items, which are sorted outright."""


@register_jitable(inline="always")
def swap(w, p, key, idx, i, j):
    """(Inlined by numba: as a call, its four arrays' reference counts would cost more than it.)"""
    w[i], w[j] = w[j], w[i]
    p[i], p[j] = p[j], p[i]
    key[i], key[j] = key[j], key[i]
    idx[i], idx[j] = idx[j], idx[i]


@register_jitable
def move(w, p, key, idx, source, destination):
    """Move the item at ``source`` to ``destination``, shifting those in between by one."""
    item_w, item_p, item_key, item_idx = w[source], p[source], key[source], idx[source]
    step = 1 if destination > source else -1
    for k in range(source, destination, step):
        w[k], p[k], key[k], idx[k] = w[k + step], p[k + step], key[k + step], idx[k + step]
    w[destination], p[destination], key[destination], idx[destination] = item_w, item_p, item_key, item_idx


@register_jitable
def sort_range(w, p, key, idx, first, last):
    """Sort positions ``first..last`` in the order of ``core.arith.before`` (ties in position order)."""
    if last <= first:
        return
    if last - first < SMALL_RANGE:
        for k in range(first + 1, last + 1):
            m = k
            while m > first and before(key[m], key[m - 1]):
                swap(w, p, key, idx, m, m - 1)
                m -= 1
        return
    order = descending(key, first, last)
    size = last - first + 1
    sorted_w = integers(size)
    sorted_p = integers(size)
    sorted_idx = integers(size)
    sorted_key = ratios(size)
    for k in range(size):
        o = order[k]
        sorted_w[k], sorted_p[k], sorted_key[k], sorted_idx[k] = w[o], p[o], key[o], idx[o]
    for k in range(size):
        w[first + k], p[first + k], key[first + k], idx[first + k] = sorted_w[k], sorted_p[k], sorted_key[k], sorted_idx[k]


@register_jitable
def partition(w, p, key, idx, first, last):
    """Hoare's partition of ``first..last`` (at least 3 items) around a median of three, in the
    order of ``core.arith.before``.

    Returns ``split`` with no item of ``split+1..last`` before any of ``first..split``, both parts
    non-empty, and the weight and profit sums of the first part.
    """
    middle = (first + last) // 2
    if before(key[middle], key[first]):
        swap(w, p, key, idx, first, middle)
    if before(key[last], key[middle]):
        swap(w, p, key, idx, middle, last)
        if before(key[middle], key[first]):
            swap(w, p, key, idx, first, middle)
    pivot = key[middle]
    i = first - 1
    j = last + 1
    while True:
        i += 1
        while before(key[i], pivot):
            i += 1
        j -= 1
        while before(pivot, key[j]):
            j -= 1
        if i >= j:
            break
        swap(w, p, key, idx, i, j)
    part_w = 0
    part_p = 0
    for k in range(first, j + 1):
        part_w += w[k]
        part_p += p[k]
    return j, part_w, part_p


@register_jitable
def arrange(w, p, key, idx, capacity, left_first, left_last, right_first, right_last, at):
    """Partition the items around the break item; returns (its position, the weight and the profit
    of the break solution). The items must not all fit. The break item is the next to add."""
    first = 0
    last = len(w) - 1
    weight = 0
    profit = 0
    lefts = 0
    rights = 0
    # Invariant: weight <= capacity < weight + the weight of first..last.
    while last - first + 1 > SMALL_RANGE:
        split, part_w, part_p = partition(w, p, key, idx, first, last)
        if weight + part_w <= capacity:
            left_first[lefts] = first
            left_last[lefts] = split
            lefts += 1
            weight += part_w
            profit += part_p
            first = split + 1
        else:
            right_first[rights] = split + 1
            right_last[rights] = last
            rights += 1
            last = split
    sort_range(w, p, key, idx, first, last)
    b = first
    while weight + w[b] <= capacity:
        weight += w[b]
        profit += p[b]
        b += 1
    at[NEXT_ADD] = b
    at[NEXT_REMOVE] = b - 1
    at[SORTED_FIRST] = first
    at[SORTED_LAST] = last
    at[LEFT_COUNT] = lefts
    at[RIGHT_COUNT] = rights
    return b, weight, profit


@register_jitable
def may_flip(profit, weight, adding, brk, target, scale):
    """The Dembo-Hammer test: whether flipping an item out of (into) the break solution can reach
    ``target``. ``brk`` holds the break solution's profit and weight, the capacity, and the break
    item's profit and weight, whose efficiency bounds every other item's on the far side."""
    if adding:
        return may_improve(brk[0] + profit, brk[2] - brk[1] - weight, brk[3], brk[4], target, scale)
    return may_improve(brk[0] - profit, brk[2] - brk[1] + weight, brk[3], brk[4], target, scale)


BREAK_FIELDS = 5
"""``brk``: break-solution profit, its weight, the capacity, break item's profit, its weight."""


@register_jitable
def next_add(w, p, key, idx, right_first, right_last, at, brk, target, scale):
    """Whether an item is left to add at ``at[NEXT_ADD]``, popping intervals as needed."""
    while at[NEXT_ADD] > at[SORTED_LAST]:
        rights = at[RIGHT_COUNT]
        if rights == 0:
            return False
        rights -= 1
        at[RIGHT_COUNT] = rights
        k = at[SORTED_LAST] + 1
        for x in range(right_first[rights], right_last[rights] + 1):
            if may_flip(p[x], w[x], True, brk, target, scale):
                swap(w, p, key, idx, x, k)
                k += 1
        sort_range(w, p, key, idx, at[SORTED_LAST] + 1, k - 1)
        at[SORTED_LAST] = k - 1
    return True


@register_jitable
def next_remove(w, p, key, idx, left_first, left_last, at, brk, target, scale):
    """Whether an item is left to remove at ``at[NEXT_REMOVE]``, popping intervals as needed."""
    while at[NEXT_REMOVE] < at[SORTED_FIRST]:
        lefts = at[LEFT_COUNT]
        if lefts == 0:
            return False
        lefts -= 1
        at[LEFT_COUNT] = lefts
        k = at[SORTED_FIRST] - 1
        for x in range(left_last[lefts], left_first[lefts] - 1, -1):
            if may_flip(p[x], w[x], False, brk, target, scale):
                swap(w, p, key, idx, x, k)
                k -= 1
        sort_range(w, p, key, idx, k + 1, at[SORTED_FIRST] - 1)
        at[SORTED_FIRST] = k + 1
    return True


@register_jitable
def unreached_right(right_first, at, n):
    """The first position of the right intervals (``n`` when none is left): they run to the end."""
    return right_first[at[RIGHT_COUNT] - 1] if at[RIGHT_COUNT] > 0 else n


@register_jitable
def unreached_left(left_last, at):
    """The last position of the left intervals (-1 when none is left): they run from the start."""
    return left_last[at[LEFT_COUNT] - 1] if at[LEFT_COUNT] > 0 else -1


@register_jitable
def bring_in_add(w, p, key, idx, right_first, right_last, at, x):
    """Make the item at ``x`` (right of the next item to add, sorted or in an interval) the next to
    add. The search must flip it at once: it may be less efficient than the items it jumps."""
    if x > at[SORTED_LAST]:
        rights = at[RIGHT_COUNT]
        # The stack holds the nearest interval on top: x's is the farthest that starts at or before it.
        q = 0
        while right_first[q] > x:
            q += 1
        # Walk it to the front of the nearest interval, shifting each interval between by one.
        swap(w, p, key, idx, x, right_first[q])
        x = right_first[q]
        right_first[q] += 1
        for r in range(q + 1, rights):
            swap(w, p, key, idx, x, right_first[r])
            x = right_first[r]
            right_first[r] += 1
            right_last[r] += 1
        if right_first[q] > right_last[q]:
            for r in range(q, rights - 1):
                right_first[r] = right_first[r + 1]
                right_last[r] = right_last[r + 1]
            at[RIGHT_COUNT] = rights - 1
        at[SORTED_LAST] += 1
    move(w, p, key, idx, x, at[NEXT_ADD])


@register_jitable
def bring_in_remove(w, p, key, idx, left_first, left_last, at, x):
    """Make the item at ``x`` (left of the next item to remove) the next to remove; as
    ``bring_in_add``, the search must flip it at once."""
    if x < at[SORTED_FIRST]:
        lefts = at[LEFT_COUNT]
        q = 0
        while left_last[q] < x:
            q += 1
        swap(w, p, key, idx, x, left_last[q])
        x = left_last[q]
        left_last[q] -= 1
        for r in range(q + 1, lefts):
            swap(w, p, key, idx, x, left_last[r])
            x = left_last[r]
            left_first[r] -= 1
            left_last[r] -= 1
        if left_first[q] > left_last[q]:
            for r in range(q, lefts - 1):
                left_first[r] = left_first[r + 1]
                left_last[r] = left_last[r + 1]
            at[LEFT_COUNT] = lefts - 1
        at[SORTED_FIRST] -= 1
    move(w, p, key, idx, x, at[NEXT_REMOVE])
