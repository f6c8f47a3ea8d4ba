"""expanding_core against the full-table reference and brute force, and its two ways of running.

Values are compared exactly: as floats on exact instances (identical, no tolerance), as the exact
fractions of the chosen sets otherwise, where the search on exact integers must still find the
true optimum (the float64 reference may fall short of it by its rounding, never exceed it).
"""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from knapcheck.fuzz.instances import families, pisinger
from knapcheck.fuzz.instances.pisinger import generate
from knapcheck.fuzz.judging.verdicts.differential import size_allows
from knapcheck.oracles.brute_force import MAX_ITEMS as BRUTE_FORCE_ITEMS
from knapcheck.oracles.brute_force import brute_force
from knapcheck.oracles.exact import set_value, set_weight
from knapcheck.solvers import expanding_core as expanding_core_module
from knapcheck.solvers.contract import SCALE, Instance, exact_scale
from knapcheck.solvers.core import search as core_search
from knapcheck.solvers.core import states as core_states
from knapcheck.solvers.expanding_core import expanding_core
from knapcheck.solvers.full_table import full_table
from knapcheck.solvers.registry import resolve_one

pytestmark = pytest.mark.usefixtures("numba_compiled")

FULL_TABLE = resolve_one("full_table")
"""The registered solver, whose declared limits say which instances it takes."""


def solve(instance: Instance):
    return expanding_core(list(instance.memory), list(instance.runtimes), instance.max_memory)


def assert_optimal(instance: Instance) -> None:
    value, saved, recomputable = solve(instance)
    _, capacity = instance.quantized()
    assert sorted(saved + recomputable) == list(range(instance.n))
    assert set_weight(instance, saved) <= capacity
    reference = full_table(list(instance.memory), list(instance.runtimes), instance.max_memory)
    if exact_scale(instance.runtimes) is not None:
        assert value == reference.value
    else:
        assert set_value(instance, saved) >= set_value(instance, reference.saved)
    if instance.n <= BRUTE_FORCE_ITEMS:
        assert set_value(instance, saved) == brute_force(instance).value


@pytest.mark.parametrize("family_name", families.names())
def test_optimal_on_every_family(family_name):
    @settings(max_examples=40)
    @given(families.strategy(family_name))
    def optimal(instance):
        assume(size_allows(FULL_TABLE, instance))  # the reference's table: not past 2**31 units
        assert_optimal(instance)

    optimal()


def _pisinger(name: str, n: int, data_range: int, seed: int, integral: bool = False) -> Instance:
    weights, profits, capacity = generate(name, n, data_range, seed, integral=integral)
    return Instance(tuple(w / SCALE for w in weights), tuple(map(float, profits)), capacity / SCALE)


@pytest.mark.parametrize("integral", [True, False], ids=["compiled", "plain-python"])
def test_optimal_when_the_best_state_is_older_than_a_checkpoint_window(integral):
    # This circle instance finds its best state some 250 core steps in, so its items are recovered
    # through four checkpoints; with float profits the sums need more than int64 (plain Python).
    assert_optimal(_pisinger("pisinger_circle", 300, 300, 0, integral))


@settings(max_examples=100)
@given(
    families.strategy("pisinger_almost_strongly_correlated")
    | families.strategy("pisinger_circle")
    | families.strategy("tight_budget")
)
def test_recovery_through_many_checkpoints(instance):
    # A window of two steps makes nearly every answer go through checkpoints. Only the plain
    # Python search runs here: it reads WINDOW at run time, while compiling would freeze it.
    saved = core_states.WINDOW, expanding_core_module.COMPILED_LIMIT, expanding_core_module.plain_arrays
    core_states.WINDOW, expanding_core_module.COMPILED_LIMIT, expanding_core_module.plain_arrays = 2, 0, lambda *_: None
    try:
        assert_optimal(instance)
    finally:
        core_states.WINDOW, expanding_core_module.COMPILED_LIMIT, expanding_core_module.plain_arrays = saved


