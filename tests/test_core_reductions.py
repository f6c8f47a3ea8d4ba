"""Each of the expanding-core search's reductions keeps the optimum, on every small instance.

The search (``core_search.search``, plain Python) runs with every combination of its reductions
switched on and off, and with the state counts that trigger them set to zero, so that each is
tried at its first chance, on every instance of a small alphabet of items; brute force says what
the optimum is. The reductions themselves are then held to what they claim, one by one.
"""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from knapcheck.solvers.core import expansion as core_expansion
from knapcheck.solvers.core import items as core_items
from knapcheck.solvers.core import search as core_search
from knapcheck.solvers.core import surrogate as core_surrogate
from knapcheck.solvers.core.arith import ratios
from knapcheck.solvers.core.expansion import DIVISIBILITY, GROUP_PAIRING, PAIRING, REDUCTIONS, SURROGATE, TWO_EFFICIENCIES
from knapcheck.solvers.core.items import BREAK_FIELDS, CURSORS, arrange
from knapcheck.solvers.core.proportional import subset_sums, two_efficiencies
from knapcheck.solvers.core.reductions import divisibility
from knapcheck.solvers.core.surrogate import bonus_bound, prefix_count, surrogate_bound

# Items of a few weights and profits with common divisors, duplicates, and profits that are the
# weights plus one of two bonuses, so that every reduction has something to act on.
SMALL_ITEMS = [(w, p) for w in (1, 2, 4) for p in (1, 2, 3, 6)]
TINY_ITEMS = [(w, p) for w in (2, 3, 6) for p in (2, 4, 5)]


def small_instances():
    """Every ordered instance of up to three SMALL_ITEMS and every multiset of four TINY_ITEMS,
    with every capacity the search takes (at least the heaviest item, less than the total)."""
    for n in (1, 2, 3):
        for items in itertools.product(SMALL_ITEMS, repeat=n):
            yield from _with_capacities(items)
    for items in itertools.combinations_with_replacement(TINY_ITEMS, 4):
        yield from _with_capacities(items)


def _with_capacities(items):
    weights = [w for w, _ in items]
    profits = [p for _, p in items]
    for capacity in range(max(weights), sum(weights)):
        yield weights, profits, capacity


def optimum(weights, profits, capacity):
    best = 0
    for chosen in itertools.product((0, 1), repeat=len(weights)):
        if sum(w for w, x in zip(weights, chosen) if x) <= capacity:
            best = max(best, sum(p for p, x in zip(profits, chosen) if x))
    return best


INSTANCES = list(small_instances())
OPTIMA = [optimum(*instance) for instance in INSTANCES]


@pytest.fixture(params=[False, True], ids=["no first core", "first core"])
def eager(request, monkeypatch):
    """Every reduction tried at its first chance (the plain Python search reads these at run time),
    with or without Combo's first core, and a count of what each reduction did. Partitioning goes
    down to two items, so that even these small instances leave items in unsorted intervals (the
    pairings' candidates). (With the first core, every item of them is in the core at once.)"""
    if request.param:
        monkeypatch.setattr(core_expansion, "FIRST_CORE_ITEMS", 0)
    monkeypatch.setattr(core_items, "SMALL_RANGE", 2)
    monkeypatch.setattr(core_surrogate, "SMALL_RANGE", 2)
    monkeypatch.setattr(core_expansion, "DIVISIBILITY_STATES", 0)
    monkeypatch.setattr(core_expansion, "GROUP_STATES", 0)
    monkeypatch.setattr(core_expansion, "PAIRING_STATES", 0)
    monkeypatch.setattr(core_search, "SURROGATE_STATES", 0)
    acted = Counter()

    def counting(module, name, acts):
        original = getattr(module, name)

        def wrapper(*args):
            result = original(*args)
            acted[name] += acts(args, result)
            return result

        monkeypatch.setattr(module, name, wrapper)

    counting(core_expansion, "divisibility", lambda args, out: out[0] < args[3][2] or out[1] > 1)
    counting(core_expansion, "best_group_pairing", lambda args, out: out[1] >= 0)
    counting(core_expansion, "best_pairing", lambda args, out: out >= 0)
    counting(core_surrogate, "solve_surrogate", lambda args, out: True)
    counting(core_search, "surrogate_bound", lambda args, out: len(out[1]) > 0)
    counting(core_search, "two_efficiencies", lambda args, out: len(out) > 0)
    acted.first_core = request.param
    return acted


FLAGS = {
    DIVISIBILITY: "divisibility",
    PAIRING: "pairing",
    GROUP_PAIRING: "group pairing",
    SURROGATE: "surrogate",
    TWO_EFFICIENCIES: "two efficiencies",
}


