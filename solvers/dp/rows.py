"""The DP backend in torch, on any device: the row update and the steps of sliding_hirschberg's passes.

``DPBackend`` is what sliding_hirschberg asks of a backend. The row updates are the one inner loop:
both update a best-value profile in place, item after item, with 0/1 semantics:
``profile[c] = max(profile[c], profile[c - w] + v)`` for every ``c >= w``, where the right-hand
side reads the profile as it was before this item. The whole-pass steps (a forward pass over a
window of capacities, the best split of two profiles, the backtrack of a recorded table) have
torch implementations here, in terms of the row updates; a backend that can do better takes them
over (``knapcheck.solvers.dp.triton_rows`` keeps a GPU's work in few launches and its data on the device).
``TorchRows`` is the default backend.

The profile is swept from its top down in blocks of at most ``BLOCK`` cells. A block's sources
``[lo - w, hi - w)`` all lie below ``hi``, which no earlier block has touched, so one scratch
block replaces the full-length temporary that ``profile[:-w] + v`` would allocate. Windows up to
torch's intra-op grain size (32 768 cells) run on the calling thread; a block of 2**18 cells lets
torch spread the large windows of big capacities over its threads while the scratch stays at
2 MiB.

Decision tables are ``torch.bool``, one row per item and one column per capacity (one byte per
cell): ``decisions[i, c]`` is set to whether taking item i at capacity c was strictly better
than leaving it. Columns below the item's weight are left as they are.
"""

from __future__ import annotations

from typing import Protocol, Sequence

import torch

BLOCK = 1 << 18
"""Cells per block: large enough for torch to thread an op, small enough to bound the scratch."""
SEARCH_BLOCK = 4096
"""Cells per step of the split search on CPU: its one temporary stays small next to the rows."""
GROUP_OVERHEAD_CELLS = 1 << 15
"""What one more row-update call costs, in cells updated: merging an item into the current group
is worth it while the extra cells it makes the group update stay below this."""


class DPBackend(Protocol):
    """What sliding_hirschberg asks of a backend (``TorchRows`` implements every step in torch)."""

    def apply_items(self, profile: torch.Tensor, weights: Sequence[int], values) -> None:
        """The row update (module docstring), in place, item after item."""

    def apply_items_recording(self, profile: torch.Tensor, weights: Sequence[int], values, decisions: torch.Tensor) -> None:
        """The row update, recording ``decisions[i, c]`` (module docstring)."""

    def forward(
        self, profile: torch.Tensor, weights: Sequence[int], values, capacity: int, low: int,
        decisions: torch.Tensor | None = None,
    ) -> None:
        """Fill ``profile[low:capacity+1]`` with the items' best values, recording decisions where a
        backtrack from ``capacity`` reads them."""

    def best_split(self, left: torch.Tensor, right: torch.Tensor, lowest: int, highest: int, capacity: int) -> int:
        """The smallest ``c`` in ``[lowest, highest]`` maximizing ``left[c] + right[capacity - c]``."""

    def backtrack(self, decisions: torch.Tensor, weights: Sequence[int], capacity: int) -> list[int]:
        """The positions a backtrack from ``capacity`` takes off a table ``forward`` recorded."""


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


class TorchRows:
    """The default backend: every step in torch ops, on the profile's device."""

    def apply_items(self, profile: torch.Tensor, weights: Sequence[int], values) -> None:
        apply_items(profile, weights, values)

    def apply_items_recording(self, profile: torch.Tensor, weights: Sequence[int], values, decisions: torch.Tensor) -> None:
        apply_items_recording(profile, weights, values, decisions)

    def forward(self, profile, weights, values, capacity, low, decisions=None) -> None:
        """Cells above the weight of the items seen so far all hold their total value (everything
        fits): they are filled, not computed. Cells below ``low`` minus the weight still to come can
        never reach ``low``: they are left stale. Items go to the row update in groups (see
        ``groups``); a group's first row is filled up to the group's top before its items."""
        block = block_size(profile.device)
        profile[0] = 0
        frontier = 0
        reached = 0
        for first, stop, begin, top in groups(weights, capacity, low):
            for start in range(frontier + 1, top + 1, block):
                profile[start : min(top + 1, start + block)].fill_(reached)
            window = profile[begin : top + 1]
            group_w, group_v = weights[first:stop], values[first:stop]
            if decisions is None:
                self.apply_items(window, group_w, group_v)
            else:
                self.apply_items_recording(window, group_w, group_v, decisions[first:stop, begin : top + 1])
            frontier = top
            reached += sum(group_v)

    def best_split(self, left, right, lowest, highest, capacity) -> int:
        """Searched in blocks (SEARCH_BLOCK cells on CPU), so its one temporary stays small."""
        block = block_size(left.device)
        step = min(block, SEARCH_BLOCK) if left.device.type == "cpu" else block
        best_value, best = None, lowest
        for start in range(lowest, highest + 1, step):
            stop = min(highest + 1, start + step)
            sums = right[capacity - stop + 1 : capacity - start + 1].flip(0).add_(left[start:stop])
            at = int(torch.argmax(sums))
            value = sums[at].item()
            if best_value is None or value > best_value:
                best_value, best = value, start + at
        return best

    def backtrack(self, decisions, weights, capacity) -> list[int]:
        """From the last item down; once the room left holds every item below, all of them are taken."""
        prefix = list(_running_sums(weights))
        chosen: list[int] = []
        room = capacity
        for k in range(len(weights) - 1, -1, -1):
            if room >= prefix[k]:
                chosen += range(k + 1)
                break
            if room >= weights[k] and bool(decisions[k, room]):
                chosen.append(k)
                room -= weights[k]
        return chosen


def _running_sums(weights: Sequence[int]):
    total = 0
    for w in weights:
        total += w
        yield total


def groups(weights: Sequence[int], capacity: int, low: int):
    """Consecutive items sharing one row-update call: (first, stop, begin, top) per group.

    Item k needs the cells [begin_k, top_k] of the profile, begin_k = max(0, low - w_k - weight
    still to come) and top_k = min(capacity, weight so far); both grow with k, so a group
    needs [begin of its first item, top of its last]. Extra cells a group updates stay correct:
    the group's row is filled up to its top first, and cells below a window are never read by
    anything above it.
    """
    to_come = sum(weights)
    so_far = 0
    group = None
    for k, w in enumerate(weights):
        to_come -= w
        so_far += w
        begin, top = max(0, low - to_come - w), min(capacity, so_far)
        alone = top - begin - w + 1
        if group is not None:
            first, _, group_begin, _, count, group_weight, cells = group
            merged = (count + 1) * (top - group_begin + 1) - group_weight - w
            if merged <= cells + alone + GROUP_OVERHEAD_CELLS:
                group = (first, k + 1, group_begin, top, count + 1, group_weight + w, merged)
                continue
            yield group[:4]
        group = (k, k + 1, begin, top, 1, w, alone)
    if group is not None:
        yield group[:4]
