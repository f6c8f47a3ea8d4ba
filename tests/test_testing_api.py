"""The public testing API: knapcheck.strategies for a user's own @given tests, knapcheck.testing's assertions."""

from __future__ import annotations

import subprocess
import sys

import pytest

from knapcheck import strategies
from knapcheck.solvers.full_table import full_table
from knapcheck.solvers.isolation.worker import current_pool
from knapcheck.testing import SolverFailure, assert_optimal, assert_valid, check

pytest_plugins = ["pytester"]


@pytest.fixture(autouse=True)
def no_worker_left_behind():
    """A spec string runs isolated: its worker process must not outlive the test."""
    yield
    current_pool().stop()

SPLIT_CASE = {"memory": [0.003, 0.0029], "runtimes": [1.0, 2.0], "max_memory": 0.0058}
"""torch's sliding_hirschberg hands the two halves one unit too many: over budget here."""

USERS_TESTS = """
from hypothesis import given, settings
from knapcheck import strategies
from knapcheck.testing import assert_optimal
from torch._functorch._activation_checkpointing.knapsack import dp_knapsack_sliding_hirschberg
from knapcheck.solvers.full_table import full_table


@settings(deadline=None)  # full_table's first call compiles it
@given(strategies.exhaustive_small())
def test_full_table_is_optimal(instance):
    assert_optimal(full_table, instance)


@settings(max_examples=1000, database=None)
@given(strategies.exhaustive_small())
def test_torch_sliding_is_optimal(instance):
    assert_optimal(dp_knapsack_sliding_hirschberg, instance)
"""


def test_a_users_given_test_passes_on_an_exact_solver_and_fails_on_torch_s_split(pytester):
    pytester.makepyfile(test_users=USERS_TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q", timeout=300)
    result.assert_outcomes(passed=1, failed=1)
    text = result.stdout.str()
    assert "torch:dp_knapsack_sliding_hirschberg: OVER_BUDGET: saved weight" in text
    assert "reproduce with this snippet (it fails when run as shown):" in text
    assert "from torch._functorch._activation_checkpointing.knapsack import dp_knapsack_sliding_hirschberg as solve" in text


def test_the_message_holds_a_reproduction_that_fails_when_run(tmp_path):
    from torch._functorch._activation_checkpointing.knapsack import dp_knapsack_sliding_hirschberg

    with pytest.raises(SolverFailure) as raised:
        assert_optimal(dp_knapsack_sliding_hirschberg, SPLIT_CASE)
    assert raised.value.check.verdict.value == "OVER_BUDGET"
    snippet = str(raised.value).split("(it fails when run as shown):\n\n", 1)[1]
    (tmp_path / "reproduce.py").write_text(snippet)
    done = subprocess.run([sys.executable, "reproduce.py"], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 1 and "AssertionError: OVER_BUDGET" in done.stderr


def test_a_solver_without_an_importable_name_still_gets_the_instance_and_the_assertion():
    with pytest.raises(SolverFailure) as raised:
        assert_optimal(lambda memory, runtimes, max_memory: (0.0, [], list(range(len(memory)))), SPLIT_CASE)
    message = str(raised.value)
    assert message.startswith("<lambda>: SUBOPTIMAL: value 0.0 < optimum 2.0")
    assert "# bind solve to the solver under test here" in message and "assert got >= 2.0" in message


def test_a_heuristic_is_held_to_validity_and_a_spec_to_its_own_promise():
    assert_valid(lambda memory, runtimes, max_memory: (0.0, [], list(range(len(memory)))), SPLIT_CASE)
    assert check("torch:greedy_knapsack", ([0.001, 0.001], [1.0, 3.0], 0.001)).verdict.value in ("OPTIMAL", "SUBOPTIMAL")
    with pytest.raises(SolverFailure, match="REJECTED: ZeroDivisionError"):
        assert_valid("torch:greedy_knapsack", ([0.0], [1.0], 0.0))
    assert_optimal(full_table, strategies.every("large_capacity")[0])


def test_strategies_name_their_families_and_refuse_unknown_ones():
    assert "tight_budget" in strategies.names() and len(strategies.every("exhaustive_small")) == 6142
    with pytest.raises(ValueError, match="unknown instance family 'nosuch'"):
        strategies.family("nosuch")
    with pytest.raises(ValueError, match="is sampled, not enumerated"):
        strategies.every("tiny")
    with pytest.raises(ValueError, match="instance must be"):
        assert_optimal(full_table, [0.1])