@pytest.mark.parametrize("reductions", [0, *FLAGS, REDUCTIONS], ids=lambda r: _flags(r))
def test_every_reduction_keeps_the_optimum_on_every_small_instance(eager, reductions):
    for (weights, profits, capacity), best in zip(INSTANCES, OPTIMA):
        chosen = core_search.search(weights, profits, capacity, reductions)
        assert sum(w for w, x in zip(weights, chosen) if x) <= capacity, (weights, profits, capacity)
        assert sum(p for p, x in zip(profits, chosen) if x) == best, (weights, profits, capacity)
    # Alone, each reduction does something on some instance (else this test would prove nothing
    # about it), and a reduction switched off does nothing.
    acts = {
        DIVISIBILITY: ["divisibility"],
        PAIRING: ["best_pairing"],
        GROUP_PAIRING: ["best_group_pairing"],
        SURROGATE: ["solve_surrogate", "surrogate_bound"],
        TWO_EFFICIENCIES: ["two_efficiencies"],
    }
    for flag, names in acts.items():
        for name in names:
            if not reductions & flag:
                assert eager[name] == 0, name
            elif reductions == flag and not (eager.first_core and flag in (PAIRING, GROUP_PAIRING)):
                assert eager[name] > 0, name


def _flags(reductions: int) -> str:
    return "+".join(name for flag, name in FLAGS.items() if reductions & flag) or "none"


def _arranged(weights, profits, capacity):
    """The items as ``expand`` arranges them: (w, p, split, brk)."""
    n = len(weights)
    w, p, idx, key = list(weights), list(profits), list(range(n)), ratios(n)
    for i in range(n):
        key[i] = core_expansion.ratio(p[i], w[i])
    stacks = [[0] * (n + 1) for _ in range(4)]
    at = [0] * CURSORS
    split, break_weight, break_profit = arrange(w, p, key, idx, capacity, *stacks, at)
    brk = [0] * BREAK_FIELDS
    brk[:] = [break_profit, break_weight, capacity, p[split], w[split]]
    return w, p, split, brk


def test_divisibility_holds_for_every_selection_that_reaches_the_target():
    reduced = congruent = 0
    for weights, profits, capacity in INSTANCES[::3]:
        w, p, split, brk = _arranged(weights, profits, capacity)
        for target in range(1, sum(p) + 2):
            smaller, modulus, residue = divisibility(w, p, split, brk, target, sum(p))
            reduced += smaller < capacity
            congruent += modulus > 1
            for chosen in itertools.product((0, 1), repeat=len(w)):
                weight = sum(x for x, c in zip(w, chosen) if c)
                value = sum(x for x, c in zip(p, chosen) if c)
                if weight <= capacity and value >= target:
                    assert weight <= smaller and value % modulus == residue, (w, p, capacity, target, chosen)
    assert reduced and congruent


def test_the_bonus_bound_holds_where_profits_are_weights_plus_one_of_two_bonuses():
    bounded = 0
    for (weights, profits, capacity), best in zip(INSTANCES, OPTIMA):
        bound = bonus_bound(weights, profits, capacity)
        bonuses = {p - w for w, p in zip(weights, profits) if p > w}
        if len(bonuses) > 2:
            assert bound == -1
        else:
            assert bound >= best, (weights, profits, capacity)
            bounded += bound == best
    assert bounded


def test_the_surrogate_bound_holds_and_what_it_finds_is_feasible():
    solved = 0
    for (weights, profits, capacity), best in zip(INSTANCES[::4], OPTIMA[::4]):
        for known in range(best):
            bound, chosen, value = surrogate_bound(weights, profits, capacity, known, REDUCTIONS)
            assert bound >= best, (weights, profits, capacity, known)
            if len(chosen) > 0:
                solved += 1
                assert sum(w for w, x in zip(weights, chosen) if x) <= capacity
                assert value == sum(p for p, x in zip(profits, chosen) if x) > known
    assert solved


@pytest.mark.parametrize("sign", [1, -1])
def test_prefix_count_is_the_sorted_prefix_that_fits(sign):
    for values in itertools.product(range(1, 6), repeat=5):
        for limit in range(0, 20, 3):
            order = sorted(values, reverse=sign < 0)
            expected = next((k for k in range(len(order) + 1) if k == len(order) or sum(order[: k + 1]) > limit))
            assert prefix_count(list(values), limit, sign) == expected


def _interval_order_holds(w, key, at, stacks, n):
    """Every unreached item on each side is no more efficient (right) or no less (left) than any
    nearer one, interval by interval, and the intervals tile the unreached positions."""
    left_first, left_last, right_first, right_last = stacks
    right = [(right_first[q], right_last[q]) for q in reversed(range(at[core_items.RIGHT_COUNT]))]
    left = [(left_first[q], left_last[q]) for q in reversed(range(at[core_items.LEFT_COUNT]))]
    ends = [at[core_items.SORTED_LAST]] + [last for _, last in right]
    assert [first for first, _ in right] == [end + 1 for end in ends[:-1]] and ends[-1] == n - 1
    starts = [at[core_items.SORTED_FIRST]] + [first for first, _ in left]
    assert [last for _, last in left] == [start - 1 for start in starts[:-1]] and starts[-1] == 0
    groups = [range(at[core_items.NEXT_ADD] + 1, at[core_items.SORTED_LAST] + 1)] + [range(a, b + 1) for a, b in right]
    for nearer, farther in itertools.combinations(groups, 2):
        assert not any(core_items.before(key[b], key[a]) for a in nearer for b in farther)
    groups = [range(at[core_items.SORTED_FIRST], at[core_items.NEXT_REMOVE])] + [range(a, b + 1) for a, b in left]
    for nearer, farther in itertools.combinations(groups, 2):
        assert not any(core_items.before(key[a], key[b]) for a in nearer for b in farther)


