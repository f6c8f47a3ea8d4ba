"""Problems whose items have at most two efficiencies, solved in two integer variables.

Write each item as ``m * (u, v)`` with ``u`` and ``v`` coprime (``m`` the gcd of its weight and
profit): items of one efficiency share ``(u, v)``. A selection of the items of efficiency ``(u, v)``
weighs ``u * A`` and is worth ``v * A``, where ``A`` is the sum of their multipliers, and every sum
of multipliers of some of them (a subset sum) is such an ``A``. With at most two efficiencies the
problem is therefore: maximize ``v0 A + v1 B`` subject to ``u0 A + u1 B <= c``, ``A`` and ``B``
subset sums of each efficiency's multipliers. The subset sums are found by a bounded-multiplicity
dynamic programme over the distinct multipliers (O(distinct * sum)), and the best pair in one pass
over ``A`` with, for each, the largest ``B`` that fits. Pisinger's spanner classes are such
problems: every item is one of two spanner items times a multiplier of at most 10, so the sums of
multipliers are small, where the search's states would be many (the items' weights are far apart
and the bounds equal for every selection of one efficiency).

Used only where the programme's work is at most ``WORK_PER_ITEM`` per item (subset-sum problems,
one efficiency with multipliers up to R, are left to the search); otherwise ``two_efficiencies``
returns an empty selection and the search runs.
"""

from __future__ import annotations

from numba.extending import register_jitable

from .arith import gcd, integers

WORK_PER_ITEM = 64
"""The programme runs only where each efficiency's distinct multipliers times their sum are at most
this many per item, so that it costs O(n) (and its two arrays of the sum O(n) memory)."""
MAX_DISTINCT = 64
"""Nor where an efficiency has more distinct multipliers than this (a linear search finds each)."""


@register_jitable
def efficiency_count(weights, profits):
    """How many efficiencies the items have, 3 standing for "more than two" or for "an efficiency
    with more than ``MAX_DISTINCT`` distinct multipliers" (which the programme declines anyway):
    found as soon as it is so, which most problems, subset-sum-like ones too, show in a few items."""
    u = integers(2)
    v = integers(2)
    seen = integers(2 * MAX_DISTINCT)
    distinct = integers(2)
    count = 0
    for i in range(len(weights)):
        g = gcd(weights[i], profits[i])
        a = weights[i] // g
        b = profits[i] // g
        c = 0
        while c < count and not (u[c] == a and v[c] == b):
            c += 1
        if c == count:
            if count == 2:
                return 3
            u[c] = a
            v[c] = b
            count += 1
        found = False
        for t in range(MAX_DISTINCT * c, MAX_DISTINCT * c + distinct[c]):
            if seen[t] == g:
                found = True
                break
        if not found:
            if distinct[c] == MAX_DISTINCT:
                return 3
            seen[MAX_DISTINCT * c + distinct[c]] = g
            distinct[c] += 1
    return count


@register_jitable
def efficiency_classes(weights, profits):
    """``(of, multiplier, u, v)`` for items of at most two efficiencies: the efficiency of each item
    (0 or 1) and its multiplier, and each efficiency's coprime (u, v)."""
    n = len(weights)
    u = integers(2)
    v = integers(2)
    of = integers(n)
    multiplier = integers(n)
    for i in range(n):
        g = gcd(weights[i], profits[i])
        a = weights[i] // g
        b = profits[i] // g
        if u[0] == 0 or (u[0] == a and v[0] == b):
            u[0] = a
            v[0] = b
        else:
            u[1] = a
            v[1] = b
            of[i] = 1
        multiplier[i] = g
    return of, multiplier, u, v


