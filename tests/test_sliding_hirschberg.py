"""The sliding-window + Hirschberg solver: exact on every family, both paths, its backend contract."""

from __future__ import annotations

import functools
import math
import random

import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from knapcheck.fuzz.instances import families
from knapcheck.fuzz.judging.verdicts.differential import size_allows
from knapcheck.oracles.brute_force import brute_force
from knapcheck.oracles.optimum import optimum
from knapcheck.oracles.verdict import Verdict, judge
from knapcheck.solvers import sliding_hirschberg as module
from knapcheck.solvers.contract import SCALE, Instance, ProblemTooLarge, exact_scale, float_tolerance
from knapcheck.solvers.contract.outcome import call_in_process
from knapcheck.solvers.dp import rows as dp_rows
from knapcheck.solvers.full_table import full_table
from knapcheck.solvers.registry import resolve_one
from knapcheck.solvers.sliding_hirschberg import profile_values, sliding_hirschberg

HIRSCHBERG = functools.partial(sliding_hirschberg, max_decision_bytes=0, fix_by_bounds=False)
"""No decision table fits: every sub-problem of two or more items is split, none decided by bounds."""
ONE_PASS = functools.partial(sliding_hirschberg, max_decision_bytes=1 << 40, fix_by_bounds=False)
"""The whole problem fits one decision table: one forward pass and a backtrack, none decided by bounds."""
DP_ONLY = functools.partial(sliding_hirschberg, fix_by_bounds=False)
"""The default DP on the whole problem."""
PATHS = {"default": sliding_hirschberg, "hirschberg": HIRSCHBERG, "one_pass": ONE_PASS, "dp_only": DP_ONLY}

SLIDING = resolve_one("sliding_hirschberg")
"""The registered solver, whose declared limits say which instances it takes."""


def units(weights, runtimes, capacity) -> Instance:
    return Instance(tuple(w / SCALE for w in weights), tuple(float(r) for r in runtimes), capacity / SCALE)


def assert_optimal(solver, instance: Instance, oracle=None) -> None:
    oracle = oracle if oracle is not None else optimum(instance)
    judgement = judge(instance, call_in_process(solver, instance), oracle)
    assert judgement.verdict is Verdict.OPTIMAL, judgement.detail


def assert_same_value_as_reference(answer, instance: Instance) -> None:
    reference = full_table(list(instance.memory), list(instance.runtimes), instance.max_memory)
    if exact_scale(instance.runtimes) is not None:
        assert answer.value == reference.value
    else:
        assert abs(answer.value - reference.value) <= float_tolerance(instance.runtimes)


SPLIT_EDGES = {
    "capacity 0": units([1, 2, 3], [5, 6, 7], 0),
    "capacity 0 with free items": units([0, 2, 0], [5, 6, 7], 0),
    "one unit": units([1, 1, 2, 1], [3, 9, 20, 9], 1),
    "exact fit of all": units([3, 4, 5], [1, 1, 1], 12),
    "exact fit of a subset": units([5, 7, 11, 13, 17], [9, 13, 20, 24, 31], 24),
    "one unit short of a subset": units([5, 7, 11, 13, 17], [9, 13, 20, 24, 31], 23),
    "one unit over a subset": units([5, 7, 11, 13, 17], [9, 13, 20, 24, 31], 25),
    "all zero weights": units([0, 0, 0, 0], [1, 0, -2, 5], 3),
    "all heavier than the budget": units([11, 12, 50], [4, 5, 6], 10),
    "heavier and equal to the budget": units([11, 10, 10, 9], [4, 5, 6, 1], 10),
    "duplicates": units([6] * 9, [4] * 9, 20),
    "duplicates and ties": units([3, 3, 6, 6, 2, 4], [3, 3, 6, 6, 2, 4], 11),
    "common divisor": units([30, 45, 60, 75], [7, 9, 13, 16], 140),
    "runtimes <= 0 only": units([1, 2], [0, -4], 5),
    "no items": units([], [], 7),
    "single item fits": units([4], [2], 4),
    "single item too heavy": units([5], [2], 4),
    "past float32": units([3, 4, 5, 6], [2**24 + 1, 2**24 + 3, 2**25 + 1, 2**40 + 7], 9),
    "total just below 2**53 (float64 profiles)": units([2, 2, 1, 1], [2**52 - 2, 2**52 - 1, 1, 1], 3),
    "total past 2**53 (int64 profiles)": units([2, 2, 1, 1], [2**52, 2**52 + 1, 1, 1], 3),
}


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("case", SPLIT_EDGES)
def test_split_edges_are_optimal(case, path):
    instance = SPLIT_EDGES[case]
    assert_optimal(PATHS[path], instance, brute_force(instance))


