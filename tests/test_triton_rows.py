"""The Triton row-update kernels against a plain torch row update.

Without a GPU these run the kernels in Triton's interpreter on CPU tensors (knapcheck.solvers.dp.triton_rows
switches it on), so CI checks the very code a GPU runs; with a GPU they run compiled. Rows are a
few hundred cells, and small windows (max_span=64 or 128) force the halo and streaming paths.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

pytest.importorskip("triton", reason="the cuda solver's kernels need triton (Linux only)")
from hypothesis import given, settings
from hypothesis import strategies as st

from knapcheck.solvers.dp.triton_rows import MIN_SPAN, Launch, TritonPasses, TritonRows, kernel_device, plan_launches

DEVICE = kernel_device()
ROOT = Path(__file__).resolve().parent.parent


def torch_rows(profile, weights, values, decisions=None):
    """The oracle: one item at a time, each reading the row as it was before it (0/1 semantics).

    Decision columns below an item's weight are left as they are, as in knapcheck.solvers.dp.rows.
    """
    profile = profile.clone()
    for i, (w, v) in enumerate(zip(weights, values)):
        with_item = profile[:-w] + v
        take = with_item > profile[w:]
        if decisions is not None:
            decisions[i, w:] = take
        profile[w:] = torch.where(take, with_item, profile[w:])
    return profile


def random_items(seed, count, max_weight, dtype):
    g = torch.Generator().manual_seed(seed)
    weights = torch.randint(1, max_weight + 1, (count,), generator=g).tolist()
    values = torch.randint(1, 10**12, (count,), generator=g, dtype=torch.int64)
    if dtype.is_floating_point:
        values = values.to(torch.float64) / 7.0
    return weights, values.to(dtype).tolist()


def starting_profile(capacity, dtype, seed):
    """A monotone non-negative row, as a profile after earlier items would be."""
    g = torch.Generator().manual_seed(seed)
    steps = torch.randint(0, 10**9, (capacity + 1,), generator=g, dtype=torch.int64)
    return torch.cumsum(steps, 0).to(dtype)


@pytest.mark.parametrize("dtype", [torch.int64, torch.float64])
@pytest.mark.parametrize(
    "max_span, capacity, max_weight",
    [
        (1024, 300, 120),  # the row fits one window: every item in one launch
        (64, 257, 50),  # groups with halos over many tiles, and streamed heavy items
    ],
)
def test_profile_and_decisions_match_torch_rows(dtype, max_span, capacity, max_weight):
    weights, values = random_items(capacity + max_span, 24, max_weight, dtype)
    start = starting_profile(capacity, dtype, seed=7)
    expected_decisions = torch.zeros(len(weights), capacity + 1, dtype=torch.bool)
    expected = torch_rows(start, weights, values, expected_decisions)
    rows = TritonRows(max_span=max_span, stream_block=64)

    profile = start.to(DEVICE, copy=True)
    rows.apply_items(profile, weights, values)
    assert torch.equal(profile.cpu(), expected)

    profile = start.to(DEVICE, copy=True)
    decisions = torch.zeros(len(weights), capacity + 1, dtype=torch.bool, device=DEVICE)
    rows.apply_items_recording(profile, weights, values, decisions)
    assert torch.equal(profile.cpu(), expected)
    assert torch.equal(decisions.cpu(), expected_decisions)


@settings(max_examples=8)
@given(
    capacity=st.integers(1, 200),
    items=st.lists(st.tuples(st.integers(1, 200), st.integers(1, 50)), min_size=1, max_size=10),
    max_span=st.sampled_from([64, 128, 256]),
    dtype=st.sampled_from([torch.int16, torch.int64]),
)
def test_ties_and_edges_match_torch_rows(capacity, items, max_span, dtype):
    """Small values make ties common: an item is taken only where it is strictly better."""
    weights = [w for w, _ in items]  # some heavier than the row: they change nothing
    values = [v for _, v in items]
    start = torch.zeros(capacity + 1, dtype=dtype)
    expected_decisions = torch.ones(len(weights), capacity + 1, dtype=torch.bool)
    expected = torch_rows(start, weights, values, expected_decisions)

    profile = start.to(DEVICE, copy=True)
    decisions = torch.ones(len(weights), capacity + 1, dtype=torch.bool, device=DEVICE)
    TritonRows(max_span=max_span, stream_block=64).apply_items_recording(profile, weights, values, decisions)
    assert torch.equal(profile.cpu(), expected)
    assert torch.equal(decisions.cpu(), expected_decisions)


@pytest.mark.parametrize("max_span", [64, 1024])
def test_forward_pass_matches_torch_rows_from_low_up(max_span):
    """TritonPasses.forward works on windows, with fills above them: exact from ``low`` up."""
    capacity = 400
    weights, values = random_items(max_span, 30, 60, torch.int64)
    expected = torch_rows(torch.zeros(capacity + 1, dtype=torch.int64), weights, values)
    for low in (0, 150, capacity):
        profile = torch.full((capacity + 1,), -1, dtype=torch.int64, device=DEVICE)
        TritonPasses(max_span=max_span, stream_block=64).forward(profile, weights, values, capacity, low)
        assert torch.equal(profile[low:].cpu(), expected[low:])


@given(
    weights=st.lists(st.integers(1, 5000), max_size=40),
    length=st.integers(2, 6000),
    span=st.sampled_from([64, 256, 1024]),
)
def test_launch_plan_covers_every_item_in_order_within_the_window(weights, length, span):
    launches = plan_launches(weights, length, span)
    covered = [i for launch in launches for i in range(launch.first, launch.first + launch.count)]
    assert covered == list(range(len(weights)))
    for launch in launches:
        group = weights[launch.first : launch.first + launch.count]
        if length <= span:
            assert launch == Launch(0, len(weights), 0)
        elif launch.halo is None:
            assert launch.count == 1 and group[0] > span // 2
        else:
            assert launch.halo == sum(group) <= span // 2


def test_bad_arguments_are_refused():
    rows = TritonRows(max_span=MIN_SPAN)
    profile = torch.zeros(11, dtype=torch.int64, device=DEVICE)
    with pytest.raises(ValueError, match=r"weights\[1\]"):
        rows.apply_items(profile, [3, 0], [1, 1])
    with pytest.raises(ValueError, match="values"):
        rows.apply_items(profile, [3, 4], [1])
    with pytest.raises(ValueError, match="decisions"):
        rows.apply_items_recording(profile, [3], [1], torch.zeros(1, 5, dtype=torch.bool, device=DEVICE))
    with pytest.raises(ValueError, match="max_span"):
        TritonRows(max_span=100)
    with pytest.raises(ValueError, match="stream_block"):
        TritonRows(stream_block=1000)


COMPILE_FOR_HOPPER = """
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from knapcheck.solvers.dp import triton_rows

