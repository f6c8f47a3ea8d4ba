"""The real-size models' figures: ``python studies/real_size.py``.

For each model of the committed real-size corpus (fuzz/corpus/harvested_large): how many items the
partitioner hands its solver, how many of them weigh 0 in upstream's rounding, and for every solver
the median and worst overshoot of the saved real memory over max_memory across the model's budgets
(``knapcheck.reports.real_budget``'s aggregation; every answer goes through ``knapcheck.fuzz.judging.verdicts.differential.check``, and
the verdicts other than OPTIMAL are counted). Among several optimal sets, which one a solver
saves decides its overshoot: ``sliding_hirschberg`` and ``full_table`` are both exact.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from typing import Sequence

from knapcheck.fuzz.corpus.harvest_records import LARGE_CORPUS_DIR, load_harvested
from knapcheck.fuzz.judging.verdicts.differential import check
from knapcheck.fuzz.judging.verdicts.overshoot import Overshoots
from knapcheck.oracles.verdict import Verdict
from knapcheck.reports.real_budget import percent
from knapcheck.solvers.contract import quantize
from knapcheck.solvers.registry import resolve_all

DEFAULT_SOLVERS = ["full_table", "sliding_hirschberg", "budget_safe", "torch"]


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header), *("| " + " | ".join(r) + " |" for r in rows)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python studies/real_size.py", description=__doc__.splitlines()[0])
    parser.add_argument("--solvers", nargs="+", default=DEFAULT_SOLVERS, metavar="SPEC",
                        help=f"solvers to judge (default: {' '.join(DEFAULT_SOLVERS)})")
    args = parser.parse_args(argv)
    try:
        entries = resolve_all(args.solvers)
    except ValueError as exc:
        parser.exit(2, f"--solvers: {exc}\n")
    records = load_harvested(LARGE_CORPUS_DIR)
    overshoots = Overshoots()
    verdicts: dict[tuple[str, str], Counter] = {}
    models: dict[str, list] = {}
    for record in records:
        models.setdefault(record.model, []).append(record)
        for entry in entries:
            done = check(entry, record.instance, record.model)
            overshoots.add(entry.name, record.model, record.instance, done.judgement.memory_slack)
            if done.verdict is not Verdict.OPTIMAL:
                verdicts.setdefault((entry.name, record.model), Counter())[done.verdict.value] += 1
        print(f"{record.name}: checked", file=sys.stderr, flush=True)

    sizes = []
    for model, group in models.items():
        zero = {quantize(r.instance.memory, r.instance.max_memory)[0].count(0) for r in group}
        budgets = ", ".join(f"{r.budget:g}" for r in group)
        sizes.append([model, ", ".join(str(n) for n in sorted({r.instance.n for r in group})),
                      ", ".join(str(z) for z in sorted(zero)), budgets])
    print("\n".join(_table(["model", "n", "items of weight 0", "budgets (one knapsack each)"], sizes)))
    print()
    cells = {(row.solver, row.family): row for row in overshoots.summary()}
    rows = []
    for model in models:
        line = [model]
        for entry in entries:
            row = cells[(entry.name, model)]
            seen = verdicts.get((entry.name, model), Counter())
            note = " (" + ", ".join(f"{count} {verdict}" for verdict, count in sorted(seen.items())) + ")" if seen else ""
            line.append(f"{percent(row.median)} / {percent(row.worst)}{note}")
        rows.append(line)
    print("\n".join(_table(["model", *(e.name for e in entries)], rows)))
    print()
    print("Each cell: median / worst overshoot of the saved real memory over max_memory, relative to it,"
          " over the model's budgets.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
