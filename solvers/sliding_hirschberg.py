"""Sliding-window + Hirschberg knapsack solver in torch: exact, memory linear in the budget.

Before any DP, a bound test (``knapcheck.solvers.bound_fixing``) decides the items that are provably in
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
upper edge slowly, heavy items last raise the lower edge fast.

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
most ``rows.BLOCK`` cells and O(n) Python lists: O(C + n). A forward pass that records
decisions puts its profile at the end of the two rows' storage and its table before it; the
default ``max_decision_bytes`` is what fits there (one row's bytes before any split), at least
``MIN_DECISION_BYTES``: a table is allocated apart from the rows only below that floor.
"""

from __future__ import annotations

import math
from array import array
from itertools import islice
from typing import Callable, Sequence

import torch

from .bound_fixing import decide_by_bounds, dp_candidates
from .contract import SCALE, ProblemTooLarge, Solution, exact_integers, quantize, validate
from .dp import rows

MIN_DECISION_BYTES = 4096
"""The default decision allowance's floor: one page, so small problems skip splitting at a page's cost."""
MAX_PROFILE_BYTES = 4 * 2**30
"""The two profile rows together may take at most this much; a larger budget is refused before allocating."""

_EXACT_DTYPES = ((torch.int8, 7), (torch.int16, 15), (torch.int32, 31), (torch.float64, 53), (torch.int64, 63))
"""Profile dtypes in order of preference, each with the bits an integer total must fit in."""


def profile_values(runtimes: Sequence[float]) -> tuple[array, torch.dtype]:
    """The values the profiles hold for these (positive) runtimes, and the profile dtype.

    The values come in an ``array`` (int64 or float64 items); see "Arithmetic" above."""
    integers = exact_integers(runtimes)
    total = sum(integers)
    for dtype, bits in _EXACT_DTYPES:
        if total < 2**bits:
            return array("d" if dtype.is_floating_point else "q", integers), dtype
    return array("d", map(float, runtimes)), torch.float64


def sliding_hirschberg(
    memory: Sequence[float],
    runtimes: Sequence[float],
    max_memory: float,
    *,
    device: str | torch.device = "cpu",
    max_decision_bytes: int | None = None,
    scale: int = SCALE,
    quantization: Callable[[Sequence[float], float, int], tuple[list[int], int]] = quantize,
    backend: rows.DPBackend | None = None,
    fix_by_bounds: bool = True,
) -> Solution:
    """Solve exactly; ``max_decision_bytes`` defaults to what the two profile rows hold beside the profile.

    ``quantization(memory, max_memory, scale)`` gives the integer problem solved exactly: upstream's
    rounding by default, or another of ``knapcheck.solvers.contract`` (``knapcheck.solvers.budget_safe``).
    ``fix_by_bounds``: decide what the bound test can before the DP (see the module docstring).
    ``backend``: the DP's row updates and pass steps (``knapcheck.solvers.dp.rows.DPBackend``); default
    ``rows.TorchRows()``, torch ops on ``device``.

    ProblemTooLarge, before anything large is allocated, when the two profile rows would take more
    than MAX_PROFILE_BYTES.
    """
    memory, runtimes, max_memory = validate(memory, runtimes, max_memory)
    weights, capacity = quantization(memory, max_memory, scale)
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
    search = _Search(ordered_weights, values, dtype, torch.device(device), max_decision_bytes, backend or rows.TorchRows())
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

    def __init__(self, weights, values, dtype, device, max_decision_bytes, backend) -> None:
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
        """``cells`` profile cells, refused before allocating when the two rows a problem of this
        capacity needs would exceed MAX_PROFILE_BYTES (a lone first pass allocates one of them)."""
        needed = 2 * (self.largest + 1) * self.cell_bytes
        if needed > MAX_PROFILE_BYTES:
            raise ProblemTooLarge(
                f"sliding_hirschberg needs {needed} bytes for two profile rows of {self.largest + 1} "
                f"{self.dtype} cells (reduced capacity {self.largest}), over MAX_PROFILE_BYTES = {MAX_PROFILE_BYTES}"
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

    def _one_pass(self, weights: list[int], values: list, capacity: int) -> list[int]:
        """The chosen positions, from one forward pass that records a decision table."""
        profile, decisions = self._profile_and_table(len(weights), capacity)
        self.backend.forward(profile, weights, values, capacity, capacity, decisions)
        return self.backend.backtrack(decisions, weights, capacity)

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
        self.backend.forward(left, left_w, left_v, highest, lowest)
        self.backend.forward(right, right_w, right_v, capacity - lowest, capacity - highest)
        return self.backend.best_split(left, right, lowest, highest, capacity)
