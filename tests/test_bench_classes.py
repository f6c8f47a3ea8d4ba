"""knapcheck bench's pisinger-classes rows: every Pisinger class at every size and data range."""

from __future__ import annotations

import math
import statistics
from dataclasses import replace

from knapcheck.commands.bench_command import chosen_rows, row_list
from knapcheck.fuzz.instances.pisinger import ITEMS
from knapcheck.measure import bench_child
from knapcheck.measure.bench import CLASS_RANGES, CLASS_ROWS, CLASS_SEEDS, CLASS_SIZES, ROW_GROUPS, PisingerRow, row_from_dict
from knapcheck.solvers.registry import resolve


def test_the_rows_are_every_class_at_every_size_and_range():
    assert {(row.family, row.n, row.data_range) for row in CLASS_ROWS} == {
        (family, n, r) for family in ITEMS for n in (50, 200, 1000, 10_000) for r in (1000, 10_000, 1_000_000)
    }
    assert (CLASS_SIZES, CLASS_RANGES) == ((50, 200, 1000, 10_000), (1000, 10_000, 1_000_000))
    assert len({row.name for row in CLASS_ROWS}) == len(CLASS_ROWS) == 168
    assert ROW_GROUPS["pisinger-classes"] == CLASS_ROWS


def test_a_row_is_its_class_generated_at_its_size():
    row = next(row for row in CLASS_ROWS if row.name == "even_odd n=200 R=1000000")
    assert row_from_dict(row.as_dict()) == row
    instances = row.instances()
    assert len(instances) == CLASS_SEEDS == 5
    assert instances == [replace(row, seed=k, seeds=1).instances()[0] for k in range(CLASS_SEEDS)]
    assert len({tuple(i.quantized()[0]) for i in instances}) == CLASS_SEEDS, "each instance its own seed"
    for instance in instances:
        weights, capacity = instance.quantized()
        assert len(weights) == 200 and all(w % 2 == 0 and 2 <= w <= 1_000_000 for w in weights)
        assert capacity % 2 == 1
    assert row.capacity == max(i.quantized()[1] for i in instances)


def test_the_child_times_each_instance_of_a_row_on_its_own():
    row = PisingerRow("probe", "pisinger_uncorrelated", 20, 1000, seed=3, seeds=3)
    result = bench_child.measure({"solver": "full_table", "row": row.as_dict()})
    assert result["status"] == "ok" and len(result["problem_seconds"]) == 3
    assert result["seconds"] == statistics.median(result["problem_seconds"])
    solver = resolve("full_table")[0].load()
    assert result["value"] == math.fsum(solver(list(i.memory), list(i.runtimes), i.max_memory)[0] for i in row.instances())


def test_the_group_and_its_rows_are_chosen_by_name_and_listed_in_one_line():
    assert chosen_rows(["pisinger-classes"], gpu=False) == CLASS_ROWS
    assert [row.name for row in chosen_rows(["circle n=50 R=1000"], gpu=False)] == ["circle n=50 R=1000"]
    listing = row_list()
    assert "circle n=50 R=1000" not in listing
    assert "168 rows" in listing and "5 instances each" in listing and all(str(n) in listing for n in CLASS_SIZES + CLASS_RANGES)


def test_the_tiny_rows_are_the_harvested_corpus_and_the_small_rows_classes_up_to_30_items():
    from knapcheck.measure.bench import SMALL_CLASSES, TINY_ROWS

    assert ROW_GROUPS["tiny"] == TINY_ROWS and chosen_rows(["tiny", "small"], gpu=False)[0] is TINY_ROWS[0]
    assert TINY_ROWS[0].source == "harvested" and max(i.n for i in TINY_ROWS[0].instances()) <= 30
    classes = SMALL_CLASSES.split(",")
    for row, n in zip(TINY_ROWS[1:], (10, 20, 30)):
        assert row.n == n and row.source.split(",") == classes and len(row.instances()) == 5 * len(classes)
