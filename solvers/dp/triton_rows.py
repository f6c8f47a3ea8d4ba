"""Triton kernels for the 0/1 knapsack row update, several items per launch.

The row update is ``profile[c] = max(profile[c], profile[c - w] + v)`` for every capacity ``c >= w``,
applied item after item (0/1 semantics: every item reads the row as it was before that item). One
launch per item reads and writes the whole row, so DRAM bandwidth bounds it. The group kernel
applies several consecutive items in one launch instead: each program loads a window of ``span``
cells — a tile of capacities plus, below it, a halo as wide as the items' total weight — applies
the items to that window in registers (the shift by ``w`` is a ``tl.gather``, which goes through
shared memory), and writes back only the tile. After the t-th item the window is exact from the
t-th partial weight sum on, so the tile is exact after all of them, and DRAM traffic per cell
update drops by about the number of items in the group. A row that fits one window needs no halo
at all: one program applies every item in a single launch. Items too heavy for a halo get the
one-item streaming kernel.

Arithmetic is that of the profile's dtype, whichever sliding_hirschberg chose for the runtimes
(its module docstring, "Arithmetic"): the kernels add and compare in it, and a strict ``>``
decides whether an item is taken, so they give the same profile and the same decisions as the
torch row update.

Without a CUDA device the kernels run on CPU tensors in Triton's interpreter: this module sets
``TRITON_INTERPRET=1`` before defining them when no GPU is present (the variable is read when a
kernel is defined), so CI runs the very kernels a GPU runs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Sequence

import torch

from .rows import TorchRows

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")

import triton  # noqa: E402  (must follow the interpreter switch above)
import triton.language as tl  # noqa: E402

MAX_SPAN = 8192
"""Cells one program of the group kernel holds on chip (tile + halo); a power of two."""

MIN_SPAN = 64
MAX_LENGTH = 2**31 - 2**16
"""Rows must be shorter: the kernels index cells (halo and block overshoot included) in int32."""
STREAM_BLOCK = 1024
"""Cells per program of the one-item streaming kernel on a GPU."""
INTERPRETER_STREAM_BLOCK = 1 << 16
"""The same in the interpreter, whose cost is mostly per program: long rows in few programs."""


def interpreting() -> bool:
    """Whether the kernels run in Triton's interpreter (on CPU tensors) rather than on a GPU."""
    return os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")


def kernel_device() -> str:
    """The device the kernels' tensors must live on."""
    return "cpu" if interpreting() else "cuda"


@triton.jit(do_not_specialize=["decision_stride", "first", "count", "length", "halo"])
def _group_kernel(
    src,
    dst,
    weights,
    values,
    decisions,
    decision_stride,
    first,
    count,
    length,
    halo,
    SPAN: tl.constexpr,
    RECORD: tl.constexpr,
):
    """Apply items first .. first+count-1 to one window; write its tile (cells halo.. of the window)."""
    tile = SPAN - halo
    j = tl.arange(0, SPAN)
    c = tl.program_id(0) * tile - halo + j
    inside = (c >= 0) & (c < length)
    tile_cells = inside & (j >= halo)
    best = tl.load(src + c, mask=inside, other=0)
    for t in range(count):
        item = first + t
        w = tl.load(weights + item)
        v = tl.load(values + item)
        with_item = tl.gather(best, tl.maximum(j - w, 0), 0) + v
        take = (j >= w) & (c >= w) & (with_item > best)
        best = tl.where(take, with_item, best)
        if RECORD:
            row = decisions + item.to(tl.int64) * decision_stride
            tl.store(row + c, take, mask=tile_cells & (c >= w))
    tl.store(dst + c, best, mask=tile_cells)


@triton.jit(do_not_specialize=["decision_stride", "item", "length"])
def _stream_kernel(
    src,
    dst,
    weights,
    values,
    decisions,
    decision_stride,
    item,
    length,
    BLOCK: tl.constexpr,
    RECORD: tl.constexpr,
):
    """Apply one item, reading src and writing dst: any weight, one pass over the row."""
    c = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = c < length
    w = tl.load(weights + item)
    v = tl.load(values + item)
    reachable = inside & (c >= w)
    best = tl.load(src + c, mask=inside, other=0)
    with_item = tl.load(src + c - w, mask=reachable, other=0) + v
    take = reachable & (with_item > best)
    tl.store(dst + c, tl.where(take, with_item, best), mask=inside)
    if RECORD:
        row = decisions + item.to(tl.int64) * decision_stride
        tl.store(row + c, take, mask=reachable)


