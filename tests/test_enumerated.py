"""The enumerated families: every instance of a small space, checked by default, no randomness.

The split off-by-one of torch's sliding solver fails two-item instances, but only 5 of the 1 033
default instances drew one: whether a check found it was left to the sampling.
"""

import json
from itertools import product

from knapcheck.commands import exit_status
from knapcheck.commands.cli import main
from knapcheck.fuzz.instances import enumerated, families
from knapcheck.solvers.contract import SCALE


def units(instance):
    weights, capacity = instance.quantized()
    return tuple(zip(weights, instance.runtimes)), capacity


def test_the_small_family_holds_every_instance_of_its_space_once():
    listed = [units(i) for i in enumerated.exhaustive_small()]
    assert len(listed) == len(set(listed)) == 6142
    kinds = list(product(range(4), (-1.0, 0.0, 1.0, 2.0)))
    two_items = {(a, b) for a, b in product(kinds, repeat=2)}
    for items in two_items:
        total = sum(w for w, _ in items)
        for capacity in range(min(6, total + 1) + 1):
            assert (items, capacity) in set(listed)
    three = [items for items, _ in listed if len(items) == 3]
    assert all(list(items) == sorted(items) for items in three), "three items come in one order"
    assert {len(items) for items, _ in listed} == {0, 1, 2, 3}
    assert all(capacity <= 6 for _, capacity in listed)


def test_the_large_capacity_family_is_past_4096_units():
    listed = enumerated.large_capacity()
    assert len(listed) == 144
    assert all(round(i.max_memory * SCALE) > 4096 and 1 <= i.n <= 2 for i in listed)
    assert any(round(m * SCALE) == 1 for i in listed for m in i.memory), "a unit item, taken twice by a solver that reuses items"


def test_enumerated_families_ignore_the_seed_and_the_count_and_are_records_like_the_others():
    small = families.get("exhaustive_small")
    assert small.enumerated and small.exact and small.max_n == 3
    assert small.draw(3, 0) == small.draw(40, 99) == list(enumerated.exhaustive_small())
    assert "6 142 instances" in small.description and "144 instances" in families.get("large_capacity").description
    assert families.names(enumerated=True) == ["exhaustive_small", "large_capacity", "scale_extremes",
                                               "weight_limits", "runtime_limits", "count_limits"]
    assert "tiny" in families.names(enumerated=False)


def test_the_split_off_by_one_is_found_on_two_items_of_the_small_list(tmp_path):
    corpus = tmp_path / "empty.json"
    corpus.write_text('{"schema_version": 1, "cases": []}')
    path = tmp_path / "check.json"
    status = main(["check", "--targets", "torch:dp_knapsack_sliding_hirschberg", "--families", "exhaustive_small",
                   "--corpus", str(corpus), "--json", str(path)])
    assert status == exit_status.FAILED
    (over,) = [f for f in json.loads(path.read_text())["failures"] if f["verdict"] == "OVER_BUDGET"]
    assert over["family"] == "exhaustive_small" and len(over["instance"]["memory"]) == 2
