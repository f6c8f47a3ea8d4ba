"""Sliding-window + Hirschberg knapsack solver in torch: exact, memory linear in the budget.

Before any DP, a bound test (``solvers.bound_fixing``) decides the items that are provably in
every optimal selection or in none; the DP below solves what is left, with the capacity the taken
items leave (``fix_by_bounds=False`` hands it the whole problem).

The DP keeps best-value profiles (one cell per capacity) instead of the full table, and
finds the chosen items by divide and conquer. A sub-problem (a run of items, a capacity) is
first reduced: items heavier than the capacity are dropped, all items are taken when their
weights sum to at most the capacity, and weights and capacity are divided by the weights'
greatest common divisor. Then:

- if its decision table (one byte per item and capacity) fits ``max_decision_bytes``, one
  forward pass records the decisions and a backtrack reads the chosen items off them;
- otherwise the items are split in two halves, each half's profile is computed, and the
  capacity split where the two profiles sum highest gives each half its share of the budget.
  Both halves go on an explicit work stack.

Every forward pass works only on the window of capacities that can still matter: cells above the
weight of the items seen so far all hold the same value (everything fits), and cells below the
target capacity minus the weight of the items still to come can never be reached. Items are
ordered by weight (then index), which keeps these windows narrow: light items first grow the
upper edge slowly, heavy items last raise the lower edge fast (a third fewer cells than the
given order on the benchmark's large rows).

Tie rule: items the bound test decides are the same in every optimal selection; among the
rest, at a split the smallest left share among the maximal sums wins; in a forward pass an
item is taken only where taking it is strictly better. Both rules are applied to exact integers
(or to float64 values computed by the same elementwise operations on every device), so the saved
set is the same whatever the thread count and on CPU and CUDA alike.

Arithmetic: every positive runtime is a multiple of one power of two; in those units the profiles
hold exact integers, chosen by their total (no profile cell or split sum can exceed it): int8,
int16 or int32 when it fits one of them; else float64 while it is below 2**53, where every sum is an
exact integer (torch's float64 add and maximum beat int64's on CPUs without AVX-512, which have no
vector int64 maximum); else int64 while it fits one. Beyond that, profiles are float64
values of the runtimes, and no longer exact.

Memory: at most two profile rows of the first sub-problem's capacity, one scratch block of at
most ``dp_rows.BLOCK`` cells and O(n) Python lists: O(C + n). A forward pass that records
decisions puts its profile at the end of the two rows' storage and its table before it; the
default ``max_decision_bytes`` is what fits there (one row's bytes before any split), at least
``MIN_DECISION_BYTES``: a table is allocated apart from the rows only below that floor.
"""

from __future__ import annotations

import math
from array import array
from itertools import islice
from typing import Sequence

import torch

from solvers import bound_fixing, dp_rows
from solvers.contract import SCALE, ProblemTooLarge, Solution, exact_runtimes, quantize, validate

MIN_DECISION_BYTES = 4096
"""The default decision allowance's floor: one page, so small problems skip splitting at a page's cost."""
SEARCH_BLOCK = 4096
"""Cells per step of the split search on CPU: its one temporary stays small next to the rows."""
MAX_ROW_BYTES = 4 * 2**30
"""One profile row may take at most this much; a larger budget is refused before allocating."""

_EXACT_DTYPES = ((torch.int8, 7), (torch.int16, 15), (torch.int32, 31), (torch.float64, 53), (torch.int64, 63))
"""Profile dtypes in order of preference, each with the bits an integer total must fit in."""


def exact_integers(runtimes: Sequence[float]) -> list[int]:
    """The runtimes as integers in one common unit (a power of two; 1 when they are all integers)."""
    if all(float(r).is_integer() for r in runtimes):
        return [int(r) for r in runtimes]
    return exact_runtimes(runtimes)[0]


def profile_values(runtimes: Sequence[float]) -> tuple[array, torch.dtype]:
    """The values the profiles hold for these (positive) runtimes, and the profile dtype.

    The values come in an ``array`` (int64 or float64 items); see "Arithmetic" above."""
    integers = exact_integers(runtimes)
    total = sum(integers)
    for dtype, bits in _EXACT_DTYPES:
        if total < 2**bits:
            return array("d" if dtype.is_floating_point else "q", integers), dtype
    return array("d", map(float, runtimes)), torch.float64