@triton.jit(do_not_specialize=["decision_stride", "count", "capacity"])
def _backtrack_kernel(decisions, decision_stride, weights, prefix, taken, count, capacity):
    """Walk the items from the last: taken[k] is whether the optimum at ``capacity`` takes item k.

    Once the room left holds every item up to k, all of them are taken; before that, item k is
    taken where its recorded decision at the room left says so. One program, one item a step.
    """
    room = capacity.to(tl.int64)
    fits_all = room < 0
    for t in range(count):
        k = count - 1 - t
        w = tl.load(weights + k).to(tl.int64)
        fits_all = fits_all | (room >= tl.load(prefix + k))
        ask = (room >= w) & (fits_all == 0)
        decided = tl.load(decisions + k.to(tl.int64) * decision_stride + room, mask=ask, other=0) != 0
        take = fits_all | decided
        tl.store(taken + k, take)
        room = tl.where(decided & (fits_all == 0), room - w, room)


@dataclass(frozen=True)
class Launch:
    """One kernel launch: items first .. first+count-1; halo None means the one-item streaming kernel."""

    first: int
    count: int
    halo: int | None


def window_span(length: int, max_span: int = MAX_SPAN) -> int:
    """The group kernel's window for a row of ``length`` cells: the row itself if it fits, else max_span."""
    return min(max_span, max(MIN_SPAN, triton.next_power_of_2(length)))


def plan_launches(weights: Sequence[int], length: int, span: int) -> list[Launch]:
    """Split the items, in order, into launches.

    A row that fits one window takes every item in one launch, without a halo. Otherwise
    consecutive items are grouped while their total weight (the halo) stays within half the
    window, so at least half of every window is tile; an item heavier than that is streamed alone.
    """
    if length <= span:
        return [Launch(0, len(weights), 0)] if weights else []
    max_halo = span // 2
    launches: list[Launch] = []
    first, halo = 0, 0
    for i, w in enumerate(weights):
        if w > max_halo or halo + w > max_halo:
            if i > first:
                launches.append(Launch(first, i - first, halo))
            first, halo = i, 0
            if w > max_halo:
                launches.append(Launch(i, 1, None))
                first = i + 1
                continue
        halo += w
    if len(weights) > first:
        launches.append(Launch(first, len(weights) - first, halo))
    return launches


