"""Making torch.compile's min-cut partitioner use one of our solvers (or any contract callable).

    import torch
    from knapcheck.solvers.torch_plugin import use_solver

    compiled = torch.compile(model)
    with use_solver("full_table", memory_budget=0.5) as calls:
        loss = compiled(x).sum()      # the first call compiles: the partitioner runs here
    loss.backward()
    print(len(calls), "knapsack problems solved by full_table")

Why a swap rather than torch's public hook: torch lets ``activation_memory_budget_solver`` be a
``CustomKnapsackSolver``, but that hook is handed no runtimes, and the partitioner calls it under
``no_dispatch()``, where ``estimate_runtime``'s FLOP counter sees nothing and every runtime comes out
as 1. Our solvers need the runtimes the partitioner estimated, which only its ``"dp"`` path passes
on: ``dp_knapsack(memory, runtimes, max_memory)``, our contract's signature. So for the duration of
the block this selects ``"dp"`` and points the partitioner's ``dp_knapsack`` at the chosen solver.

Good to know:
- Compilation is lazy: the block must enclose the call that compiles (the first call of a compiled
  model, or the first with new shapes). Code compiled before the block keeps its old partition.
- AOTAutograd's cache is switched off inside the block: its key does not see the swap, so a cache
  hit would skip our solver, or a plain compile later would reuse our partition.
- The swap patches a module global of the running process: do not compile in other threads
  meanwhile. Blocks nest; each restores what it found.
"""

from __future__ import annotations

import importlib
import math
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator, Sequence

from .contract import Solver
from .registry import get

PARTITIONER_MODULE = "torch._functorch.partitioners"
SWAPPED_NAME = "dp_knapsack"
"""The name the partitioner's ``"dp"`` solver option calls, looked up at call time."""


@dataclass(frozen=True)
class SolverCall:
    """One knapsack problem exactly as the partitioner handed it to its solver, and what it saved."""

    memory: tuple[float, ...]
    """Each candidate's size as the partitioner accounts it (a fraction of the activation memory)."""
    runtimes: tuple[float, ...]
    max_memory: float
    saved: tuple[int, ...]
    """The items the solver chose to save."""


@contextmanager
def use_solver(solver: str | Solver, *, memory_budget: float | None = None) -> Iterator[list[SolverCall]]:
    """Make torch.compile's partitioner call ``solver`` inside the block; yield the calls it gets.

    ``solver`` is a registered name or spec (``full_table``, ``torch:dp_knapsack``, ...) or any
    callable with the contract's signature. ``memory_budget``, when given, also sets
    ``torch._functorch.config.activation_memory_budget`` for the block (below 1.0 the partitioner
    solves a knapsack; at 1.0, torch's default, it never does).
    """
    from torch._functorch import config as functorch_config

    chosen = get(solver) if isinstance(solver, str) else solver
    if not callable(chosen):
        raise ValueError(f"solver must be a registered name or a callable, got {type(solver).__name__}")
    if memory_budget is not None and (
        isinstance(memory_budget, bool)
        or not isinstance(memory_budget, (int, float))
        or not 0 <= memory_budget < math.inf
    ):
        raise ValueError(f"memory_budget must be a finite number >= 0, got {memory_budget!r}")
    partitioner = importlib.import_module(PARTITIONER_MODULE)
    if not callable(getattr(partitioner, SWAPPED_NAME, None)):
        raise RuntimeError(f"this torch's {PARTITIONER_MODULE} has no {SWAPPED_NAME} to swap")

    calls: list[SolverCall] = []

    def recorded(memory: Sequence[float], runtimes: Sequence[float], max_memory: float):
        answer = chosen(memory, runtimes, max_memory)
        calls.append(SolverCall(tuple(memory), tuple(runtimes), max_memory, tuple(answer[1])))
        return answer

    settings = {"activation_memory_budget_solver": "dp", "enable_autograd_cache": False}
    if memory_budget is not None:
        settings["activation_memory_budget"] = memory_budget
    previous = getattr(partitioner, SWAPPED_NAME)
    setattr(partitioner, SWAPPED_NAME, recorded)
    try:
        with functorch_config.patch(settings):
            yield calls
    finally:
        setattr(partitioner, SWAPPED_NAME, previous)