def dp_candidates(weights: Sequence[int], runtimes: Sequence[float], capacity: int) -> list[int]:
    """The indices a DP may choose from: weight in [1, capacity] and a positive runtime."""
    return [i for i, (w, r) in enumerate(zip(weights, runtimes)) if 0 < w <= capacity and r > 0]


def decide_by_bounds(
    weights: Sequence[int], runtimes: Sequence[float], candidates: list[int], capacity: int
) -> tuple[list[int], list[int]]:
    """The candidates the bound test takes, and those it leaves to the DP (indices, as ``candidates``)."""
    taken, undecided = bound_fixing.fix_by_bounds(
        [weights[i] for i in candidates], exact_integers([runtimes[i] for i in candidates]), capacity
    )
    return [candidates[j] for j in taken], [candidates[j] for j in undecided]


def sliding_hirschberg(
    memory: Sequence[float],
    runtimes: Sequence[float],
    max_memory: float,
    *,
    device: str | torch.device = "cpu",
    max_decision_bytes: int | None = None,
    scale: int = SCALE,
    backend=None,
    fix_by_bounds: bool = True,
) -> Solution:
    """Solve exactly; ``max_decision_bytes`` defaults to what the two profile rows hold beside the profile.

    ``fix_by_bounds``: decide what the bound test can before the DP (see the module docstring).

    ``backend`` is any object with ``apply_items`` and ``apply_items_recording`` as in
    ``solvers.dp_rows`` (the default). A backend may also take over whole steps:
    ``forward(profile, weights, values, capacity, low, decisions)`` (fill ``profile[low:capacity+1]``
    with the items' best values, recording decisions where a backtrack from ``capacity`` reads them)
    and ``best_split(left, right, lowest, highest, capacity)`` (the smallest ``c`` in
    ``[lowest, highest]`` maximizing ``left[c] + right[capacity - c]``) and
    ``backtrack(decisions, weights, capacity)`` (the positions ``_one_pass`` reads off a recorded
    table); ``solvers.triton_rows`` does, to keep a GPU's work in few launches and its profiles
    and tables on the device.
    """
    memory, runtimes, max_memory = validate(memory, runtimes, max_memory)
    weights, capacity = quantize(memory, max_memory, scale)
    if max_decision_bytes is not None and (
        isinstance(max_decision_bytes, bool) or not isinstance(max_decision_bytes, int) or max_decision_bytes < 0
    ):
        raise ValueError(f"max_decision_bytes must be an int >= 0, got {max_decision_bytes!r}")

    decided = [i for i, (w, r) in enumerate(zip(weights, runtimes)) if w == 0 and r > 0]
    order = dp_candidates(weights, runtimes, capacity)
    if fix_by_bounds and order:
        taken, order = decide_by_bounds(weights, runtimes, order, capacity)
        decided += taken
        capacity -= sum(weights[i] for i in taken)
    order.sort(key=weights.__getitem__)
    ordered_weights = [weights[i] for i in order]
    del memory, weights
    values, dtype = profile_values([runtimes[i] for i in order])
    search = _Search(ordered_weights, values, dtype, torch.device(device), max_decision_bytes, backend or dp_rows)
    chosen_by_dp = search.solve(capacity)
    del search, ordered_weights, values
    saved = sorted(decided + [i for i, take in zip(order, chosen_by_dp) if take])
    chosen = bytearray(len(runtimes))
    for i in saved:
        chosen[i] = 1
    recomputable = [i for i in range(len(runtimes)) if not chosen[i]]
    return Solution(math.fsum(runtimes[i] for i in saved), saved, recomputable)