class TritonRows(TorchRows):
    """A DP backend for sliding_hirschberg whose row updates, split search and backtrack run in the
    Triton kernels above (its forward pass is TorchRows', calling the row updates per group).

    ``max_span`` sets the group kernel's window and ``stream_block`` the streaming kernel's block
    (powers of two; small values exercise the halo and multi-program paths on small rows in tests).
    ``group=False`` streams every item in its own launch: the
    one-item-per-launch baseline the benchmark compares with.
    """

    def __init__(self, *, max_span: int = MAX_SPAN, stream_block: int | None = None, group: bool = True) -> None:
        if max_span < MIN_SPAN or max_span & (max_span - 1):
            raise ValueError(f"max_span must be a power of two >= {MIN_SPAN}, got {max_span}")
        if stream_block is None:
            stream_block = INTERPRETER_STREAM_BLOCK if interpreting() else STREAM_BLOCK
        if stream_block < 16 or stream_block & (stream_block - 1):
            raise ValueError(f"stream_block must be a power of two >= 16, got {stream_block}")
        self.max_span = max_span
        self.stream_block = stream_block
        self.group = group

    def apply_items(self, profile: torch.Tensor, weights: Sequence[int], values) -> None:
        """In place, for each item in order: profile[c] = max(profile[c], profile[c - w] + v), c >= w.

        An item at least as heavy as the row is long changes nothing.
        """
        self._apply(profile, weights, values, None)

    def apply_items_recording(
        self, profile: torch.Tensor, weights: Sequence[int], values, decisions: torch.Tensor
    ) -> None:
        """As apply_items, and decisions[i, c] = whether taking item i was strictly better at c.

        ``decisions`` is knapcheck.solvers.dp.rows' layout: torch.bool, one row per item, one column per
        capacity; columns below an item's weight are left as they are.
        """
        if decisions.dim() != 2 or decisions.shape[0] < len(weights) or decisions.shape[1] < profile.numel():
            raise ValueError(
                f"decisions must be at least {len(weights)} x {profile.numel()}, got {tuple(decisions.shape)}"
            )
        if decisions.stride(1) != 1 or decisions.device != profile.device:
            raise ValueError("decisions must be row-contiguous and on the profile's device")
        self._apply(profile, weights, values, decisions)

    @staticmethod
    def best_split(left: torch.Tensor, right: torch.Tensor, lowest: int, highest: int, capacity: int) -> int:
        """The smallest c in [lowest, highest] maximizing left[c] + right[capacity - c], on the device.

        One reduction over the whole range and one number back to the host (torch.argmax returns
        the first of equal maxima, on CPU and CUDA alike).
        """
        sums = left[lowest : highest + 1] + right[capacity - highest : capacity - lowest + 1].flip(0)
        return lowest + int(torch.argmax(sums))

    @staticmethod
    def backtrack(decisions: torch.Tensor, weights: Sequence[int], capacity: int) -> list[int]:
        """The positions sliding_hirschberg's backtrack reads off a recorded table, found on the
        device: one launch and one list back to the host instead of a round trip per item."""
        count = len(weights)
        if count == 0:
            return []
        device = decisions.device
        weight_tensor = _on_device(torch.tensor(weights, dtype=torch.int32), device)
        prefix = _on_device(torch.tensor(weights, dtype=torch.int64).cumsum(0), device)
        taken = torch.empty(count, dtype=torch.bool, device=device)
        _backtrack_kernel[(1,)](decisions, decisions.stride(0), weight_tensor, prefix, taken, count, capacity, num_warps=1)
        return [k for k, take in enumerate(taken.tolist()) if take]

    def _apply(self, profile: torch.Tensor, weights: Sequence[int], values, decisions: torch.Tensor | None) -> None:
        items = self._items(profile, weights, values)
        if items is None:
            return
        length = profile.numel()
        if self.group:
            launches = plan_launches(items.weights, length, window_span(length, self.max_span))
        else:
            launches = [Launch(i, 1, None) for i in range(len(items.weights))]
        src, spare = profile, None
        for launch in launches:
            if self._in_place(length):
                self._launch(items, launch, src, src, decisions)
                continue
            if spare is None:
                spare = torch.empty_like(profile)
            self._launch(items, launch, src, spare, decisions)
            src, spare = spare, src
        if src is not profile:
            profile.copy_(src)

    def _items(self, profile: torch.Tensor, weights: Sequence[int], values) -> "_Items | None":
        """The items as device tensors, after checking the row and them; None when there are none."""
        if profile.dim() != 1 or not profile.is_contiguous():
            raise ValueError(f"profile must be a contiguous 1-D tensor, got shape {tuple(profile.shape)}")
        if profile.numel() >= MAX_LENGTH:
            raise ValueError(f"profile has {profile.numel()} cells; the kernels index rows of fewer than {MAX_LENGTH}")
        weights = [int(w) for w in weights]
        for i, w in enumerate(weights):
            if w < 1:
                raise ValueError(f"weights[{i}] = {w} must be at least 1")
        if not weights:
            return None
        value_tensor = _on_device(torch.as_tensor(values, dtype=profile.dtype), profile.device)
        if value_tensor.shape != (len(weights),):
            raise ValueError(f"values must hold {len(weights)} numbers, got shape {tuple(value_tensor.shape)}")
        return _Items(weights, _on_device(torch.tensor(weights, dtype=torch.int32), profile.device), value_tensor)

    def _in_place(self, length: int) -> bool:
        """Programs read cells that other programs write, so launches go from one buffer to the
        other; a row that fits one window is one program, which reads it all before writing."""
        return self.group and length <= window_span(length, self.max_span)

    def _launch(
        self, items: "_Items", launch: Launch, src: torch.Tensor, dst: torch.Tensor, decisions: torch.Tensor | None
    ) -> None:
        """One launch from src to dst (1-D views of equal length, the same one when ``_in_place``);
        decisions, if given, has one row per item and its columns aligned with src's cells. A row
        that fits one window takes the launch's items in one program, whatever their weights."""
        length = src.numel()
        record = decisions is not None
        table = decisions if record else items.weight_tensor  # never written when RECORD is off
        stride = decisions.stride(0) if decisions is not None else 0
        span = window_span(length, self.max_span)
        if self._in_place(length):
            _group_kernel[(1,)](
                src, dst, items.weight_tensor, items.value_tensor, table, stride, launch.first, launch.count,
                length, 0, SPAN=span, RECORD=record, num_warps=_warps(span),
            )
        elif launch.halo is None:
            _stream_kernel[(triton.cdiv(length, self.stream_block),)](
                src, dst, items.weight_tensor, items.value_tensor, table, stride, launch.first, length,
                BLOCK=self.stream_block, RECORD=record, num_warps=4,
            )
        else:
            _group_kernel[(triton.cdiv(length, span - launch.halo),)](
                src, dst, items.weight_tensor, items.value_tensor, table, stride, launch.first, launch.count,
                length, launch.halo, SPAN=span, RECORD=record, num_warps=_warps(span),
            )


