"""The shrinker keeps the failure and makes the instance small."""

from knapcheck.fuzz.checking.shrink import shrink
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
