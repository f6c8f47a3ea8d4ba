"""How much of each instance family the bound test decides before the DP: ``python studies/bound_coverage.py``.

For every family (the instances ``knapcheck check`` draws: 40 per family, seed 0) and every bench
row, it counts the items the DP would otherwise get (weight within the budget, runtime > 0) and
those ``knapcheck.solvers.bound_fixing`` leaves undecided. The fewer left, the more the bound test, rather
than the DP, explains ``sliding_hirschberg``'s speed on that kind of instance.
"""

from __future__ import annotations

from typing import Iterable

from knapcheck.fuzz.instances import families
from knapcheck.fuzz.instances.strategies import sample
from knapcheck.measure.bench import ROWS, instance_for
from knapcheck.solvers.bound_fixing import decide_by_bounds, dp_candidates
from knapcheck.solvers.contract import Instance, quantize


def left_to_the_dp(instances: Iterable[Instance]) -> tuple[int, int]:
    """(candidate items, items the bound test leaves undecided), summed over the instances."""
    candidates = undecided = 0
    for instance in instances:
        weights, capacity = quantize(instance.memory, instance.max_memory)
        order = dp_candidates(weights, instance.runtimes, capacity)
        if not order:
            continue
        _, left = decide_by_bounds(weights, instance.runtimes, order, capacity)
        candidates += len(order)
        undecided += len(left)
    return candidates, undecided


def coverage_table(per_family: int = 40) -> str:
    lines = ["| instances | candidate items | left to the DP | share left |", "|---|---:|---:|---:|"]
    groups = [(f"family {name}", sample(families.strategy(name), per_family)) for name in families.names()]
    groups += [(f"bench row {row.name}", [instance_for(row)]) for row in ROWS]
    for label, instances in groups:
        candidates, undecided = left_to_the_dp(instances)
        share = f"{undecided / candidates:.0%}" if candidates else "-"
        lines.append(f"| {label} | {candidates} | {undecided} | {share} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(coverage_table())