def test_the_compiled_and_plain_python_searches_find_the_same_optimum():
    for seed in range(5):
        weights, profits, capacity = generate("pisinger_almost_strongly_correlated", 120, 200, seed)
        compiled = core_search.compiled_select(*map(_int64, (weights, profits)), capacity)[0].tolist()
        plain, _ = core_search.select(weights, profits, capacity)
        for saved in (compiled, plain):
            assert sum(weights[i] for i in saved) <= capacity
        assert sum(profits[i] for i in compiled) == sum(profits[i] for i in plain)


def test_the_compiled_entry_quantizes_with_the_contract_s_formula():
    import numba

    from knapcheck.solvers.contract import quantize, quantized

    compiled = numba.njit(lambda memory, scale: quantized(memory, scale))
    ties = [(k + 0.5) / SCALE for k in range(40)]
    around = [k / SCALE + d for k in (1, 7, 12345) for d in (0.5 / SCALE, -0.5 / SCALE, 1e-17, -1e-17)]
    memory = ties + around + [0.0, -0.0, 0.49999999999999994 / SCALE, 1e9 + 0.5 / SCALE, 2.0**40 / 3]
    assert [compiled(m, SCALE) for m in memory] == quantize(memory, 0.0)[0]


def test_plain_lists_are_solved_in_one_compiled_call_as_the_general_path_solves_them(monkeypatch):
    import numpy as np

    instances = [_pisinger(name, 40, 1000, seed, integral=True) for name in CLASSES for seed in range(2)]
    instances.append(Instance((0.0, 0.0, 0.0002, 0.0001, 0.3), (5.0, -3.0, 4.0, 0.0, 1.0), 0.0002))
    general = [expanding_core(np.array(i.memory), np.array(i.runtimes), i.max_memory) for i in instances]
    monkeypatch.setattr(expanding_core_module, "validate", None)
    for instance, answer in zip(instances, general):
        assert expanding_core(list(instance.memory), list(instance.runtimes), instance.max_memory) == answer
        assert expanding_core(tuple(instance.memory), tuple(instance.runtimes), instance.max_memory) == answer


@pytest.mark.parametrize(
    "memory, runtimes, max_memory",
    [
        ([0.1, -0.1], [1.0, 2.0], 0.1),
        ([0.1, float("nan")], [1.0, 2.0], 0.1),
        ([0.1, 0.2], [1.0, float("inf")], 0.1),
        ([0.1, 0.2], [1.0, 2.5], 0.1),
        ([0.1, 0.2], [1.0, 2.0**60], 0.1),
        ([0.1, 0.2], [1.0, 2.0], 1e15),
        ([0.1, 1e15], [1.0, 2.0], 0.1),
        ([0.1, 0.2], [1.0, 2.0], -0.1),
    ],
    ids=["negative", "nan", "infinite", "fraction", "beyond-int64", "huge-budget", "huge-memory", "negative-budget"],
)
def test_the_compiled_entry_declines_what_it_cannot_take_as_it_is(memory, runtimes, max_memory):
    import numpy as np

    solved, *_ = expanding_core_module.compiled_solve(np.array(memory), np.array(runtimes), max_memory, SCALE)
    assert not solved


def _int64(values):
    import numpy as np

    return np.array(values, dtype=np.int64)


def test_runtimes_beyond_int64_are_solved_exactly_in_plain_python():
    # 2**70 and a runtime of 1 in one instance: the compiled search cannot hold the sums.
    instance = Instance((0.0003, 0.0002, 0.0002, 0.0001), (2.0**70, 2.0**69, 2.0**69 + 2.0**17, 1.0), 0.0004)
    value, saved, _ = solve(instance)
    assert saved == [1, 2] and value == 2.0**70 + 2.0**17


def test_zero_weights_are_taken_and_non_positive_runtimes_never():
    instance = Instance((0.0, 0.0, 0.0, 0.0002, 0.0001), (5.0, 0.0, -3.0, -1.0, 2.0), 0.0)
    value, saved, recomputable = solve(instance)
    assert saved == [0] and value == 5.0 and recomputable == [1, 2, 3, 4]


def test_huge_capacities_take_everything_that_pays():
    memory = (1e300, 2e300, 0.5)
    value, saved, _ = expanding_core(memory, (1.0, 2.0, -1.0), 1e301)
    assert saved == [0, 1] and value == 3.0
    value, saved, _ = expanding_core(memory, (1.0, 2.0, 3.0), 2.5e300)
    assert saved == [1, 2] and value == 5.0


