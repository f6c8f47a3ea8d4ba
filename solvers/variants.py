"""Our solvers with one feature switched off, for ``knapcheck bench`` to show what the feature buys.

They are ``module:NAME`` specs, not registered solvers: every check already runs the code paths
they take (tests/test_sliding_hirschberg.py and tests/test_cuda_solver.py cover the DP with the
bound test off). ``knapcheck bench`` measures the DP-only variant of its device by default.
"""

from __future__ import annotations

from typing import Sequence

from .contract import Solution

DP_ONLY = {
    "cpu": "knapcheck.solvers.variants:sliding_hirschberg_dp_only",
    "cuda": "knapcheck.solvers.variants:cuda_dp_only",
}
"""Per device, the spec of our solver without the bound test."""


def sliding_hirschberg_dp_only(memory: Sequence[float], runtimes: Sequence[float], max_memory: float) -> Solution:
    """sliding_hirschberg without the bound test: the DP solves every item."""
    from .sliding_hirschberg import sliding_hirschberg

    return sliding_hirschberg(memory, runtimes, max_memory, fix_by_bounds=False)


def cuda_dp_only(memory: Sequence[float], runtimes: Sequence[float], max_memory: float) -> Solution:
    """The cuda solver without the bound test: its kernels solve every item."""
    from .cuda_solver import cuda_knapsack

    return cuda_knapsack(memory, runtimes, max_memory, fix_by_bounds=False)
