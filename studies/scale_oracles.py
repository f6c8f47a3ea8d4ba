"""How long the oracle takes to prove the optima of the shapes at scale and of the boundary
instances: ``python studies/scale_oracles.py [COUNT]``.

For each of the families ``huge_capacity``, ``many_items``, ``runtime_span`` (COUNT draws, default
200, seed 3: other instances than the 40 of seed 0 that ``check`` and ``report`` take) and for the
whole of ``scale_extremes``, it proves every optimum with ``knapcheck.oracles.optimum`` and prints
the oracle it used, the median and the slowest time, and how many it could not prove. Then, for
every instance of the boundary families (``knapcheck.fuzz.instances.limits``), one row: the limit,
n, C, the heaviest weight, the oracle, whether it proved the optimum, and its time.
"""

from __future__ import annotations

import sys
import time
from collections import Counter

from knapcheck.fuzz.instances import families, limits
from knapcheck.oracles.optimum import optimum

FAMILIES = ("huge_capacity", "many_items", "runtime_span", "scale_extremes")


def main(count: int) -> None:
    print("| family | instances | largest n | largest C | oracles | median | slowest | unproven |")
    print("|---|---|---|---|---|---|---|---|")
    for name in FAMILIES:
        instances = families.get(name).draw(count, 3)
        seconds: list[float] = []
        used: Counter[str] = Counter()
        unproven = 0
        for instance in instances:
            start = time.perf_counter()
            found = optimum(instance)
            seconds.append(time.perf_counter() - start)
            used[found.name] += 1
            unproven += not found.proven
        seconds.sort()
        oracles = ", ".join(f"{oracle} {n}" for oracle, n in used.most_common())
        print(f"| {name} | {len(instances)} | {max(i.n for i in instances)} | {max(i.quantized()[1] for i in instances)}"
              f" | {oracles} | {seconds[len(seconds) // 2] * 1000:.1f} ms | {seconds[-1] * 1000:.0f} ms | {unproven} |")

    print()
    print("| family | limit | n | C | heaviest | oracle | proven | time |")
    print("|---|---|---|---|---|---|---|---|")
    for name, boundaries in limits.boundaries().items():
        for limit in boundaries:
            for instance in limit.instances:
                start = time.perf_counter()
                found = optimum(instance)
                took = time.perf_counter() - start
                weights, capacity = instance.quantized()
                print(f"| {name} | {limit.name} | {instance.n} | {capacity} | {max(weights)} | {found.name}"
                      f" | {'yes' if found.proven else 'NO'} | {took * 1000:.1f} ms |")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
