"""GPU benchmark of the Triton row kernels: cell updates per second against the bandwidth limit.

A one-item-per-launch kernel must at least read and write every cell of the row once per item, so
on a given GPU it can update at most ``copy_bandwidth / (2 * itemsize)`` cells per second, where
``copy_bandwidth`` is what a plain device-to-device copy achieves (bytes read + bytes written per
second), measured in the same run. The group kernel applies several items per pass over the row,
so it can beat that limit; this benchmark measures by how much, side by side with the one-item
streaming kernel on the same rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from solvers.triton_rows import TritonRows


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
    options = {} if max_span is None else {"max_span": max_span}
    grouped, streamed = TritonRows(**options), TritonRows(group=False)
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


def _seconds(action) -> float:
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    start.record()
    action()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / 1000