class _Search:
    """The work stack over sub-problems, with the profile rows they share.

    Items are addressed by position in the weight order; a sub-problem is a run of positions
    ``[start, stop)`` and a capacity, so the stack holds no item lists."""

    def __init__(self, weights, values, dtype, device, max_decision_bytes, backend):
        self.weights = weights
        """Quantized weights in the weight order (ascending)."""
        self.values = values
        """Profile values in the same order."""
        self.dtype = dtype
        self.device = device
        self.max_decision_bytes = max_decision_bytes
        self.backend = backend
        self.rows: torch.Tensor | None = None
        """Both profile rows in one tensor: row 0, then row 1, each ``largest + 1`` cells."""
        self.largest = 0
        """The first reduced sub-problem's capacity: no later one exceeds it, so rows this long never grow."""
        self.cell_bytes = torch.empty((), dtype=dtype).element_size()
        self.block = dp_rows.block_size(device)
        """Cells per fill and per split-search op (see dp_rows.BLOCK)."""

    def solve(self, capacity: int) -> bytearray:
        """One byte per position: 1 where the item is chosen."""
        chosen = bytearray(len(self.weights))
        stack = [(0, len(self.weights), capacity)]
        while stack:
            start, stop, capacity = stack.pop()
            while stop > start and self.weights[stop - 1] > capacity:
                stop -= 1
            if sum(islice(self.weights, start, stop)) <= capacity:
                chosen[start:stop] = b"\x01" * (stop - start)
                continue
            unit = math.gcd(*islice(self.weights, start, stop))
            capacity //= unit
            if not self.largest:
                self.largest = capacity
            if (stop - start) * (capacity + 1) <= self._decision_allowance(capacity):
                taken = self._one_pass(self._reduced(start, stop, unit), self.values[start:stop], capacity)
                for k in taken:
                    chosen[start + k] = 1
                continue
            middle = start + (stop - start) // 2
            left = self._split(
                self._reduced(start, middle, unit),
                self.values[start:middle],
                self._reduced(middle, stop, unit),
                self.values[middle:stop],
                capacity,
            )
            stack.append((middle, stop, (capacity - left) * unit))
            stack.append((start, middle, left * unit))
        return chosen

    def _reduced(self, start: int, stop: int, unit: int) -> list[int]:
        """The weights at positions [start, stop), divided by their sub-problem's common divisor."""
        if unit == 1:
            return self.weights[start:stop]
        return [w // unit for w in islice(self.weights, start, stop)]

    def _row(self, which: int, capacity: int) -> torch.Tensor:
        """Profile row 0 or 1, cells 0..capacity; both rows are allocated on first use, for the largest capacity.

        A child's reduced capacity never exceeds its parent's (its weights' divisor is a multiple
        of the parent's and its share is at most the parent's capacity), so rows never grow."""
        if self.rows is None:
            self.rows = self._empty(2 * (self.largest + 1))
        start = which * (self.largest + 1)
        return self.rows[start : start + capacity + 1]

    def _empty(self, cells: int) -> torch.Tensor:
        """``cells`` profile cells, refused before allocating when one row would exceed MAX_ROW_BYTES."""
        needed = (self.largest + 1) * self.cell_bytes
        if needed > MAX_ROW_BYTES:
            raise ProblemTooLarge(
                f"sliding_hirschberg needs {needed} bytes per profile row for capacity {self.largest}, "
                f"over MAX_ROW_BYTES = {MAX_ROW_BYTES}"
            )
        return torch.empty(cells, dtype=self.dtype, device=self.device)

    def _decision_allowance(self, capacity: int) -> int:
        """Bytes a decision table may take: ``max_decision_bytes``; by default what the two rows hold
        beside a profile of ``capacity`` (one row's bytes when the rows are not allocated yet), and at
        least MIN_DECISION_BYTES, so that a tiny problem is one pass."""
        if self.max_decision_bytes is not None:
            return self.max_decision_bytes
        if self.rows is None:
            return max(MIN_DECISION_BYTES, (self.largest + 1) * self.cell_bytes)
        return max(MIN_DECISION_BYTES, (self.rows.numel() - capacity - 1) * self.cell_bytes)

    def _forward(self, profile, weights, values, capacity, low, decisions=None) -> None:
        """Fill profile[c] with the best value of these items for every c in [low, capacity].

        Cells above the weight of the items seen so far all hold their total value (everything
        fits): they are filled, not computed. Cells below ``low`` minus the weight still to come
        can never reach ``low``: they are left stale. Items are handed to the backend in groups
        (see ``_groups``); a group's first row is filled up to the group's top before its items.
        """
        if hasattr(self.backend, "forward"):
            self.backend.forward(profile, weights, values, capacity, low, decisions)
            return
        profile[0] = 0
        frontier = 0
        reached = 0
        for first, stop, begin, top in _groups(weights, capacity, low):
            for start in range(frontier + 1, top + 1, self.block):
                profile[start : min(top + 1, start + self.block)].fill_(reached)
            window = profile[begin : top + 1]
            group_w, group_v = weights[first:stop], values[first:stop]
            if decisions is None:
                self.backend.apply_items(window, group_w, group_v)
            else:
                self.backend.apply_items_recording(window, group_w, group_v, decisions[first:stop, begin : top + 1])
            frontier = top
            reached += sum(group_v)

    def _one_pass(self, weights: list[int], values: list, capacity: int) -> list[int]:
        """The chosen positions, from one forward pass that records a decision table."""
        profile, decisions = self._profile_and_table(len(weights), capacity)
        self._forward(profile, weights, values, capacity, capacity, decisions)
        if hasattr(self.backend, "backtrack"):
            return self.backend.backtrack(decisions, weights, capacity)
        prefix = list(_running_sums(weights))
        chosen = []
        room = capacity
        for k in range(len(weights) - 1, -1, -1):
            if room >= prefix[k]:
                chosen += range(k + 1)
                break
            if room >= weights[k] and bool(decisions[k, room]):
                chosen.append(k)
                room -= weights[k]
        return chosen

    def _profile_and_table(self, items: int, capacity: int) -> tuple[torch.Tensor, torch.Tensor]:
        """A profile of cells 0..capacity and an uninitialized bool decision table (items x cells).

        When the rows are allocated and the table fits beside the profile, the profile takes the
        rows' last cells and the table their first bytes (no split is in progress while a table is
        in use). Before any split, the profile and table are allocated as they are needed: this
        pass is then the only one.

        No zeroing is needed: the backtrack reads item k's row only at capacities in [w_k, top_k]
        and at or above low_k, all of which the forward pass writes."""
        cells = capacity + 1
        needed = items * cells
        rows = self.rows
        if rows is not None and (rows.numel() - cells) * self.cell_bytes >= needed:
            table = rows.view(torch.uint8)[:needed].view(torch.bool).view(items, cells)
            return rows[rows.numel() - cells :], table
        profile = self._row(0, capacity) if rows is not None else self._empty(cells)
        return profile, torch.empty((items, cells), dtype=torch.bool, device=self.device)

    def _split(self, left_w, left_v, right_w, right_v, capacity: int) -> int:
        """The left half's share: the smallest c maximizing left(c) + right(capacity - c)."""
        lowest = max(0, capacity - sum(right_w))
        highest = min(capacity, sum(left_w))
        left = self._row(0, highest)
        right = self._row(1, capacity - lowest)
        self._forward(left, left_w, left_v, highest, lowest)
        self._forward(right, right_w, right_v, capacity - lowest, capacity - highest)
        if hasattr(self.backend, "best_split"):
            return self.backend.best_split(left, right, lowest, highest, capacity)
        best_value, best = None, lowest
        step = min(self.block, SEARCH_BLOCK) if self.device.type == "cpu" else self.block
        for start in range(lowest, highest + 1, step):
            stop = min(highest + 1, start + step)
            sums = right[capacity - stop + 1 : capacity - start + 1].flip(0).add_(left[start:stop])
            at = int(torch.argmax(sums))
            value = sums[at].item()
            if best_value is None or value > best_value:
                best_value, best = value, start + at
        return best


def _running_sums(weights: list[int]):
    total = 0
    for w in weights:
        total += w
        yield total


GROUP_OVERHEAD_CELLS = 1 << 15
"""What one more backend call costs, in cells updated: merging an item into the current group
is worth it while the extra cells it makes the group update stay below this."""


def _groups(weights: list[int], capacity: int, low: int):
    """Consecutive items sharing one backend call: (first, stop, begin, top) per group.

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
