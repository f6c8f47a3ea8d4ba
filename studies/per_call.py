"""The per-call rows of a ``knapcheck bench --json`` run: a solver over a baseline, problem by problem.

    knapcheck bench --solvers expanding_core --baselines knapcheck.solvers.ortools_baselines:branch_and_bound --rows tiny --clock cpu --json tiny.json
    python studies/per_call.py tiny.json --baseline knapcheck.solvers.ortools_baselines:branch_and_bound

For each per-call row: the median call of each solver (the median over the run's repeats) and their
ratio; then each problem's ratio (its median call, over the repeats too), the worst problems, and
how many are over ``LIMIT``. Rows of other kinds are ignored.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

LIMIT = 2.0
WORST = 5


def problem_names(row: dict) -> list[str]:
    """The problems of a per-call row, in the order the row makes them (``PerCallRow.instances``)."""
    if row["source"] == "harvested":
        from knapcheck.fuzz.corpus.harvest_records import load_harvested

        return [record.name for record in load_harvested()]
    return [f"{family.removeprefix('pisinger_')} n={row['items']} seed {seed}" for family in row["source"].split(",") for seed in range(row["count"])]


def per_call(path: Path, solver: str | None, baseline: str) -> list[str]:
    try:
        document = json.loads(path.read_text())
        rows = {row["name"]: row for row in document["rows"] if row.get("kind") == "per_call"}
        cells = {(cell["solver"], cell["row"]): cell for cell in document["cells"]}
        solver = solver or document["solvers"][0]
    except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
        raise SystemExit(f"per_call.py: {path}: not a knapcheck bench --json file ({exc})")
    lines = [f"| row | {solver} | {baseline} | ratio | worst problem | problems over {LIMIT:g}x |", "|---|---|---|---|---|---|"]
    everything = []
    for name, row in rows.items():
        ours, theirs = cells.get((solver, name)), cells.get((baseline, name))
        if not ours or not theirs or ours["failure"] or theirs["failure"]:
            lines.append(f"| {name} | {(ours or {}).get('failure') or ''} | {(theirs or {}).get('failure') or ''} | | | |")
            continue
        a, b = statistics.median(ours["seconds"]), statistics.median(theirs["seconds"])
        each = [
            (x / y, problem, x, y)
            for problem, x, y in zip(problem_names(row), _problem_medians(ours), _problem_medians(theirs))
        ]
        everything += [(ratio, f"{name}: {problem}", x, y) for ratio, problem, x, y in each]
        worst = max(each)
        over = sum(ratio > LIMIT for ratio, *_ in each)
        lines.append(
            f"| {name} | {_us(a)} | {_us(b)} | {a / b:.2f}x | {worst[1]} {worst[0]:.2f}x"
            f" ({_us(worst[2])} against {_us(worst[3])}) | {over} of {len(each)} |"
        )
    lines += ["", f"The {WORST} worst problems over {baseline}:"]
    lines += [f"- {problem}: {ratio:.2f}x ({_us(x)} against {_us(y)})" for ratio, problem, x, y in sorted(everything, reverse=True)[:WORST]]
    return lines


def _problem_medians(cell: dict) -> list[float]:
    return [statistics.median(times) for times in zip(*cell["problem_seconds"])]


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:.3g} us"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("json", type=Path, help="a knapcheck bench --json file with per-call rows")
    parser.add_argument("--solver", help="the solver (default: the first solver of the run)")
    parser.add_argument("--baseline", required=True, help="the solver of the run to compare with")
    args = parser.parse_args(argv)
    print("\n".join(per_call(args.json, args.solver, args.baseline)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