@pytest.mark.parametrize("side", ["add", "remove"])
def test_bringing_in_a_far_item_keeps_every_interval_in_efficiency_order(monkeypatch, side):
    # The first core and the pairings bring in items from any interval, the farthest too; the
    # bounds need every item left unreached to stay on its side of every nearer one.
    monkeypatch.setattr(core_items, "SMALL_RANGE", 2)
    weights = [(i * 97) % 23 + 1 for i in range(80)]
    profits = [(i * 89) % 31 + 1 for i in range(80)]
    n, capacity = len(weights), sum(weights) // 2
    w0, p0, idx0 = list(weights), list(profits), list(range(n))
    key0 = [core_expansion.ratio(p, q) for p, q in zip(profits, weights)]
    stacks0 = [[0] * (n + 1) for _ in range(4)]
    at0 = [0] * CURSORS
    arrange(w0, p0, key0, idx0, capacity, *stacks0, at0)
    assert at0[core_items.RIGHT_COUNT] >= 3 and at0[core_items.LEFT_COUNT] >= 3, "several intervals on each side"
    _interval_order_holds(w0, key0, at0, stacks0, n)
    if side == "add":
        unreached = range(at0[core_items.NEXT_ADD], n)
    else:
        unreached = range(at0[core_items.NEXT_REMOVE] + 1)
    for x in unreached:
        w, p, idx, key, at = list(w0), list(p0), list(idx0), list(key0), list(at0)
        stacks = [list(stack) for stack in stacks0]
        item = idx[x]
        if side == "add":
            core_items.bring_in_add(w, p, key, idx, stacks[2], stacks[3], at, x)
            assert idx[at[core_items.NEXT_ADD]] == item
        else:
            core_items.bring_in_remove(w, p, key, idx, stacks[0], stacks[1], at, x)
            assert idx[at[core_items.NEXT_REMOVE]] == item
        assert sorted(idx) == list(range(n)) and all((w[k], p[k]) == (weights[idx[k]], profits[idx[k]]) for k in range(n))
        _interval_order_holds(w, key, at, stacks, n)


def test_the_two_efficiency_programme_is_optimal_where_it_acts_and_acts_only_there():
    # Every instance of up to four items, each of two base items (or one) times a multiplier of at
    # most three, at every capacity the search takes: an optimum whenever the programme answers, and
    # it answers on every one of them; a third efficiency makes it decline.
    answered = 0
    bases = [((1, 2), (2, 3)), ((2, 2), (3, 1)), ((1, 1), (1, 1)), ((2, 5), (4, 2))]
    for (u0, v0), (u1, v1) in bases:
        for n in range(1, 5):
            for picks in itertools.product([(k, m) for k in (0, 1) for m in (1, 2, 3)], repeat=n):
                weights = [m * (u0, u1)[k] for k, m in picks]
                profits = [m * (v0, v1)[k] for k, m in picks]
                for weights, profits, capacity in _with_capacities(list(zip(weights, profits))):
                    chosen = two_efficiencies(weights, profits, capacity)
                    assert len(chosen) == len(weights), (weights, profits, capacity)
                    assert sum(w for w, x in zip(weights, chosen) if x) <= capacity
                    assert sum(p for p, x in zip(profits, chosen) if x) == optimum(weights, profits, capacity)
                    answered += 1
    assert answered > 1000
    assert len(two_efficiencies([1, 2, 3, 4], [1, 3, 2, 4], 5)) == 0, "three efficiencies: the search's"


def test_subset_sums_names_every_sum_of_a_multiset_and_how_to_make_it():
    for values, counts in [([3, 1], [2, 3]), ([2], [4]), ([5, 2, 3], [1, 2, 2]), ([4, 6], [3, 1])]:
        total = sum(v * c for v, c in zip(values, counts))
        first, copies = subset_sums(values, counts, total)
        pool = [v for v, c in zip(values, counts) for _ in range(c)]
        reachable = {sum(chosen) for r in range(len(pool) + 1) for chosen in itertools.combinations(pool, r)}
        assert {s for s in range(total + 1) if first[s] != -1} == reachable
        for s in reachable:
            used = [0] * len(values)
            rest = s
            while rest > 0:
                used[first[rest]] += copies[rest]
                rest -= copies[rest] * values[first[rest]]
            assert rest == 0 and all(0 <= k <= c for k, c in zip(used, counts))
            assert sum(k * v for k, v in zip(used, values)) == s
