"""GPU benchmark of the Triton row kernels: cell updates per second against the bandwidth limit.

A one-item-per-launch kernel must at least read and write every cell of the row once per item, so
on a given GPU it can update at most ``copy_bandwidth / (2 * itemsize)`` cells per second, where
``copy_bandwidth`` is what a plain device-to-device copy achieves (bytes read + bytes written per
second), measured in the same run. The group kernel applies several items per pass over the row,
so it can beat that limit; this benchmark measures by how much, side by side with the one-item
streaming kernel on the same rows.

``knapcheck bench --device cuda`` adds to its table (the cuda solver and its DP-only variant in
fresh processes on the bench matrix, plus ``knapcheck.measure.bench.CUDA_ROWS``) each one's rate in table
cells per second — n * (C + 1) over the median time, the cells a full-table DP would update (the
DP-only variant updates more, its split levels included; the bound test leaves the default
solver's DP far fewer) — and that rate as a fraction of the one-item limit, then
``kernel_table`` and ``variant_table``.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ..solvers.dp.triton_rows import TritonRows
from .bench import BenchResult, BenchRow, instance_for


@dataclass(frozen=True)
class KernelRow:
    """One benchmark row: ``n`` items with weights drawn from 1 .. max_weight on a row of C + 1 cells."""

    name: str
    n: int
    capacity: int
    max_weight: int


KERNEL_ROWS = [
    KernelRow("light items, C=1e7", 2000, 10**7, 64),
    KernelRow("light items, C=1e8", 2000, 10**8, 64),
    KernelRow("mixed items, C=1e7", 2000, 10**7, 8192),
    KernelRow("heavy items, C=1e7", 2000, 10**7, 10**5),
    KernelRow("partitioner scale, C=1e4", 2000, 10**4, 50),
    KernelRow("partitioner scale, C=5e3", 500, 5000, 100),
]


@dataclass(frozen=True)
class KernelMeasurement:
    row: KernelRow
    cells: int
    grouped_seconds: float
    streamed_seconds: float

    @property
    def grouped_rate(self) -> float:
        return self.cells / self.grouped_seconds

    @property
    def streamed_rate(self) -> float:
        return self.cells / self.streamed_seconds


def copy_bandwidth(numel: int = 2**27, repeats: int = 5) -> float:
    """Bytes moved per second (read + written) by the best of a few int64 device-to-device copies."""
    src = torch.ones(numel, dtype=torch.int64, device="cuda")
    dst = torch.empty_like(src)
    dst.copy_(src)
    best = min(_seconds(lambda: dst.copy_(src)) for _ in range(repeats))
    return 2 * src.numel() * src.element_size() / best


def one_item_limit(bandwidth: float, dtype: torch.dtype = torch.int64) -> float:
    """Most cell updates per second any one-item-per-launch kernel can reach: one read, one write a cell."""
    return bandwidth / (2 * torch.empty((), dtype=dtype).element_size())


def measure_kernels(row: KernelRow, repeats: int = 3, max_span: int | None = None) -> KernelMeasurement:
    """Best-of-repeats time of the grouped kernels and the one-item streaming kernel on one row."""
    g = torch.Generator().manual_seed(row.n * 31 + row.capacity)
    weights = torch.randint(1, min(row.max_weight, row.capacity) + 1, (row.n,), generator=g).tolist()
    values = torch.randint(1, 10**9, (row.n,), generator=g, dtype=torch.int64).tolist()
    cells = sum(row.capacity + 1 - w for w in weights)
    grouped = TritonRows() if max_span is None else TritonRows(max_span=max_span)
    streamed = TritonRows(group=False)
    profile = torch.zeros(row.capacity + 1, dtype=torch.int64, device="cuda")

    def run(rows: TritonRows) -> float:
        profile.zero_()
        return _seconds(lambda: rows.apply_items(profile, weights, values))

    run(grouped)  # the first runs compile the kernels
    run(streamed)
    return KernelMeasurement(
        row,
        cells,
        min(run(grouped) for _ in range(repeats)),
        min(run(streamed) for _ in range(repeats)),
    )


def kernel_table(rows: list[KernelRow] = KERNEL_ROWS, repeats: int = 3, max_span: int | None = None) -> str:
    """The benchmark as a Markdown table, or why it cannot run here."""
    if not torch.cuda.is_available():
        return "no CUDA device: the GPU kernel rows are skipped (the kernels' correctness runs in the interpreter tests)"
    bandwidth = copy_bandwidth()
    limit = one_item_limit(bandwidth)
    lines = [
        f"GPU: {torch.cuda.get_device_name()}; device copy {bandwidth / 1e9:,.0f} GB/s, "
        f"so one item per launch reaches at most {limit / 1e9:,.1f} G cell updates/s (int64)",
        "",
        "| row | n | C | max weight | grouped G cells/s | x limit | one-item G cells/s | x limit | grouped / one-item |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        m = measure_kernels(row, repeats, max_span)
        lines.append(
            f"| {row.name} | {row.n} | {row.capacity:,} | {row.max_weight:,} | {m.grouped_rate / 1e9:,.1f} | "
            f"{m.grouped_rate / limit:.2f} | {m.streamed_rate / 1e9:,.1f} | {m.streamed_rate / limit:.2f} | "
            f"{m.streamed_seconds / m.grouped_seconds:.2f} |"
        )
    return "\n".join(lines)


def span_table(row: KernelRow = KERNEL_ROWS[0], spans: tuple[int, ...] = (2048, 4096, 8192, 16384)) -> str:
    """The grouped kernel on one row at several window sizes: the data for choosing MAX_SPAN."""
    if not torch.cuda.is_available():
        return "no CUDA device: the window-size rows are skipped"
    lines = [f"Window sizes on: {row.name}", "", "| span | grouped G cells/s | grouped / one-item |", "| ---: | ---: | ---: |"]
    for span in spans:
        m = measure_kernels(row, max_span=span)
        lines.append(f"| {span} | {m.grouped_rate / 1e9:,.1f} | {m.streamed_seconds / m.grouped_seconds:.2f} |")
    return "\n".join(lines)


def rate_table(result: BenchResult, bandwidth: float, solvers: list[str]) -> str:
    """Each of these GPU solvers' table cells per second on each row, and its fraction of the
    one-item limit (a DP's rate: for a solver with the bound test on, the cells its DP skipped count too)."""
    limit = one_item_limit(bandwidth)
    lines = [
        f"Device copy {bandwidth / 1e9:,.0f} GB/s: one item per launch updates at most {limit / 1e9:,.1f} G cells/s "
        "(int64). Table cells/s = n (C + 1) / median time.",
        "",
        "| row | n | C | solver | table G cells/s | x one-item limit |",
        "| --- | ---: | ---: | --- | ---: | ---: |",
    ]
    for row in result.rows:
        for solver in solvers:
            cell = result.cell(solver, row)
            if not cell.ran:
                lines.append(f"| {row.name} | {row.n} | {row.capacity:,} | {solver} | {cell.failure} | - |")
                continue
            rate = row.n * (row.capacity + 1) / cell.median_seconds
            lines.append(
                f"| {row.name} | {row.n} | {row.capacity:,} | {solver} | {rate / 1e9:,.2f} | {rate / limit:.2f} |"
            )
    return "\n".join(lines)


def variant_table(rows: list[BenchRow], repeats: int = 2) -> str:
    """The backend's own forward passes against sliding_hirschberg's per-group calls, warm, in this
    process, with the bound test off (all the work is the DP's): which backend the cuda solver
    should use on this GPU."""
    from ..solvers.cuda_solver import cuda_knapsack

    if not torch.cuda.is_available():
        return "no CUDA device: the solver variant rows are skipped"
    lines = [
        "| row | backend's own passes s | sliding_hirschberg's per-group calls s | per-group / own |",
        "| --- | ---: | ---: | ---: |",
    ]
    for row in rows:
        instance = instance_for(row)
        args = (list(instance.memory), list(instance.runtimes), instance.max_memory)
        seconds = {}
        for own in (True, False):
            cuda_knapsack(*args, own_passes=own, fix_by_bounds=False)  # compiles, allocates
            seconds[own] = min(
                _seconds(lambda: cuda_knapsack(*args, own_passes=own, fix_by_bounds=False)) for _ in range(repeats)
            )
        lines.append(f"| {row.name} | {seconds[True]:.3f} | {seconds[False]:.3f} | {seconds[False] / seconds[True]:.2f} |")
    return "\n".join(lines)


def _seconds(action) -> float:
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    start.record()
    action()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / 1000
