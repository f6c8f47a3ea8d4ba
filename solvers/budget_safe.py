"""``budget_safe``: an exact solver whose saved items' real memory never exceeds max_memory.

Upstream rounds each memory to the nearest unit, so the quantized optimum can save items whose
real (unquantized) memory sums to more than the budget: every item below half a unit weighs 0.
This solver solves, exactly, the problem with weights rounded up and the capacity rounded down
(``knapcheck.solvers.contract.quantize_budget_safe``): every set feasible there fits the real budget. It is
``sliding_hirschberg`` on that integer problem, with its validation, bound test and memory.
"""

from __future__ import annotations

from typing import Sequence

from .contract import SAFE_SCALE, Solution, quantize_budget_safe
from .sliding_hirschberg import sliding_hirschberg


def budget_safe(memory: Sequence[float], runtimes: Sequence[float], max_memory: float) -> Solution:
    return sliding_hirschberg(memory, runtimes, max_memory, scale=SAFE_SCALE, quantization=quantize_budget_safe)
