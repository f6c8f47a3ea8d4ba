"""The states of an expanding-core search: undominated (weight, profit) pairs and their recent past.

A state set is one array of (weight, profit, decision bits) triples, of which the first ``count``
are used, sorted by weight with profits strictly increasing: a state is dominated when
another weighs no more and is worth no less, and dominated states are never kept. Every state
carries the decisions of the last ``WINDOW`` core steps as bits (1: the step's item was flipped).
Step ``s`` of the core keeps its decision in bit ``s % WINDOW``, so the bits hold the last
``WINDOW`` steps. The array always holds at least one state more than ``count``: ``merge`` puts a
sentinel there. (One array rather than three: each array a compiled function is handed costs two
atomic reference-count updates per call, which dominate small problems.)
"""

from __future__ import annotations

from numba.extending import register_jitable

from .arith import integers, reaches

WINDOW = 62
"""Core steps each state remembers (bits of a non-negative int64)."""
FIELDS = 3
WEIGHT = 0
PROFIT = 1
BITS = 2
"""A state set is one array, ``FIELDS`` entries per state: its weight, profit and bits."""


@register_jitable
def merge(s, count, dw, dp, bit, o, beyond, capacity, prune, add, add_rate, add_threshold, remove, remove_rate, remove_threshold):
    """Merge the states with their copies that flip an item (weight ``dw``, profit ``dp``, either
    sign) into ``o``, dropping dominated states, and with ``prune`` the states whose bound misses
    the target (``core.arith.threshold_of``). Returns how many are kept, how many of those are
    flipped copies, and the profit (-1 if none), weight and bits of the most profitable state
    within ``capacity``, kept or not.

    ``bit`` is this step's bit: the flipped copies set it, the others clear it. ``beyond`` exceeds
    every state's weight plus ``dw``'s magnitude: as a sentinel after the last state it stops
    either side of the merge without a bounds test. ``o`` must hold 2 * count states.

    Pruning here is Pisinger's: a state within the capacity is kept if its profit plus the slack at
    the efficiency of the next item to add (``add_rate``) reaches the target, one over it if its
    profit minus the excess at the efficiency of the next item to remove does (each only while such
    an item is left: ``add``, ``remove``). A state dominated by a dropped one has no larger bound,
    so it is dropped too.
    """
    s[FIELDS * count] = beyond
    clear = ~bit
    i = 0
    j = 0
    kept = 0
    last_w = -1
    last_p = -1
    last_kept = False
    fit_p = -1
    fit_w = 0
    fit_b = 0
    flips = 0
    last_flip = False
    for _ in range(2 * count):
        stay_w = s[i]
        flip_w = s[j] + dw
        flip = flip_w < stay_w
        if flip:
            cw = flip_w
            cp = s[j + 1] + dp
            cb = s[j + 2] | bit
            j += FIELDS
        else:
            cw = stay_w
            cp = s[i + 1]
            cb = s[i + 2] & clear
            i += FIELDS
        if cp > last_p:
            if cw == last_w and last_kept:
                kept -= FIELDS
                flips -= 1 if last_flip else 0
            slack = capacity - cw
            if slack >= 0:
                fit_p = cp
                fit_w = cw
                fit_b = cb
                keep = not prune or (add and reaches(cp, slack, add_rate, add_threshold))
            else:
                keep = not prune or (remove and reaches(cp, slack, remove_rate, remove_threshold))
            if keep:
                o[kept] = cw
                o[kept + 1] = cp
                o[kept + 2] = cb
                kept += FIELDS
                flips += 1 if flip else 0
            last_w = cw
            last_p = cp
            last_kept = keep
            last_flip = flip
    return kept // FIELDS, flips, fit_p, fit_w, fit_b


@register_jitable
def heaviest_within(s, count, limit):
    """The index of the heaviest state weighing at most ``limit`` (the most profitable such one), or -1."""
    if count == 0 or s[0] > limit:
        return -1
    low = 0
    high = count - 1
    while low < high:
        middle = (low + high + 1) // 2
        if s[FIELDS * middle] <= limit:
            low = middle
        else:
            high = middle - 1
    return low


@register_jitable
def step_bit(step):
    return 1 << (step % WINDOW)


@register_jitable
def checkpoint_due(step):
    return step % WINDOW == 0


@register_jitable
def copy_field(s, count, field):
    """One field (WEIGHT or BITS) of the first ``count`` states, as an array of its own."""
    kept = integers(count)
    for k in range(count):
        kept[k] = s[FIELDS * k + field]
    return kept


@register_jitable
def recover(taken, w, step_item, step_adds, best_step, best_weight, best_bits, checkpoint_w, checkpoint_bits):
    """Flip in ``taken`` (the break solution) the items the best state flipped.

    Its bits give its last steps; undoing them gives the weight of its ancestor at the checkpoint
    before, where a binary search finds it (weights are unique among undominated states), and the
    ancestor's bits give the steps before. Checkpoints are kept every ``WINDOW`` steps.
    """
    at = best_step
    weight = best_weight
    bits = best_bits
    while at > 0:
        before = (at - 1) // WINDOW * WINDOW
        for s in range(at, before, -1):
            if (bits >> (s % WINDOW)) & 1:
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