@pytest.mark.parametrize("seed", range(6))
def test_both_paths_match_the_reference_on_random_instances(seed):
    rng = random.Random(seed)
    n = rng.randint(20, 60)
    weights = [rng.choice([rng.randint(1, 60), rng.randint(1, 4) * 15]) for _ in range(n)]
    runtimes = [rng.randint(1, 10**12) for _ in range(n)]
    instance = units(weights, runtimes, rng.randint(0, sum(weights)))
    for solver in PATHS.values():
        assert_same_value_as_reference(solver(list(instance.memory), list(instance.runtimes), instance.max_memory), instance)


@pytest.mark.parametrize("family", families.names())
@settings(max_examples=15)
@given(data=st.data())
def test_every_family_is_optimal_on_both_paths(family, data):
    instance = data.draw(families.strategy(family), label=family)
    assume(size_allows(SLIDING, instance))  # the boundary families' capacities past its profiles' bound
    oracle = optimum(instance)
    for solver in PATHS.values():
        assert_optimal(solver, instance, oracle)
        assert_same_value_as_reference(solver(list(instance.memory), list(instance.runtimes), instance.max_memory), instance)


def test_same_saved_set_whatever_the_thread_count():
    rng = random.Random(7)
    n = 40
    memory = [rng.randint(1, 20_000) / SCALE for _ in range(n)]
    runtimes = [float(rng.randint(10**6, 10**12)) for _ in range(n)]
    budget = sum(memory) / 3
    before = torch.get_num_threads()
    try:
        answers = []
        for threads in (1, 2, 4):
            torch.set_num_threads(threads)
            answers.append([sliding_hirschberg(memory, runtimes, budget, max_decision_bytes=b) for b in (0, None)])
    finally:
        torch.set_num_threads(before)
    assert answers[0] == answers[1] == answers[2]


def test_same_input_same_answer_on_ties():
    memory = [0.0003] * 12
    runtimes = [5.0] * 12
    first = sliding_hirschberg(memory, runtimes, 0.0017)
    assert first == sliding_hirschberg(memory, runtimes, 0.0017)
    assert len(first.saved) == 5


@pytest.mark.parametrize(
    "runtimes, dtype",
    [
        ([1, 2, 100], torch.int8),
        ([100, 100], torch.int16),
        ([2**20, 2**20], torch.int32),
        ([2**40, 3], torch.float64),
        ([2**53 - 4, 3], torch.float64),
        ([2**53, 3], torch.int64),
        ([2**62, 3], torch.int64),
        ([0.5, 0.25], torch.int8),
        ([2.0**62, 2.0**62], torch.float64),
        ([0.1, 1e-300], torch.float64),
    ],
)
def test_profile_dtype_is_the_first_exact_one_for_the_total(runtimes, dtype):
    assert profile_values(runtimes)[1] == dtype


def test_integer_values_are_exact_units_of_the_runtimes():
    values, dtype = profile_values([0.5, 0.75, 3.0])
    assert values.tolist() == [2, 3, 12] and dtype == torch.int8


def test_flop_scale_values_are_identical_to_the_reference():
    instance = units([3, 5, 4, 6, 7], [10**12 + 1, 10**12 + 3, 999_999_999_999, 2 * 10**12 - 5, 17], 12)
    answer = sliding_hirschberg(list(instance.memory), list(instance.runtimes), instance.max_memory)
    assert answer.value == full_table(list(instance.memory), list(instance.runtimes), instance.max_memory).value


def naive_rows(profile: list, weights, values, decisions=None) -> list:
    for i, (w, v) in enumerate(zip(weights, values)):
        before = list(profile)
        for c in range(w, len(profile)):
            taken = before[c - w] + v
            if decisions is not None:
                decisions[i][c] = taken > before[c]
            profile[c] = max(before[c], taken)
    return profile


