"""An instance's metamorphic images, each with its optimum derived from the instance's.

The oracle proves one instance; three more follow from it without another oracle call, exactly:

- ``reversed``: the items in the opposite order; the same optimum, the witness's indices mapped.
- ``heavier item added``: one more item, heavier than twice the budget, worth the most runtime
  of any item; the same optimum (no feasible set can hold it).
- ``runtimes tripled``: every runtime times 3, where all are integers whose tripled total stays
  below 2**53 (so each product and every sum is exact); the optimum tripled, the same witness.

Each image is a knapsack instance of its own, judged like any other: a solver that depends on the
order of the items, mishandles an item it cannot take, or loses precision as values grow fails on
it, and the campaign reports it with the image as its instance. Nothing here calls a solver.
"""

from __future__ import annotations

import math
from dataclasses import replace

from knapcheck.oracles.result import OracleResult
from knapcheck.solvers.contract import Instance

EXACT_INTEGERS = 2**53
RUNTIME_FACTOR = 3


def images(instance: Instance, oracle: OracleResult) -> list[tuple[Instance, OracleResult]]:
    """The images of ``instance`` that differ from it, each with the optimum ``oracle`` implies."""
    found = [_reversed(instance, oracle), _heavier_item_added(instance, oracle), _runtimes_tripled(instance, oracle)]
    return [image for image in found if image is not None and image[0] != instance]


def _reversed(instance: Instance, oracle: OracleResult) -> tuple[Instance, OracleResult] | None:
    if instance.n < 2:
        return None
    last = instance.n - 1
    image = Instance(instance.memory[::-1], instance.runtimes[::-1], instance.max_memory)
    return image, replace(oracle, saved=tuple(sorted(last - i for i in oracle.saved)))


def _heavier_item_added(instance: Instance, oracle: OracleResult) -> tuple[Instance, OracleResult] | None:
    memory = 2 * instance.max_memory + 1
    runtime = max(instance.runtimes, default=1.0)
    if not math.isfinite(memory):
        return None
    image = Instance((*instance.memory, memory), (*instance.runtimes, runtime), instance.max_memory)
    return image, oracle


def _runtimes_tripled(instance: Instance, oracle: OracleResult) -> tuple[Instance, OracleResult] | None:
    runtimes = instance.runtimes
    if not runtimes or not all(r == int(r) for r in runtimes):
        return None
    if RUNTIME_FACTOR * sum(abs(int(r)) for r in runtimes) >= EXACT_INTEGERS:
        return None
    image = Instance(instance.memory, tuple(RUNTIME_FACTOR * r for r in runtimes), instance.max_memory)
    return image, replace(oracle, value=oracle.value * RUNTIME_FACTOR, slack=oracle.slack * RUNTIME_FACTOR)

