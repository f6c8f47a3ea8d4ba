"""An instance's metamorphic images, each with its optimum derived from the instance's.

The oracle proves one instance; four more follow from it without another oracle call, exactly:

- ``reversed``: the items in the opposite order; the same optimum, the witness's indices mapped.
- ``heavier item added``: one more item, heavier than twice the budget, worth the most runtime
  of any item; the same optimum (no feasible set can hold it).
- ``free item added``: one more item of no memory, worth the largest positive runtime (1 if none
  is positive); the optimum gains exactly that runtime, and every optimal selection saves it.
- ``runtimes tripled``: every runtime times 3, where all are integers whose tripled total stays
  below 2**53 (so each product and every sum is exact); the optimum tripled, the same witness.

Each image is a knapsack instance of its own, judged like any other: a solver that depends on the
order of the items, mishandles an item it cannot take, or loses precision as values grow fails on
it, and the campaign reports it with the image as its instance. Nothing here calls a solver.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Callable

from ....oracles.result import OracleResult
from ....solvers.contract import Instance

EXACT_INTEGERS = 2**53
RUNTIME_FACTOR = 3


@dataclass(frozen=True)
class Image:
    instance: Instance
    optimum_from: Callable[[OracleResult], OracleResult]
    """The image's optimum, given the oracle's answer on the instance it was made from."""


def images(instance: Instance) -> list[Image]:
    """The images of ``instance`` that differ from it."""
    found = [_reversed(instance), _heavier_item_added(instance), _free_item_added(instance), _runtimes_tripled(instance)]
    return [image for image in found if image is not None and image.instance != instance]


def _reversed(instance: Instance) -> Image | None:
    if instance.n < 2:
        return None
    last = instance.n - 1
    image = Instance(instance.memory[::-1], instance.runtimes[::-1], instance.max_memory)
    return Image(image, lambda oracle: replace(oracle, saved=tuple(sorted(last - i for i in oracle.saved))))


def _heavier_item_added(instance: Instance) -> Image | None:
    memory = 2 * instance.max_memory + 1
    if not math.isfinite(memory):
        return None
    image = Instance((*instance.memory, memory), (*instance.runtimes, max(instance.runtimes, default=1.0)),
                     instance.max_memory)
    return Image(image, lambda oracle: oracle)


def _free_item_added(instance: Instance) -> Image | None:
    runtime = max((r for r in instance.runtimes if r > 0), default=1.0)
    image = Instance((*instance.memory, 0.0), (*instance.runtimes, runtime), instance.max_memory)
    added = instance.n
    return Image(image, lambda oracle: replace(oracle, value=oracle.value + Fraction(runtime),
                                               saved=(*oracle.saved, added)))


def _runtimes_tripled(instance: Instance) -> Image | None:
    runtimes = instance.runtimes
    if not runtimes or not all(r == int(r) for r in runtimes):
        return None
    if RUNTIME_FACTOR * sum(abs(int(r)) for r in runtimes) >= EXACT_INTEGERS:
        return None
    image = Instance(instance.memory, tuple(RUNTIME_FACTOR * r for r in runtimes), instance.max_memory)
    return Image(image, lambda oracle: replace(oracle, value=oracle.value * RUNTIME_FACTOR,
                                               slack=oracle.slack * RUNTIME_FACTOR))