common = {"weights": "*i32", "decisions": "*i1", "decision_stride": "i64", "length": "i32"}
for dtype in ("i64", "fp64", "i8"):
    rows = {"src": f"*{dtype}", "dst": f"*{dtype}", "values": f"*{dtype}", **common}
    group = {**rows, "first": "i32", "count": "i32", "halo": "i32", "SPAN": "constexpr", "RECORD": "constexpr"}
    stream = {**rows, "item": "i32", "BLOCK": "constexpr", "RECORD": "constexpr"}
    for kernel, signature, constants, warps in (
        (triton_rows._group_kernel, group, {"SPAN": triton_rows.MAX_SPAN}, 16),
        (triton_rows._stream_kernel, stream, {"BLOCK": triton_rows.STREAM_BLOCK}, 4),
    ):
        source = ASTSource(kernel, signature, constexprs={**constants, "RECORD": dtype == "i64"})
        triton.compile(source, target=GPUTarget("cuda", 90, 32), options={"num_warps": warps})
backtrack = {"decisions": "*i1", "decision_stride": "i64", "weights": "*i32", "prefix": "*i64", "taken": "*i1",
             "count": "i32", "capacity": "i32"}
triton.compile(ASTSource(triton_rows._backtrack_kernel, backtrack), target=GPUTarget("cuda", 90, 32), options={"num_warps": 1})
print("compiled")
"""


def test_kernels_compile_for_hopper_without_a_gpu():
    """The interpreter never compiles: this builds the real kernels for sm_90 (H100/H200) with
    Triton's own ptxas, so type and lowering errors show up in CI, not first on a GPU."""
    env = dict(os.environ, TRITON_INTERPRET="0", TRITON_DEFAULT_FP_FUSION="1", PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", COMPILE_FOR_HOPPER], capture_output=True, text=True, env=env, cwd=ROOT)
    assert done.returncode == 0 and "compiled" in done.stdout, done.stderr[-3000:]
