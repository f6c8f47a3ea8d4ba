"""The pisinger-classes rows of a ``knapcheck bench --json`` run as a class-by-size matrix.

    knapcheck bench --solvers expanding_core --baselines --rows pisinger-classes --json classes.json
    python studies/pisinger_classes.py classes.json [--solver expanding_core] [--baseline OTHER]

Each row holds several instances of its (class, n, R) cell; an instance's time is its median over
the run's repeats, a cell's the geometric mean of its instances'. Prints, in Markdown, each cell's
time, then each cell's over the uncorrelated class's at the same n and R, and the goals' tallies:
instances over 100 ms, and cells over 3x the uncorrelated one. A row that failed (a time-out)
prints as "failed" (the reasons are listed) and counts as over both. Rows of other groups in the file are ignored.

With ``--baseline`` (another solver of the same run) it prints each cell's time over the
baseline's instead (the geometric mean of its instances' ratios), and the tallies against it: cells
at most 1.0x, the worst cell, and the instances over 1.25x where the baseline takes 1 ms or more.
A cell the baseline failed and the solver did not counts as at most 1.0x ("base failed"); one the
solver failed counts as over.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from pathlib import Path
from typing import cast

LIMIT_SECONDS = 0.1
RATIO_LIMIT = 3.0
REFERENCE = "pisinger_uncorrelated"

Key = tuple[str, int, int]


def load(path: Path, solver: str | None) -> tuple[str, dict[Key, list[float] | None], dict[Key, str], float]:
    """(solver, {(family, n, R): each instance's median seconds, or None for a failure}, each
    failure's reason, time limit)."""
    try:
        document = json.loads(path.read_text())
        rows = {row["name"]: row for row in document["rows"] if row.get("kind") == "pisinger"}
        solvers = document["solvers"]
        cells = document["cells"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SystemExit(f"pisinger_classes.py: {path}: not a knapcheck bench --json file ({exc})")
    chosen = solver or solvers[0]
    if chosen not in solvers:
        raise SystemExit(f"pisinger_classes.py: {path} has no solver {chosen!r}; it has {', '.join(solvers)}")
    times = {}
    failures = {}
    try:
        for cell in cells:
            row = rows.get(cell["row"])
            if row is not None and cell["solver"] == chosen:
                key = (row["family"], row["n"], row["data_range"])
                times[key] = _instance_seconds(cell)
                if times[key] is None:
                    failures[key] = str(cell.get("failure") or "no time")
    except (KeyError, TypeError, ValueError, statistics.StatisticsError) as exc:
        raise SystemExit(f"pisinger_classes.py: {path}: a cell that is not a bench measurement ({exc!r})")
    if not times:
        raise SystemExit(f"pisinger_classes.py: {path} has no Pisinger rows for {chosen}")
    return chosen, times, failures, document.get("time_limit", float("nan"))


def _instance_seconds(cell: dict) -> list[float] | None:
    if cell.get("failure") or cell.get("median_seconds") is None:
        return None
    repeats = cell.get("problem_seconds") or [[seconds] for seconds in cell.get("seconds") or [cell["median_seconds"]]]
    return [statistics.median(times) for times in zip(*repeats)]


def geometric_mean(values: list[float]) -> float:
    return math.exp(sum(map(math.log, values)) / len(values))


def milliseconds(seconds: float | None) -> str:
    if seconds is None:
        return "failed"
    ms = seconds * 1000
    return f"{ms:.3g}" if ms < 999.5 else f"{ms:,.0f}"


def shown(seconds: float | None) -> str:
    return "failed" if seconds is None else f"{milliseconds(seconds)} ms"


def tables(instances: dict[Key, list[float] | None], failures: dict[Key, str]) -> list[str]:
    times = {key: None if found is None else geometric_mean(found) for key, found in instances.items()}
    families = sorted({f for f, _, _ in times}, key=lambda f: (f != REFERENCE, f))
    sizes = sorted({(n, r) for _, n, r in times})
    counts = sorted({len(found) for found in instances.values() if found is not None})
    header = "| class | " + " | ".join(f"n={n} R={r:.0e}".replace("e+0", "e") for n, r in sizes) + " |"
    rule = "|---" * (len(sizes) + 1) + "|"
    lines = [f"Geometric mean over each cell's {' or '.join(map(str, counts))} instances (ms):", "", header, rule]
    for family in families:
        cells = [milliseconds(times[(family, n, r)]) if (family, n, r) in times else "" for n, r in sizes]
        lines.append(f"| {family.removeprefix('pisinger_')} | " + " | ".join(cells) + " |")
    lines += ["", "Over the uncorrelated class at the same n and R:", "", header, rule]
    over_limit = [
        (*key, None if found is None else max(found))
        for key, found in instances.items()
        if found is None or max(found) > LIMIT_SECONDS
    ]
    over_ratio = []
    for family in families:
        cells = []
        for n, r in sizes:
            seconds, reference = times.get((family, n, r)), times.get((REFERENCE, n, r))
            if (family, n, r) not in times or reference is None:
                cells.append("")
            elif seconds is None:
                cells.append("failed")
                over_ratio.append((family, n, r))
            else:
                cells.append(f"{seconds / reference:.2g}x")
                over_ratio += [(family, n, r)] if seconds > RATIO_LIMIT * reference else []
        lines.append(f"| {family.removeprefix('pisinger_')} | " + " | ".join(cells) + " |")
    every = [seconds for found in instances.values() if found is not None for seconds in found]
    worst = max(instances, key=lambda key: math.inf if (found := instances[key]) is None else max(found))
    worst_found = instances[worst]
    worst_seconds = None if worst_found is None else max(worst_found)
    instances_over = sum(1 if found is None else sum(s > LIMIT_SECONDS for s in found) for found in instances.values())
    lines += [
        "",
        f"{len(every)} instances in {len(times)} cells; worst instance {_name(worst)}: {shown(worst_seconds)};"
        f" geometric mean of all {milliseconds(geometric_mean(every)) + ' ms' if every else 'none (none finished)'}.",
        f"Instances over {LIMIT_SECONDS * 1000:g} ms (a failed row counts once): {instances_over}, in {len(over_limit)} cells"
        f" ({_over_limit_names(over_limit)}).",
        f"Failed rows: {'; '.join(f'{_name(key)} ({why})' for key, why in sorted(failures.items())) or 'none'}.",
        f"Cells over {RATIO_LIMIT:g}x the uncorrelated class at the same n and R: {len(over_ratio)} of"
        f" {len(times) - len(sizes)} ({_names(over_ratio)}).",
    ]
    return lines


def _name(key: Key) -> str:
    family, n, r = key
    return f"{family.removeprefix('pisinger_')} n={n} R={r}"


def _over_limit_names(found: list[tuple[str, int, int, float | None]]) -> str:
    return "; ".join(f"{_name((f, n, r))} (worst {shown(s)})" for f, n, r, s in sorted(found, key=str)) or "none"


def _names(keys: list[tuple[str, int, int]]) -> str:
    return "; ".join(map(_name, sorted(keys))) or "none"


CELL_LIMIT = 1.0
INSTANCE_LIMIT = 1.25
INSTANCE_FLOOR = 0.001
"""Against a baseline: each cell at most ``CELL_LIMIT`` times its time, and no instance over
``INSTANCE_LIMIT`` times it where it takes ``INSTANCE_FLOOR`` seconds or more."""


def versus(instances: dict[Key, list[float] | None], baseline: dict[Key, list[float] | None], name: str) -> list[str]:
    """The cells' ratios to the baseline's, as a matrix, and the tallies against it."""
    keys = sorted(set(instances) & set(baseline))
    families = sorted({f for f, _, _ in keys}, key=lambda f: (f != REFERENCE, f))
    sizes = sorted({(n, r) for _, n, r in keys})
    ratios: dict[Key, float | None] = {}
    shown_cells: dict[Key, str] = {}
    over_instances = []
    for key in keys:
        ours, theirs = instances[key], baseline[key]
        if ours is None:
            ratios[key], shown_cells[key] = None, "failed" if theirs is not None else "both failed"
        elif theirs is None:
            ratios[key], shown_cells[key] = 0.0, "base failed"
        else:
            ratios[key] = geometric_mean([a / b for a, b in zip(ours, theirs)])
            shown_cells[key] = f"{ratios[key]:.2g}x"
            over_instances += [
                (_name(key), seed, a, b) for seed, (a, b) in enumerate(zip(ours, theirs))
                if b >= INSTANCE_FLOOR and a > INSTANCE_LIMIT * b
            ]
    header = "| class | " + " | ".join(f"n={n} R={r:.0e}".replace("e+0", "e") for n, r in sizes) + " |"
    lines = [f"Over {name} (geometric mean of each cell's instance ratios):", "", header, "|---" * (len(sizes) + 1) + "|"]
    for family in families:
        cells = [shown_cells.get((family, n, r), "") for n, r in sizes]
        lines.append(f"| {family.removeprefix('pisinger_')} | " + " | ".join(cells) + " |")
    within = [key for key in keys if (ratio := ratios[key]) is not None and ratio <= CELL_LIMIT]
    over = [key for key in keys if (ratio := ratios[key]) is None or ratio > CELL_LIMIT]
    measured = [key for key in keys if ratios[key]]
    worst = max(measured, key=lambda key: cast(float, ratios[key])) if measured else None  # measured: each has a ratio
    finished = [(a, b) for key in keys if (mine := instances[key]) and (theirs := baseline[key]) for a, b in zip(mine, theirs)]
    lines += [
        "",
        f"Cells at most {CELL_LIMIT:g}x {name}: {len(within)} of {len(keys)}; over: "
        + ("; ".join(f"{_name(key)} ({shown_cells[key]})" for key in sorted(over, key=lambda k: -(ratios[k] or math.inf))) or "none") + ".",
        f"Worst cell: {_name(worst)} ({ratios[worst]:.3g}x)." if worst else "Worst cell: none measured.",
        f"Geometric mean of the {len(finished)} instances both finished: "
        + (f"{geometric_mean([a / b for a, b in finished]):.3g}x." if finished else "none."),
        f"Instances over {INSTANCE_LIMIT:g}x where {name} takes {INSTANCE_FLOOR * 1000:g} ms or more: {len(over_instances)}"
        + (" (" + "; ".join(f"{cell} seed {seed}: {shown(a)} against {shown(b)}" for cell, seed, a, b in over_instances) + ")"
           if over_instances else "")
        + ".",
    ]
    return lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("json", type=Path, help="a knapcheck bench --json file with pisinger-classes rows")
    parser.add_argument("--solver", help="the solver's column (default: the first solver of the run)")
    parser.add_argument("--baseline", help="another solver of the run: each cell over its time, and the tallies against it")
    args = parser.parse_args(argv)
    solver, instances, failures, limit = load(args.json, args.solver)
    print(f"{solver}, time limit {limit:g} s per run:\n")
    print("\n".join(tables(instances, failures)))
    if args.baseline:
        _, baseline, _, _ = load(args.json, args.baseline)
        print()
        print("\n".join(versus(instances, baseline, args.baseline.rsplit("/", 1)[-1])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