def test_deterministic():
    instance = _pisinger("pisinger_spanner_weakly_correlated", 200, 1000, 1)
    first = solve(instance)
    assert all(solve(instance) == first for _ in range(3))


small_items = st.lists(
    st.tuples(st.integers(0, 40), st.one_of(st.integers(-5, 60), st.floats(-1e3, 1e18, allow_nan=False))),
    max_size=12,
)


@settings(max_examples=150)
@given(small_items, st.integers(0, 200))
def test_matches_brute_force_exactly(items, capacity):
    instance = Instance(tuple(w / SCALE for w, _ in items), tuple(float(r) for _, r in items), capacity / SCALE)
    value, saved, _ = solve(instance)
    assert set_weight(instance, saved) <= capacity
    assert set_value(instance, saved) == brute_force(instance).value


CLASSES = sorted(pisinger.ITEMS)


@pytest.mark.parametrize("name", CLASSES)
def test_every_pisinger_class_is_solved_exactly_compiled_and_in_plain_python(name):
    # Each class at a size the full table solves at once; the plain Python search on the same
    # integers must find the same optimum as the compiled one, and both the full table's.
    weights, profits, capacity = generate(name, 60, 1000, 3, integral=True)
    reference = full_table([w / SCALE for w in weights], list(map(float, profits)), capacity / SCALE).value
    compiled, _ = core_search.compiled_select(_int64(weights), _int64(profits), capacity)
    plain, _ = core_search.select(weights, profits, capacity)
    for saved in (compiled.tolist(), plain):
        assert sum(weights[i] for i in saved) <= capacity
        assert sum(profits[i] for i in saved) == reference


@pytest.mark.parametrize(
    "name", ["pisinger_strongly_correlated", "pisinger_even_odd", "pisinger_profit_ceiling", "pisinger_multiple_strongly_correlated"]
)
def test_runtimes_far_beyond_int64_are_solved_exactly_through_every_reduction(name):
    # Runtimes times 2**70 take the plain Python search (their sums need more than 64 bits) through
    # the surrogate relaxation, divisibility and the bonus bound on these classes: its optimum must
    # be 2**70 times the compiled search's on the runtimes themselves.
    weights, profits, capacity = generate(name, 300, 10_000, 0, integral=True)
    memory, budget = [w / SCALE for w in weights], capacity / SCALE
    value, saved, _ = expanding_core(memory, [float(p) for p in profits], budget)
    huge, huge_saved, _ = expanding_core(memory, [float(p * 2**70) for p in profits], budget)
    assert huge == value * 2**70
    assert sum(weights[i] for i in huge_saved) <= capacity


def test_an_item_brought_in_from_a_far_interval_leaves_the_bounds_valid():
    # The first core brought in an item from an interval beyond the nearest one and moved a more
    # efficient item into that far interval, which made the bounds prune the optimum: this instance
    # came out one short (its optimum, 55 766 866, is CP-SAT's, proven, and Combo's).
    weights, profits, capacity = generate("pisinger_inverse_strongly_correlated", 200, 1_000_000, 4, integral=True)
    compiled, _ = core_search.compiled_select(_int64(weights), _int64(profits), capacity)
    plain, _ = core_search.select(weights, profits, capacity)
    for saved in (compiled.tolist(), plain):
        assert sum(weights[i] for i in saved) <= capacity
        assert sum(profits[i] for i in saved) == 55_766_866


def test_the_compiled_cache_is_keyed_to_every_module_of_the_search():
    # numba's cache only notices changes to core_search.py itself; HELPERS_DIGEST names the
    # sources of the modules it calls, and the cache is used only while it matches.
    assert core_search.helpers_digest() == core_search.HELPERS_DIGEST, (
        f"a module of the search changed: set core_search.HELPERS_DIGEST to {core_search.helpers_digest()!r}"
    )
    # Likewise expanding_core's compiled entry, for the search and the contract's formula it calls.
    assert expanding_core_module.entry_digest() == expanding_core_module.ENTRY_DIGEST, (
        f"the search or contract.quantized changed: set expanding_core.ENTRY_DIGEST to {expanding_core_module.entry_digest()!r}"
    )
