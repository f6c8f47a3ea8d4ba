"""The rows of the performance gate that grow in n: what a solver costs per item, every solver alike.

A step quadratic in n (an ``i not in some_list`` while building the answer) costs nothing at a
few hundred items and shows at a few thousand, so the gate measures each solver at two sizes, a few
hundred items and 2 000, and compares the candidate's ratio at each. For the ratio to show what
grows with n, the rest must not hide it: the capacity stays small (a DP's table is n * (C + 1)
cells, and a large C would make every per-item step look cheap), and HiGHS must not search (on a
random knapsack of 1 000 to 2 000 items ``ilp_knapsack`` took 0.5 to 19 s a call, on this one a few
milliseconds). So half the items are heavier than the whole budget on their own and the other half
fit together: the LP relaxation is integral once the heavy ones are fixed out, every solver still
reads, sorts or tabulates all n items, and the answer has both halves, saved and recomputable, so
that building either is measured.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..solvers.contract import SCALE, Instance

LIGHT_SHARE = 0.95
"""The light items' memories sum to this share of the budget: they all fit, with room to spare for
rounding (quantized, they may sum to a few units more than their real total)."""


@dataclass(frozen=True)
class SizeRow:
    """``n`` items, half of them (chosen at random) each heavier than the budget of ``capacity``
    quantized units, the rest fitting together; runtimes are integers drawn log-uniformly from 1e6 to
    1e12 (FLOP counts), as in ``knapcheck.measure.bench.BenchRow``."""

    name: str
    n: int
    capacity: int
    seed: int = 0

    rounds = 1
    grows_in = "n"

    @property
    def max_memory(self) -> float:
        return self.capacity / SCALE

    def instances(self) -> list[Instance]:
        rng = random.Random(f"size-row:{self.seed}:{self.n}:{self.capacity}")
        heavy = set(rng.sample(range(self.n), self.n // 2))
        raw = [rng.random() for _ in range(self.n)]
        light_total = sum(raw[i] for i in range(self.n) if i not in heavy) or 1.0
        budget = self.max_memory
        memory = tuple(budget * (1.0 + raw[i]) if i in heavy else LIGHT_SHARE * budget * raw[i] / light_total
                       for i in range(self.n))
        runtimes = tuple(float(round(10 ** rng.uniform(6, 12))) for _ in range(self.n))
        return [Instance(memory, runtimes, budget)]
