"""The cuda solver against the oracle and the CPU sliding_hirschberg, saved set for saved set.

Without a GPU the solver's kernels run in Triton's interpreter on CPU tensors, so these tests
check the code a GPU runs on every family's instances. Tests marked ``gpu`` repeat the comparison
at sizes only a GPU runs in reasonable time, and are skipped without one.
"""

import random

import pytest
import torch

pytest.importorskip("triton", reason="the cuda solver's kernels need triton (Linux only)")

from knapcheck.fuzz.instances import families
from knapcheck.fuzz.instances.strategies import sample
from knapcheck.solvers.cuda_solver import cuda_knapsack
from knapcheck.solvers.dp import rows as dp_rows
from knapcheck.solvers.dp.triton_rows import TritonRows
from knapcheck.solvers.sliding_hirschberg import sliding_hirschberg

SPLITTING = {"max_decision_bytes": 0, "fix_by_bounds": False}
"""No decision table may be kept and no item is decided by bounds: the solver splits every item's
share on device profiles."""
ONE_PASS = {"max_decision_bytes": 2**30}
"""One recorded pass (on the CPU too: the two solvers' default allowances differ, and the saved set
among equal optima depends on the path, split or recorded pass)."""


INTERPRETED_MAX_ITEMS = 300
"""The families compared here draw at most this many items: many_items' thousand items, split item
by item in Triton's interpreter, take a minute per instance (the tests marked gpu reach such sizes)."""


@pytest.mark.parametrize("name", families.names(exact=True, max_n=INTERPRETED_MAX_ITEMS))
def test_every_family_matches_the_cpu_solver_saved_set_for_saved_set(name):
    """Same recurrence, same dtype, same tie rules: the saved set is identical, not just its value.

    (tests/test_solvers.py judges the registered cuda entry against the oracle on every family.)
    """
    for instance in sample(families.strategy(name), 3, seed_value=11):
        for options in (ONE_PASS, SPLITTING):
            cpu = sliding_hirschberg(instance.memory, instance.runtimes, instance.max_memory, **options)
            for own_passes in (True, False):
                ours = cuda_knapsack(
                    instance.memory, instance.runtimes, instance.max_memory, own_passes=own_passes, **options
                )
                assert ours == cpu, (instance, own_passes)


def test_halo_windows_inside_the_solver_match_the_cpu_solver():
    """A window smaller than the rows makes every forward pass go through halos and streamed items."""
    rng = random.Random(5)
    for _ in range(3):
        n = rng.randint(5, 12)
        memory = [rng.randint(1, 60) / 10_000 for _ in range(n)]
        runtimes = [float(rng.randint(1, 10**12)) for _ in range(n)]
        budget = sum(memory) * rng.choice([0.3, 0.6])
        for options in (SPLITTING, {"max_decision_bytes": 2000, "fix_by_bounds": False}, ONE_PASS):
            cpu = sliding_hirschberg(memory, runtimes, budget, **options)
            for own_passes in (True, False):
                assert cuda_knapsack(memory, runtimes, budget, max_span=64, own_passes=own_passes, **options) == cpu


def random_instance(seed, n, capacity, integer_runtimes):
    rng = random.Random(seed)
    weights = [rng.randint(1, max(1, 4 * capacity // n)) for _ in range(n)]
    memory = [w / 10_000 for w in weights]
    if integer_runtimes:
        runtimes = [float(rng.randint(10**6, 10**12)) for _ in range(n)]
    else:
        runtimes = [rng.uniform(0, 1e6) for _ in range(n)]
    return memory, runtimes, capacity / 10_000


@pytest.mark.gpu
@pytest.mark.parametrize("integer_runtimes", [True, False])
@pytest.mark.parametrize("n, capacity", [(300, 20_000), (2000, 3_000), (100, 2_000_000)])
def test_gpu_matches_the_cpu_solver_at_size(n, capacity, integer_runtimes):
    memory, runtimes, budget = random_instance(n + capacity, n, capacity, integer_runtimes)
    for options in (ONE_PASS, {"max_decision_bytes": 8 * (capacity + 1)}):
        options = {**options, "fix_by_bounds": False}
        cpu = sliding_hirschberg(memory, runtimes, budget, **options)
        for own_passes in (True, False):
            assert cuda_knapsack(memory, runtimes, budget, own_passes=own_passes, **options) == cpu


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [torch.int64, torch.float64])
@pytest.mark.parametrize("max_weight", [64, 3000, 100_000])
def test_gpu_kernels_match_the_torch_rows_on_long_rows(dtype, max_weight):
    """Rows far longer than a window, with light (grouped), mixed and heavy (streamed) items."""
    g = torch.Generator().manual_seed(max_weight)
    length = 3_000_001
    weights = torch.randint(1, max_weight + 1, (40,), generator=g).tolist()
    values = torch.randint(1, 10**12, (40,), generator=g).tolist()
    if dtype.is_floating_point:
        values = [v / 3 for v in values]
    expected = torch.zeros(length, dtype=dtype, device="cuda")
    expected_decisions = torch.zeros(40, length, dtype=torch.bool, device="cuda")
    dp_rows.apply_items_recording(expected, weights, values, expected_decisions)
    profile = torch.zeros_like(expected)
    decisions = torch.zeros_like(expected_decisions)
    TritonRows().apply_items_recording(profile, weights, values, decisions)
    assert torch.equal(profile, expected)
    assert torch.equal(decisions, expected_decisions)


def test_the_gpu_bench_says_why_it_has_no_rows_without_a_gpu(capsys, monkeypatch):
    from knapcheck.commands.cli import main

    monkeypatch.setattr("knapcheck.commands.bench_command._cuda_available", lambda: False)
    assert main(["bench", "--device", "cuda"]) == 0
    assert "no CUDA device" in capsys.readouterr().out