@register_jitable
def subset_sums(values, counts, total):
    """For the multiset of ``counts[t]`` copies of ``values[t]`` (distinct, positive) summing to
    ``total``: per sum ``s`` in ``0..total``, the first value index ``t`` whose copies reach it and
    how many of them (``-1`` where no sub-multiset sums to ``s``; index -2 for ``s = 0``). A sum
    first reached at ``t`` with ``k`` copies is ``k * values[t]`` plus a sum first reached before
    ``t``: following these gives a sub-multiset."""
    first = integers(total + 1)
    copies = integers(total + 1)
    for s in range(total + 1):
        first[s] = -1
    first[0] = -2
    reached = 0
    for t in range(len(values)):
        d = values[t]
        limit = counts[t]
        top = min(total, reached + d * limit)
        for s in range(d, top + 1):
            if first[s] == -1 and first[s - d] != -1:
                used = copies[s - d] + 1 if first[s - d] == t else 1
                if used <= limit:
                    first[s] = t
                    copies[s] = used
        reached = top
    return first, copies


@register_jitable
def _distinct_multipliers(of, multiplier, which):
    """The distinct multipliers of one efficiency's items (ascending order not needed) with their
    counts, and their sum."""
    n = len(of)
    values = integers(n)
    counts = integers(n)
    distinct = 0
    total = 0
    for i in range(n):
        if of[i] == which:
            total += multiplier[i]
            found = -1
            for t in range(distinct):
                if values[t] == multiplier[i]:
                    found = t
                    break
            if found < 0:
                values[distinct] = multiplier[i]
                counts[distinct] = 1
                distinct += 1
                if distinct > MAX_DISTINCT:
                    return values[:0], counts[:0], -1
            else:
                counts[found] += 1
    return values[:distinct], counts[:distinct], total


@register_jitable
def two_efficiencies(weights, profits, capacity):
    """An optimal selection (0/1 per item) when the items have at most two efficiencies and the
    subset-sum programme is small enough; an empty one otherwise. Takes what ``search`` takes."""
    n = len(weights)
    count = efficiency_count(weights, profits)
    if count > 2:
        return integers(0)
    of, multiplier, u, v = efficiency_classes(weights, profits)
    values = []
    counts = []
    firsts = []
    copies = []
    totals = integers(2)
    for c in range(count):
        vals, cnts, total = _distinct_multipliers(of, multiplier, c)
        if total < 0:
            return integers(0)
        # The multipliers' common divisor goes into the efficiency's unit: (u, v) times it.
        common = 0
        for t in range(len(vals)):
            common = gcd(vals[t], common)
        for t in range(len(vals)):
            vals[t] //= common
        total //= common
        u[c] *= common
        v[c] *= common
        if len(vals) * total > WORK_PER_ITEM * n:
            return integers(0)
        first, used = subset_sums(vals, cnts, total)
        values.append(vals)
        counts.append(cnts)
        firsts.append(first)
        copies.append(used)
        totals[c] = total
    # For the second efficiency (if any), the largest reachable sum at or below each amount.
    best_a = 0
    best_b = 0
    best_value = -1
    if count == 1:
        top = min(totals[0], capacity // u[0])
        for a in range(top, -1, -1):
            if firsts[0][a] != -1:
                best_a = a
                break
    else:
        below = integers(totals[1] + 1)
        last = 0
        for b in range(totals[1] + 1):
            if firsts[1][b] != -1:
                last = b
            below[b] = last
        top = min(totals[0], capacity // u[0])
        for a in range(top + 1):
            if firsts[0][a] != -1:
                b = below[min(totals[1], (capacity - u[0] * a) // u[1])]
                value = v[0] * a + v[1] * b
                if value > best_value:
                    best_value = value
                    best_a = a
                    best_b = b
    taken = integers(n)
    for i in range(n):
        multiplier[i] = weights[i] // u[of[i]]
    for c in range(count):
        s = best_a if c == 0 else best_b
        # How many items of each distinct multiplier the sum takes.
        wanted = integers(len(values[c]))
        while s > 0:
            t = firsts[c][s]
            wanted[t] += copies[c][s]
            s -= copies[c][s] * values[c][t]
        for i in range(n):
            if of[i] == c:
                for t in range(len(values[c])):
                    if values[c][t] == multiplier[i] and wanted[t] > 0:
                        wanted[t] -= 1
                        taken[i] = 1
                        break
    return taken
