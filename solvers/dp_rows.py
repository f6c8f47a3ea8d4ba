"""The DP row update in torch, on any device: the one inner loop of the sliding-window solver.

Both functions update a best-value profile in place, item after item, with 0/1 semantics:
``profile[c] = max(profile[c], profile[c - w] + v)`` for every ``c >= w``, where the right-hand
side reads the profile as it was before this item. Any object with these two functions (the
same signatures, the same semantics) can serve as ``sliding_hirschberg``'s ``backend``; a Triton
backend for CUDA follows the same contract.

The profile is swept from its top down in blocks of at most ``BLOCK`` cells. A block's sources
``[lo - w, hi - w)`` all lie below ``hi``, which no earlier block has touched, so one scratch
block replaces the full-length temporary that ``profile[:-w] + v`` would allocate. Windows up to
torch's intra-op grain size (32 768 cells) run on the calling thread; a block of 2**18 cells lets
torch spread the large windows of big capacities over its threads (on an idle 2-core machine the
n = 1000, C = 1e6 bench row went from 1.40 s with 32 767-cell blocks to 0.90 s) while the
scratch stays at 2 MiB. On a machine whose cores are busy, threaded ops can be much slower.

Decision tables are ``torch.bool``, one row per item and one column per capacity (one byte per
cell): ``decisions[i, c]`` is set to whether taking item i at capacity c was strictly better
than leaving it. Columns below the item's weight are left as they are.
"""

from __future__ import annotations

from typing import Sequence

import torch

BLOCK = 1 << 18
"""Cells per block: large enough for torch to thread an op, small enough to bound the scratch."""


def block_size(device: torch.device) -> int:
    """Cells per op: ``BLOCK`` on CPU; on other devices, where an op's cost is its launch, unbounded."""
    return BLOCK if device.type == "cpu" else 1 << 62


def apply_items(profile: torch.Tensor, weights: Sequence[int], values: Sequence[float]) -> None:
    length = profile.numel()
    block = block_size(profile.device)
    scratch = _scratch(profile, weights, block)
    for w, v in zip(weights, values):
        if length - w <= block:
            shifted = scratch[: length - w]
            torch.add(profile[: length - w], v, out=shifted)
            target = profile[w:]
            torch.maximum(target, shifted, out=target)
            continue
        for lo, hi in _blocks(length, w, block):
            shifted = scratch[: hi - lo]
            torch.add(profile[lo - w : hi - w], v, out=shifted)
            target = profile[lo:hi]
            torch.maximum(target, shifted, out=target)


def apply_items_recording(
    profile: torch.Tensor, weights: Sequence[int], values: Sequence[float], decisions: torch.Tensor
) -> None:
    length = profile.numel()
    block = block_size(profile.device)
    scratch = _scratch(profile, weights, block)
    for i, (w, v) in enumerate(zip(weights, values)):
        row = decisions[i]
        for lo, hi in _blocks(length, w, block):
            shifted = scratch[: hi - lo]
            torch.add(profile[lo - w : hi - w], v, out=shifted)
            target = profile[lo:hi]
            torch.gt(shifted, target, out=row[lo:hi])
            torch.maximum(target, shifted, out=target)


def _scratch(profile: torch.Tensor, weights: Sequence[int], block: int) -> torch.Tensor:
    """As many cells as the longest shifted source: ``length - w`` for the lightest item, at most a block."""
    cells = min(block, profile.numel() - min(weights, default=profile.numel()))
    return torch.empty(max(0, cells), dtype=profile.dtype, device=profile.device)


def _blocks(length: int, w: int, block: int):
    """Blocks [lo, hi) covering [w, length), from the top down."""
    hi = length
    while hi > w:
        lo = max(w, hi - block)
        yield lo, hi
        hi = lo
