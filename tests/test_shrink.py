"""The shrinker keeps the failure and makes the instance small."""

from dataclasses import replace

from knapcheck.fuzz.instances import families
from knapcheck.fuzz.judging.verdicts.shrink import STALL_CHECKS, _while_beating, hypothesis_minimal, shrink
from knapcheck.solvers.contract import Instance


def test_shrinks_to_the_items_that_matter():
    big = Instance(tuple(0.0001 * (i + 1) for i in range(12)), tuple(float(100 + i) for i in range(12)), 0.005)

    def has_item_heavier_than_5_units(instance):
        return any(round(m * 10000) > 5 for m in instance.memory)

    small = shrink(big, has_item_heavier_than_5_units)
    assert has_item_heavier_than_5_units(small)
    assert small.n == 1 and small.runtimes == (0.0,) and small.max_memory == 0.0


def test_keeps_the_instance_when_nothing_simpler_fails():
    instance = Instance((0.0,), (0.0,), 0.0)
    assert shrink(instance, lambda candidate: candidate == instance) == instance


def _items(n: int) -> Instance:
    return Instance(tuple(0.0001 for _ in range(n)), tuple(float(k + 1) for k in range(n)), 0.0001)


def _search(best: Instance):
    """A search's still_fails (every instance fails) bounded by _while_beating, and the set of
    instances it checked, counted as minimal_reproduction counts its checks."""
    checked = set()

    def still_fails(instance):
        checked.add(instance)
        return True

    return _while_beating(best, still_fails, lambda: len(checked)), checked


def test_a_search_that_never_beats_the_smallest_failure_so_far_stops_checking_after_its_stall_budget():
    fails, checked = _search(_items(3))
    answers = [fails(replace(_items(5), max_memory=0.0001 * k)) for k in range(1, STALL_CHECKS + 50)]
    assert answers == [True] * STALL_CHECKS + [False] * 49
    assert len(checked) == STALL_CHECKS


def test_each_smaller_failure_gives_the_search_its_stall_budget_again():
    fails, checked = _search(_items(9))
    for n in range(8, 0, -1):
        for k in range(1, STALL_CHECKS):
            fails(replace(_items(9), max_memory=0.0001 * k))
        assert fails(_items(n)), f"the search stopped before reaching {n} items"
    assert fails(replace(_items(9), max_memory=0.5))


def test_hypothesis_still_shrinks_to_the_minimum_under_the_bound():
    fails, _ = _search(_items(9))
    found = hypothesis_minimal(families.strategy("tiny"), fails)
    assert found is not None and found.n == 0
