"""Harvesting knapsack instances from real torch.compile runs of the built-in models.

Each model is compiled afresh at each memory budget with ``aot_eager_decomp_partition``, torch's
backend that runs inductor's decompositions and the min-cut partitioner without generating code (so
it needs no C++ compiler and takes seconds). torch's own ``dp_knapsack`` still solves every problem,
so the compile goes as it would; ``use_solver`` records each (memory, runtimes, max_memory) it is
handed on the way.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

from ...solvers.contract import Instance
from ...solvers.torch_plugin import use_solver
from ..corpus.harvest_records import Harvested
from .models import build

BACKEND = "aot_eager_decomp_partition"
RECORDING_SOLVER = "torch:dp_knapsack"
"""What actually solves the problems while harvesting: the partitioner's default solver."""


def check_budgets(budgets: Sequence[float]) -> list[float]:
    checked = []
    for i, budget in enumerate(budgets):
        if isinstance(budget, bool) or not isinstance(budget, (int, float)) or not math.isfinite(budget):
            raise ValueError(f"budgets[{i}] must be a finite number, got {budget!r}")
        if not 0 <= budget <= 1:
            raise ValueError(f"budgets[{i}] must lie in [0, 1] (a fraction of the activation memory), got {budget!r}")
        checked.append(float(budget))
    return checked


def harvest(
    model: str, budgets: Sequence[float], progress: Callable[[str], None] = lambda message: None
) -> list[Harvested]:
    """Compile ``model`` once per budget; every knapsack the partitioner solves, with provenance.

    A budget may yield none: at 1.0, or when a cheaper min-cut already fits, no knapsack is solved.
    """
    import torch

    records: list[Harvested] = []
    for budget in check_budgets(budgets):
        torch._dynamo.reset()
        module, inputs = build(model)
        with use_solver(RECORDING_SOLVER, memory_budget=budget) as calls:
            torch.compile(module, backend=BACKEND)(*inputs)
        torch._dynamo.reset()
        for index, call in enumerate(calls):
            instance = Instance(call.memory, call.runtimes, call.max_memory)
            records.append(Harvested(instance, model, budget, index, torch.__version__, BACKEND))
        progress(f"{model} at budget {budget}: {len(calls)} knapsack problem(s), n = {[len(c.memory) for c in calls]}")
    return records
