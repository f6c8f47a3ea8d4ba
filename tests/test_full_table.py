"""The full-table reference on cases whose answer is known by hand."""

import pytest

from knapcheck.solvers.contract import ProblemTooLarge
from knapcheck.solvers.full_table import DEFAULT_MAX_TABLE_BYTES, full_table, table_bytes
from knapcheck.solvers.registry import resolve


def test_picks_the_best_subset():
    assert full_table([0.3, 0.3, 0.4], [1.0, 1.0, 1.5], 0.6) == (2.0, [0, 1], [2])


def test_zero_weight_items_are_taken_and_worthless_items_are_not():
    value, saved, recomputable = full_table([0.0, 0.0, 0.1, 0.0], [5.0, 0.0, 3.0, -2.0], 0.0)
    assert (value, saved, recomputable) == (5.0, [0], [1, 2, 3])


def test_ties_prefer_leaving_an_item_out():
    assert full_table([0.1, 0.1], [4.0, 4.0], 0.1) == (4.0, [0], [1])


def test_empty_and_zero_budget():
    assert full_table([], [], 1.0) == (0.0, [], [])
    assert full_table([0.1], [1.0], 0.0) == (0.0, [], [0])


def test_integer_values_stay_exact_beyond_float32():
    runtimes = [2.0**40 + 1, 2.0**40, 3.0]
    assert full_table([0.0002, 0.0002, 0.0001], runtimes, 0.0003)[0] == 2.0**40 + 4


def test_refuses_a_table_over_its_allowance_before_allocating():
    with pytest.raises(ProblemTooLarge, match="max_table_bytes"):
        full_table([0.5] * 100_000, [1.0] * 100_000, 10_000.0)
    with pytest.raises(ProblemTooLarge):
        full_table([0.1] * 10, [1.0] * 10, 1.0, max_table_bytes=1000)


def test_every_size_its_entry_accepts_fits_its_table():
    """A refusal below the declared size is a defect (REJECTED): the entry must not promise more."""
    entry = resolve("full_table")[0]
    assert table_bytes(1, 150_000_000) > DEFAULT_MAX_TABLE_BYTES and not entry.accepts(1, 150_000_000)
    most_cells, widest = entry.max_cells, entry.max_capacity
    assert entry.accepts(most_cells // (widest + 1), widest) and entry.accepts(1, widest)
    # table_bytes is n * (C+1) + 16 * (C+1): each term is at its largest at the declared limits.
    assert most_cells + 16 * (widest + 1) <= DEFAULT_MAX_TABLE_BYTES


def test_bad_input_is_rejected_with_the_contracts_error():
    with pytest.raises(ValueError, match=r"memory\[1\] must be >= 0"):
        full_table([0.1, -0.1], [1.0, 1.0], 1.0)
