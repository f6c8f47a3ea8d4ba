"""The pisinger-classes rows of a ``knapcheck bench --json`` run as a class-by-size matrix.

    knapcheck bench --solvers expanding_core --baselines --rows pisinger-classes --json classes.json
    python studies/pisinger_classes.py classes.json [--solver expanding_core]

prints, in Markdown, the median time of each class at each n and R, then each class's time over
the uncorrelated class's at the same n and R, and the goals' tallies: instances over 100 ms, and
(class, n, R) cells over 3x the uncorrelated one. A time-out prints as such, and counts as over
both. Rows of other groups in the file are ignored.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

LIMIT_SECONDS = 0.1
RATIO_LIMIT = 3.0
REFERENCE = "pisinger_uncorrelated"


def load(path: Path, solver: str | None) -> tuple[str, dict[tuple[str, int, int], float | None], float]:
    """(solver, {(family, n, R): median seconds or None for a failure}, time limit) from a bench JSON file."""
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
    for cell in cells:
        row = rows.get(cell["row"])
        if row is not None and cell["solver"] == chosen:
            times[(row["family"], row["n"], row["data_range"])] = cell["median_seconds"]
    if not times:
        raise SystemExit(f"pisinger_classes.py: {path} has no Pisinger rows for {chosen}")
    return chosen, times, document.get("time_limit", float("nan"))


def milliseconds(seconds: float | None) -> str:
    if seconds is None:
        return "timeout"
    ms = seconds * 1000
    return f"{ms:.3g}" if ms < 999.5 else f"{ms:,.0f}"


def tables(times: dict[tuple[str, int, int], float | None]) -> list[str]:
    families = sorted({f for f, _, _ in times}, key=lambda f: (f != REFERENCE, f))
    sizes = sorted({(n, r) for _, n, r in times})
    header = "| class | " + " | ".join(f"n={n} R={r:.0e}".replace("e+0", "e") for n, r in sizes) + " |"
    rule = "|---" * (len(sizes) + 1) + "|"
    lines = ["Median time (ms):", "", header, rule]
    for family in families:
        cells = [milliseconds(times[(family, n, r)]) if (family, n, r) in times else "" for n, r in sizes]
        lines.append(f"| {family.removeprefix('pisinger_')} | " + " | ".join(cells) + " |")
    lines += ["", "Over the uncorrelated class at the same n and R:", "", header, rule]
    over_limit = [key for key, seconds in times.items() if seconds is None or seconds > LIMIT_SECONDS]
    over_ratio = []
    for family in families:
        cells = []
        for n, r in sizes:
            seconds, reference = times.get((family, n, r)), times.get((REFERENCE, n, r))
            if (family, n, r) not in times or reference is None:
                cells.append("")
            elif seconds is None:
                cells.append("timeout")
                over_ratio.append((family, n, r))
            else:
                cells.append(f"{seconds / reference:.2g}x")
                over_ratio += [(family, n, r)] if seconds > RATIO_LIMIT * reference else []
        lines.append(f"| {family.removeprefix('pisinger_')} | " + " | ".join(cells) + " |")
    finished = [s for s in times.values() if s is not None]
    worst = max(times, key=lambda key: math.inf if times[key] is None else times[key])
    lines += [
        "",
        f"{len(times)} instances; worst {worst[0].removeprefix('pisinger_')} n={worst[1]} R={worst[2]}: {milliseconds(times[worst])} ms;"
        f" geometric mean of the finished ones {milliseconds(math.exp(sum(map(math.log, finished)) / len(finished)))} ms.",
        f"Over {LIMIT_SECONDS * 1000:g} ms: {len(over_limit)} ({_names(over_limit)}).",
        f"Over {RATIO_LIMIT:g}x the uncorrelated class at the same n and R: {len(over_ratio)} of {len(times) - len(sizes)} cells.",
    ]
    return lines


def _names(keys: list[tuple[str, int, int]]) -> str:
    return "; ".join(f"{f.removeprefix('pisinger_')} n={n} R={r}" for f, n, r in sorted(keys)) or "none"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("json", type=Path, help="a knapcheck bench --json file with pisinger-classes rows")
    parser.add_argument("--solver", help="the solver's column (default: the first solver of the run)")
    args = parser.parse_args(argv)
    solver, times, limit = load(args.json, args.solver)
    print(f"{solver}, time limit {limit:g} s per run:\n")
    print("\n".join(tables(times)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
