"""The states of an expanding-core search: undominated (weight, profit) pairs and their recent past.

A state set is three parallel arrays (weights, profits, decision bits) of which the first ``count``
entries are used, sorted by weight with profits strictly increasing: a state is dominated when
another weighs no more and is worth no less, and dominated states are never kept. Every state
carries the decisions of the last ``WINDOW`` core steps as bits (1: the step's item was flipped).
Step ``s`` of the core keeps its decision in bit ``s % WINDOW``, so the bits hold the last
``WINDOW`` steps. The arrays are always at least one entry longer than ``count``: ``merge`` puts a
sentinel there.
"""

from __future__ import annotations

from numba.extending import register_jitable

from knapcheck.solvers.core_arith import integers, reaches

WINDOW = 62
"""Core steps each state remembers (bits of a non-negative int64)."""


@register_jitable
def merge(sw, sp, sb, count, dw, dp, bit, ow, op, ob, beyond, capacity, prune, add, add_rate, add_threshold, remove, remove_rate, remove_threshold):
    """Merge the states with their copies that flip an item (weight ``dw``, profit ``dp``, either
    sign) into ``ow, op, ob``, dropping dominated states, and with ``prune`` the states whose
    bound misses the target (``core_arith.threshold_of``). Returns how many are kept, how many of
    those are flipped copies, and the profit (-1 if none),
    weight and bits of the most profitable one within ``capacity``, kept or not.

    ``bit`` is this step's bit: the flipped copies set it, the others clear it. ``beyond`` exceeds
    every state's weight plus ``dw``'s magnitude: as a sentinel after the last state it stops
    either side of the merge without a bounds test. ``ow`` must hold 2 * count.

    Pruning here is Pisinger's: a state within the capacity is kept if its profit plus the slack at
    the efficiency of the next item to add (``add_rate``) reaches the target, one over it if its
    profit minus the excess at the efficiency of the next item to remove does (each only while such
    an item is left: ``add``, ``remove``). A state dominated by a dropped one has no larger bound, so it is dropped too.
    """
    sw[count] = beyond
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
        stay_w = sw[i]
        flip_w = sw[j] + dw
        flip = flip_w < stay_w
        if flip:
            cw = flip_w
            cp = sp[j] + dp
            cb = sb[j] | bit
            j += 1
        else:
            cw = stay_w
            cp = sp[i]
            cb = sb[i] & clear
            i += 1
        if cp > last_p:
            if cw == last_w and last_kept:
                kept -= 1
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
                ow[kept] = cw
                op[kept] = cp
                ob[kept] = cb
                kept += 1
                flips += 1 if flip else 0
            last_w = cw
            last_p = cp
            last_kept = keep
            last_flip = flip
    return kept, flips, fit_p, fit_w, fit_b


@register_jitable
def heaviest_within(sw, count, limit):
    """The position of the heaviest state weighing at most ``limit`` (the most profitable such one), or -1."""
    if count == 0 or sw[0] > limit:
        return -1
    low = 0
    high = count - 1
    while low < high:
        middle = (low + high + 1) // 2
        if sw[middle] <= limit:
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
def copy_prefix(values, count):
    kept = integers(count)
    for k in range(count):
        kept[k] = values[k]
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
