"""The traits of an instance that a solver's defect can hinge on, named once.

Two rules read them: the known-defect catalogue (``knapcheck.fuzz.judging.known.defects``: the instances
a defect with a trait reaches) and, without a baseline, the match of a failure with a corpus case
(``knapcheck.fuzz.judging.known.known``: the same solver, verdict and ``matched_traits``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from ....solvers.contract import SCALE, Instance
from .float32_exact import float32_exact

GRID_TOLERANCE = 1e-6
"""How far memory * SCALE may be from an integer and still lie on the quantization grid (float error)."""
BLOCK_UNITS = 4096


@dataclass(frozen=True)
class Trait:
    name: str
    holds: Callable[[Instance], bool]

    def __call__(self, instance: Instance) -> bool:
        return self.holds(instance)

    def __str__(self) -> str:
        return self.name


def off_grid(value: float) -> bool:
    """Whether memory (or a budget) lies off the quantization grid: not a whole number of 1/SCALE."""
    scaled = value * SCALE
    return math.isfinite(scaled) and abs(scaled - round(scaled)) > GRID_TOLERANCE


def zero_weight_negative(instance: Instance) -> list[bool]:
    """Each item: whether its quantized weight is zero and its runtime negative."""
    weights, _ = instance.quantized()
    return [w == 0 and r < 0 for w, r in zip(weights, instance.runtimes)]


EMPTY = Trait("empty problem", lambda instance: instance.n == 0)
ZERO_WEIGHT = Trait("zero-weight item", lambda instance: 0 in instance.quantized()[0])
ZERO_MEMORY = Trait("an item of memory 0", lambda instance: 0.0 in instance.memory)
NEGATIVE_RUNTIME = Trait("negative runtime", lambda instance: any(r < 0 for r in instance.runtimes))
ZERO_WEIGHT_NEGATIVE_RUNTIME = Trait("an item of zero quantized weight and negative runtime",
                                     lambda instance: any(zero_weight_negative(instance)))
OFF_GRID = Trait("memory off the quantization grid",
                 lambda instance: any(off_grid(m) for m in (*instance.memory, instance.max_memory)))
BEYOND_FLOAT32 = Trait("runtimes float32 cannot add exactly", lambda instance: not float32_exact(instance.runtimes))
LARGE_CAPACITY = Trait("capacity above 4 096 units", lambda instance: instance.quantized()[1] > BLOCK_UNITS)

MATCHED = (EMPTY, ZERO_WEIGHT, NEGATIVE_RUNTIME, OFF_GRID, BEYOND_FLOAT32, LARGE_CAPACITY)
"""The traits a failure without a baseline is matched on: minimal reproductions of one defect share
them, and the corpus's cases of different causes of one (solver, verdict) differ in them."""


def matched_traits(instance: Instance) -> frozenset[Trait]:
    """The ``MATCHED`` traits the instance has."""
    return frozenset(trait for trait in MATCHED if trait(instance))
