"""The bound test: what it decides holds in every optimal selection, and it decides most of a FLOP-scale instance."""

from __future__ import annotations

import runpy
from itertools import product
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from knapcheck.fuzz.instances import families
from knapcheck.measure.bench import ROWS, instance_for
from knapcheck.solvers.bound_fixing import fix_by_bounds
from knapcheck.solvers.contract import Instance

COVERAGE_STUDY = runpy.run_path(str(Path(__file__).resolve().parent.parent / "studies" / "bound_coverage.py"))
"""``python studies/bound_coverage.py`` is a study, outside the installed package: its functions, loaded from its file."""
coverage_table, left_to_the_dp = COVERAGE_STUDY["coverage_table"], COVERAGE_STUDY["left_to_the_dp"]


def optimal_selections(weights, values, capacity) -> list[tuple[int, ...]]:
    best, selections = -1, []
    for x in product((0, 1), repeat=len(weights)):
        if sum(w * t for w, t in zip(weights, x)) > capacity:
            continue
        value = sum(v * t for v, t in zip(values, x))
        if value > best:
            best, selections = value, [x]
        elif value == best:
            selections.append(x)
    return selections


@st.composite
def problems(draw):
    """Items in [1, capacity] with positive values: random, tied, proportional or FLOP-scale."""
    capacity = draw(st.integers(1, 60))
    n = draw(st.integers(1, 11))
    weights = draw(st.lists(st.integers(1, capacity), min_size=n, max_size=n))
    kind = draw(st.sampled_from(["random", "few values", "proportional", "flop scale"]))
    if kind == "random":
        values = draw(st.lists(st.integers(1, 100), min_size=n, max_size=n))
    elif kind == "few values":
        values = draw(st.lists(st.sampled_from([1, 2, 3]), min_size=n, max_size=n))
    elif kind == "proportional":
        factor = draw(st.integers(1, 5))
        values = [factor * w + draw(st.integers(0, 1)) for w in weights]
    else:
        values = draw(st.lists(st.integers(10**6, 10**12), min_size=n, max_size=n))
    return weights, values, capacity


@given(problems())
def test_what_the_bounds_decide_holds_in_every_optimal_selection(problem):
    weights, values, capacity = problem
    taken, undecided = fix_by_bounds(weights, values, capacity)
    assert set(taken).isdisjoint(undecided)
    rejected = set(range(len(weights))) - set(taken) - set(undecided)
    for selection in optimal_selections(weights, values, capacity):
        assert all(selection[j] for j in taken), (selection, taken)
        assert not any(selection[j] for j in rejected), (selection, rejected)


def test_everything_is_taken_when_everything_fits():
    assert fix_by_bounds([3, 4], [1, 1], 7) == ([0, 1], [])


def test_equal_efficiencies_leave_every_item_undecided():
    weights = [3, 5, 7, 11, 13]
    assert fix_by_bounds(weights, [2 * w for w in weights], 20) == ([], [0, 1, 2, 3, 4])


def test_values_too_large_for_a_float_are_compared_exactly():
    """As floats the two values are equal; as integers the first is worse, and the test rejects it."""
    huge = 2**1100
    assert fix_by_bounds([1, 1], [huge, huge + 1], 1) == ([], [1])


def test_a_flop_scale_instance_is_mostly_decided():
    """The bench's n = 1000, C = 1e6 row: the DP is left a few dozen of its 1000 items."""
    (row,) = [r for r in ROWS if r.name == "n=1000 C=1e6"]
    assert left_to_the_dp([instance_for(row)]) == (1000, 30)


def test_the_coverage_table_has_a_line_per_family_and_bench_row():
    table = coverage_table(per_family=2)
    for name in [*families.names(), *(row.name for row in ROWS)]:
        assert f" {name} |" in table
    equal_efficiency = Instance((0.0003, 0.0005, 0.0007), (3e9, 5e9, 7e9), 0.001)
    assert left_to_the_dp([equal_efficiency]) == (3, 3)
