"""knapcheck bench's pisinger-classes rows: every Pisinger class at every size and data range."""

from __future__ import annotations

from knapcheck.bench_command import chosen_rows, row_list
from knapcheck.fuzz.pisinger import ITEMS
from knapcheck.measure.bench import CLASS_RANGES, CLASS_ROWS, CLASS_SIZES, ROW_GROUPS, row_from_dict


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
    (instance,) = row.instances()
    weights, capacity = instance.quantized()
    assert len(weights) == 200 and all(w % 2 == 0 and 2 <= w <= 1_000_000 for w in weights)
    assert capacity % 2 == 1 and row.capacity == capacity


def test_the_group_and_its_rows_are_chosen_by_name_and_listed_in_one_line():
    assert chosen_rows(["pisinger-classes"], gpu=False) == CLASS_ROWS
    assert [row.name for row in chosen_rows(["circle n=50 R=1000"], gpu=False)] == ["circle n=50 R=1000"]
    listing = row_list()
    assert "circle n=50 R=1000" not in listing
    assert "168 rows" in listing and all(str(n) in listing for n in CLASS_SIZES + CLASS_RANGES)
