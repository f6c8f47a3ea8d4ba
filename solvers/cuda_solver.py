"""The CUDA solver: sliding_hirschberg with its row updates and splits in Triton kernels on the GPU.

Without a GPU it runs the same kernels in Triton's interpreter on CPU tensors (see
knapcheck.solvers.dp.triton_rows), so CI checks the code a GPU runs, only slowly. Profiles, decision tables,
split reductions and backtracks stay on the device; the host gets one number per split and one
list per recorded table.
"""

from __future__ import annotations

from typing import Sequence

from .contract import SCALE, Solution
from .dp.triton_rows import MAX_SPAN, TritonPasses, TritonRows, kernel_device
from .sliding_hirschberg import sliding_hirschberg

DEVICE_DECISION_BYTES = 2**30
"""Default decision-table allowance on the device, where memory is plentiful and every launch and
host round trip costs more than on the CPU: at partitioner scale (n <= 2000, C <= 10 000) the whole
problem is then one recorded pass, with no split at all."""


def cuda_knapsack(
    memory: Sequence[float],
    runtimes: Sequence[float],
    max_memory: float,
    *,
    max_decision_bytes: int | None = None,
    scale: int = SCALE,
    max_span: int = MAX_SPAN,
    own_passes: bool = True,
    fix_by_bounds: bool = True,
) -> Solution:
    """Exact; on exact instances the same saved set as sliding_hirschberg given the same
    ``max_decision_bytes`` (same ties, same arithmetic; among equal optima a split and a recorded
    pass may choose differently, so the defaults' differing allowances may too).

    ``max_decision_bytes`` defaults to DEVICE_DECISION_BYTES; ``fix_by_bounds`` is sliding_hirschberg's.

    ``own_passes``: the backend runs each forward pass itself, keeping both rows between its
    launches (``TritonPasses``); False leaves the pass to sliding_hirschberg, which calls the
    backend once per group of items (``TritonRows``).
    """
    backend = TritonPasses if own_passes else TritonRows
    return sliding_hirschberg(
        memory,
        runtimes,
        max_memory,
        device=kernel_device(),
        max_decision_bytes=DEVICE_DECISION_BYTES if max_decision_bytes is None else max_decision_bytes,
        scale=scale,
        backend=backend(max_span=max_span),
        fix_by_bounds=fix_by_bounds,
    )