@dataclass(frozen=True)
class _Items:
    weights: list[int]
    weight_tensor: torch.Tensor
    value_tensor: torch.Tensor


def _on_device(tensor: torch.Tensor, device: torch.device) -> torch.Tensor:
    """The tensor on the device; to a GPU from pinned memory, so the host does not wait for the copy."""
    if device.type != "cuda":
        return tensor.to(device)
    return tensor.pin_memory().to(device, non_blocking=True)


def _warps(span: int) -> int:
    return max(4, min(16, span // 512))


class TritonPasses(TritonRows):
    """TritonRows that also runs sliding_hirschberg's whole forward passes.

    sliding_hirschberg's own pass hands the backend one window per group of items, and each call
    must leave its result in the profile: a copy back whenever a call ends in the spare row. Here
    the pass keeps the two rows for itself: each launch (items grouped by the kernels' halo limit)
    works on the window its items need, from one row to the other, and only the cells the caller
    reads are copied back, once.
    """

    def forward(
        self,
        profile: torch.Tensor,
        weights: Sequence[int],
        values,
        capacity: int,
        low: int,
        decisions: torch.Tensor | None = None,
    ) -> None:
        """Fill profile[low .. capacity] with the items' best values, as sliding_hirschberg's pass.

        Item k needs cells [max(0, low - w_k - weight after k), min(capacity, weight up to k)]:
        below, nothing reaches ``low``; above, everything fits and the cell holds the values' sum.
        A launch works on the union of its items' windows; cells above the previous launch's
        window are filled with the sum of the values so far first. Decisions are recorded in
        every item's window, where the backtrack reads them.
        """
        row = profile[: capacity + 1]
        items = self._items(row, weights, values)
        if items is None:
            row.zero_()
            return
        begins, tops = _windows(items.weights, capacity, low)
        if self.group:
            launches = plan_launches(items.weights, capacity + 1, window_span(capacity + 1, self.max_span))
        else:
            launches = [Launch(i, 1, None) for i in range(len(items.weights))]
        src, spare = row, None
        row[0] = 0
        frontier, reached = 0, 0
        for launch in launches:
            stop = launch.first + launch.count
            begin, top = begins[launch.first], tops[stop - 1]
            if top > frontier:
                src[frontier + 1 : top + 1].fill_(reached)
                frontier = top
            for v in values[launch.first : stop]:
                reached = reached + v
            window = slice(begin, top + 1)
            table = None if decisions is None else decisions[:, window]
            if self._in_place(top + 1 - begin):
                self._launch(items, launch, src[window], src[window], table)
                continue
            if spare is None:
                spare = torch.empty_like(row)
            self._launch(items, launch, src[window], spare[window], table)
            src, spare = spare, src
        if frontier < capacity:
            src[frontier + 1 :].fill_(reached)
        if src is not row:
            row[low:].copy_(src[low:])


def _windows(weights: list[int], capacity: int, low: int) -> tuple[list[int], list[int]]:
    """Per item, the first and last cell its update needs (see TritonPasses.forward); both grow."""
    begins, tops = [], []
    to_come, so_far = sum(weights), 0
    for w in weights:
        to_come -= w
        so_far += w
        begins.append(max(0, low - to_come - w))
        tops.append(min(capacity, so_far))
    return begins, tops