@pytest.mark.parametrize("block", [dp_rows.BLOCK, 3])
@pytest.mark.parametrize("dtype", [torch.int64, torch.float64])
def test_backend_matches_the_textbook_recurrence(monkeypatch, block, dtype):
    monkeypatch.setattr(dp_rows, "BLOCK", block)
    rng = random.Random(block)
    for _ in range(20):
        cap = rng.randint(1, 30)
        weights = [rng.randint(1, cap) for _ in range(rng.randint(1, 6))]
        values = [rng.choice([1, 2, 3, 5]) for _ in weights]
        if dtype == torch.float64:
            values = [v / 4 for v in values]
        start = [rng.randint(0, 3) for _ in range(cap + 1)]
        expected_decisions = [[False] * (cap + 1) for _ in weights]
        expected = naive_rows(list(start), weights, values, expected_decisions)

        profile = torch.tensor(start, dtype=dtype)
        dp_rows.apply_items(profile, weights, values)
        assert profile.tolist() == expected

        profile = torch.tensor(start, dtype=dtype)
        decisions = torch.zeros((len(weights), cap + 1), dtype=torch.bool)
        dp_rows.apply_items_recording(profile, weights, values, decisions)
        assert profile.tolist() == expected
        assert decisions.tolist() == expected_decisions


def test_any_backend_object_is_used():
    calls = []

    class Counting(dp_rows.TorchRows):
        def apply_items(self, *args):
            calls.append("apply")
            dp_rows.apply_items(*args)

        def apply_items_recording(self, *args):
            calls.append("record")
            dp_rows.apply_items_recording(*args)

    instance = units([5, 7, 11, 13, 17, 19, 23], [9, 13, 20, 24, 31, 35, 41], 50)
    args = (list(instance.memory), list(instance.runtimes), instance.max_memory)
    answer = sliding_hirschberg(*args, max_decision_bytes=100, backend=Counting(), fix_by_bounds=False)
    assert answer == sliding_hirschberg(*args, max_decision_bytes=100, fix_by_bounds=False)
    assert set(calls) == {"apply", "record"}


@given(
    weights=st.lists(st.integers(1, 50), min_size=1, max_size=30),
    capacity=st.integers(0, 400),
    low=st.integers(0, 400),
)
def test_groups_cover_every_window_in_order(weights, capacity, low):
    low = min(low, capacity)
    groups = list(dp_rows.groups(weights, capacity, low))
    assert [g[0] for g in groups] == [0] + [g[1] for g in groups[:-1]] and groups[-1][1] == len(weights)
    to_come, so_far = sum(weights), 0
    for first, stop, begin, top in groups:
        for w in weights[first:stop]:
            to_come -= w
            so_far += w
            assert begin <= max(0, low - to_come - w) and top >= min(capacity, so_far)
            assert top <= capacity


def test_bad_decision_allowance_is_rejected():
    with pytest.raises(ValueError, match="max_decision_bytes"):
        sliding_hirschberg([0.1], [1.0], 0.2, max_decision_bytes=-1)


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match=r"memory\[1\]"):
        sliding_hirschberg([0.1, float("nan")], [1.0, 2.0], 0.2)


def test_a_budget_too_large_for_the_rows_is_refused_before_allocating(monkeypatch):
    monkeypatch.setattr(module, "MAX_PROFILE_BYTES", 1000)
    with pytest.raises(ProblemTooLarge, match="MAX_PROFILE_BYTES"):
        sliding_hirschberg([0.3001, 0.4, 0.5], [1.0, 2.0, 3.0], 0.9, fix_by_bounds=False)


def test_the_reported_value_is_the_sum_of_the_saved_runtimes():
    memory, runtimes = [0.1, 0.2, 0.0, 0.3], [0.1, 0.2, 0.3, -1.0]
    answer = sliding_hirschberg(memory, runtimes, 0.3)
    assert answer.value == math.fsum(runtimes[i] for i in answer.saved)
    assert sorted(answer.saved + answer.recomputable) == list(range(4))
    assert 2 in answer.saved and 3 in answer.recomputable
