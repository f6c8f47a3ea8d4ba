"""A planted exact solver whose tie-break follows ``hash()`` of a str: always optimal, and the same
answer on every call within one process, but another answer in a process whose PYTHONHASHSEED
differs (for the seeds 0 and 1 the tests use).

Brute force over every subset: for the small instances the tests give it.
"""

from itertools import combinations

SCALE = 10_000


def hash_tie_break(memory, runtimes, max_memory):
    weights, capacity = [round(m * SCALE) for m in memory], round(max_memory * SCALE)
    n = len(memory)
    feasible = [set(c) for k in range(n + 1) for c in combinations(range(n), k) if sum(weights[i] for i in c) <= capacity]
    best = max(sum(runtimes[i] for i in chosen) for chosen in feasible)
    optimal = [chosen for chosen in feasible if sum(runtimes[i] for i in chosen) == best]
    chosen = min(optimal, key=lambda items: hash(",".join(map(str, sorted(items)))))
    return float(best), sorted(chosen), [i for i in range(n) if i not in chosen]
